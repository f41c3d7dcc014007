/*
 * test_exit_ground_truth.c — when wlan-emu stops with a PPDU on the air, the exchange runs to its end before the
 * logs are written (emu_finish_exchanges), so the ground truth shows a decoded MPDU for every frame handed up,
 * and no new PPDU starts after the stop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <jansson.h>

#include "emu_harness.h"

static uint8_t decoded[1 << 12]; /* [id]: the ground truth shows MPDU id decoded */

/* Marks the ids the ground truth in f shows decoded; returns its PPDUs. */
static size_t read_ground_truth(FILE *f)
{
    size_t ppdus = 0;
    static char line[1 << 16];
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        json_error_t err;
        json_t *r = json_loads(line, 0, &err);
        assert_non_null(r);
        const char *mask = json_string_value(json_object_get(r, "ok_mask"));
        size_t i;
        json_t *id;
        json_array_foreach(json_object_get(r, "ids"), i, id) {
            json_int_t k = json_integer_value(id);
            assert_true(k > 0 && k < (json_int_t)sizeof decoded);
            decoded[k] |= mask[i] == '1';
        }
        ppdus++;
        json_decref(r);
    }
    return ppdus;
}

static void test_a_stop_with_a_ppdu_on_the_air_logs_it_and_starts_no_other(void **state)
{
    (void)state;
    static struct harness h;
    assert_int_equal(harness_init(&h, "../../air/lab-2ap-2sta.json"), 0);
    h.e.gt = tmpfile();
    assert_non_null(h.e.gt);
    uint8_t f[1514];
    for (uint32_t i = 0; i < 900; i++) {
        harness_frame(f, sizeof f, harness_sta1_mac, harness_server_mac, i);
        assert_int_equal(send(h.peer[HARNESS_AP1], f, sizeof f, 0), (ssize_t)sizeof f);
    }
    struct link_stats *down = link_of(&h.e, HARNESS_AP1, HARNESS_STA1);
    while (harness_turn(&h) > 0)
        ;
    assert_int_equal(down->frames_in, 900);
    /* Stop once the first MPDU is handed up: the PPDU carrying it is still on the air, its BlockAck to come. */
    while (down->frames_out == 0)
        harness_turn(&h);
    emu_finish_exchanges(&h.e);
    struct wlan_link_counters k;
    wlan_air_link_counters(h.e.air, HARNESS_AP1, HARNESS_STA1, &k);
    assert_int_equal(read_ground_truth(h.e.gt), k.ppdus);
    /* Every frame STA1 received: its id is its arrival number at wlan-emu (all 900 came in one port, in order). */
    uint64_t received = 0;
    for (ssize_t n; (n = recv(h.peer[HARNESS_STA1], f, sizeof f, MSG_DONTWAIT)) > 0; received++) {
        uint32_t seq;
        memcpy(&seq, f + 30, sizeof seq);
        if (!decoded[seq + 1])
            fail_msg("frame %u was handed up but no PPDU in the ground truth shows it decoded", seq);
    }
    assert_int_equal(received, down->frames_out);
    assert_int_equal(h.e.gt_records, k.ppdus);
    assert_true(down->in_air > 0);
    /* Nothing more happens on the air once the exchanges are over. */
    assert_true(wlan_air_next_event_us(h.e.air) == UINT64_MAX);
    uint64_t out = down->frames_out;
    harness_turn(&h);
    assert_int_equal(down->frames_out, out);
    fclose(h.e.gt);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_stop_with_a_ppdu_on_the_air_logs_it_and_starts_no_other),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
