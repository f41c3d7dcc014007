/*
 * test_cut_frames.c — a frame longer than wlan-emu's receive buffer (RX_BUF_BYTES) cannot be read whole; it is
 * counted as a receive error and not forwarded, instead of leaving the other port cut short as an "oversize"
 * bypass. The frames after it are forwarded as usual.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "emu_harness.h"

static void test_a_frame_longer_than_the_receive_buffer_is_an_rx_error_not_a_cut_frame(void **state)
{
    (void)state;
    static struct harness h;
    assert_int_equal(harness_init(&h, "../../air/lab-2ap-2sta.json"), 0);
    static uint8_t jumbo[RX_BUF_BYTES + 4000], small[100], got[RX_BUF_BYTES + 4000];
    harness_frame(jumbo, sizeof jumbo, harness_server_mac, harness_sta1_mac, 1);
    harness_frame(small, sizeof small, harness_server_mac, harness_sta1_mac, 2);
    small[0] |= 1; /* group-addressed: forwarded at once, so it shows without running the air */
    assert_int_equal(send(h.peer[HARNESS_STA1], jumbo, sizeof jumbo, 0), (ssize_t)sizeof jumbo);
    assert_int_equal(send(h.peer[HARNESS_STA1], small, sizeof small, 0), (ssize_t)sizeof small);
    assert_int_equal(harness_turn(&h), 2);
    ssize_t n = recv(h.peer[HARNESS_AP1], got, sizeof got, MSG_DONTWAIT);
    assert_int_equal(n, (ssize_t)sizeof small);
    assert_memory_equal(got, small, sizeof small);
    assert_int_equal(recv(h.peer[HARNESS_AP1], got, sizeof got, MSG_DONTWAIT), -1);
    assert_int_equal(h.e.rx_errors, 1);
    assert_int_equal(h.e.bypass_oversize, 0);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_frame_longer_than_the_receive_buffer_is_an_rx_error_not_a_cut_frame),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
