/*
 * test_delivery.c — wlan-emu's delivery callback (delivery.c): a frame whose send fails is a tx error, not a
 * frame out of the link, and its lateness is not a delivery timing sample.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "emu.h"

static void test_a_delivery_whose_send_fails_is_a_tx_error_not_a_frame_out(void **state)
{
    (void)state;
    static struct emu e;
    struct wlan_air_config cfg;
    char err[256];
    assert_int_equal(wlan_air_config_load("../../air/lab-2ap-2sta.json", &cfg, err, sizeof err), 0);
    e.air = wlan_air_create(&cfg, 1);
    assert_non_null(e.air);
    e.cfg = wlan_air_config(e.air);
    e.links = calloc(WLAN_MAX_NODES * WLAN_MAX_NODES, sizeof *e.links);
    assert_non_null(e.links);
    assert_int_equal(frame_store_init(&e.store), 0);
    for (int i = 0; i < WLAN_MAX_NODES; i++)
        e.port_of_node[i] = -1;
    e.ports[0].fd = -1; /* a socket whose send fails (EBADF standing in for ENOBUFS or ENETDOWN) */
    e.port_of_node[2] = 0;
    e.n_ports = 1;
    uint8_t frame[100] = {0};
    uint64_t id = frame_store_put(&e.store, frame, sizeof frame, 0);
    const struct wlan_air_callbacks *cb = emu_callbacks(&e);
    struct wlan_delivery d = {.id = id, .len_bytes = 100, .src = 0, .dst = 2, .deliver_us = 0};
    cb->deliver(cb->ctx, &d);
    assert_int_equal(e.tx_errors, 1);
    assert_int_equal(link_of(&e, 0, 2)->frames_out, 0);
    assert_int_equal(link_of(&e, 0, 2)->timing.n, 0);
    frame_store_free(&e.store);
    free(e.links);
    wlan_air_destroy(e.air);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_delivery_whose_send_fails_is_a_tx_error_not_a_frame_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
