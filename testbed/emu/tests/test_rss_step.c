/*
 * test_rss_step.c — wlan-emu's --rss-step (rss_step.c) against the air model: a step applied at virtual
 * instant T changes the RSS of PPDUs that start after T only; one that started before T, still in flight,
 * keeps the RSS of its start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rss_step.h"

#define MAX_GT 16

struct recorder {
    struct wlan_gt_record gt[MAX_GT];
    int n;
};

static void on_deliver(void *ctx, const struct wlan_delivery *d)
{
    (void)ctx;
    (void)d;
}

static void on_ground_truth(void *ctx, const struct wlan_gt_record *r)
{
    struct recorder *rec = ctx;
    if (rec->n < MAX_GT)
        rec->gt[rec->n++] = *r; /* ids/ok/enq_us are not kept: valid during the callback only */
}

/* The lab (004 Table 2) without fading, so a PPDU's fate follows from the RSS matrix alone. */
static wlan_air_t *lab_without_fading(void)
{
    struct wlan_air_config cfg;
    char err[256];
    assert_int_equal(wlan_air_config_load("../../air/lab-2ap-2sta.json", &cfg, err, sizeof err), 0);
    cfg.fading_sigma_db = 0;
    wlan_air_t *air = wlan_air_create(&cfg, 1);
    assert_non_null(air);
    return air;
}

static void enqueue_frames(wlan_air_t *air, int src, int dst, uint64_t first_id, int n, uint64_t now_us)
{
    for (int i = 0; i < n; i++) {
        struct wlan_frame f = {.id = first_id + (uint64_t)i, .len_bytes = 1514, .src = (uint8_t)src,
                               .dst = (uint8_t)dst, .ac = WLAN_AC_BE};
        assert_int_equal(wlan_air_enqueue(air, &f, now_us), 0);
    }
}

/* The loop applies a SIGUSR1's step at the instant it reads the clock, while the air model may still be at
 * the previous instant it was run to: a PPDU that started in between (before the step, on the virtual clock)
 * must not be drawn with the RSS of after it. */
static void test_a_ppdu_started_before_the_step_keeps_the_rss_of_its_start(void **state)
{
    (void)state;
    wlan_air_t *twin = lab_without_fading(), *air = lab_without_fading();
    int ap1 = wlan_air_node_index(air, "ap1"), sta1 = wlan_air_node_index(air, "sta1");
    struct recorder seen = {0}, rec = {0};
    struct wlan_air_callbacks twin_cb = {on_deliver, on_ground_truth, NULL, &seen};
    struct wlan_air_callbacks cb = {on_deliver, on_ground_truth, NULL, &rec};

    /* Same config, seed and frames: the twin shows when the first PPDU starts and ends. */
    enqueue_frames(twin, ap1, sta1, 1, 5, 0);
    wlan_air_advance(twin, 100000, &twin_cb);
    assert_int_equal(seen.n, 1);
    assert_int_equal(seen.gt[0].n_ok, 5);
    uint64_t start = seen.gt[0].start_us, end = start + seen.gt[0].duration_us;

    enqueue_frames(air, ap1, sta1, 1, 5, 0);
    struct rss_step step = {.a = ap1, .b = sta1, .delta_db = -60.0}; /* -64.6 dBm -> -124.6: nothing decodes */
    rss_steps_apply(air, &step, 1, start + 1, &cb);
    wlan_air_advance(air, end + 10000, &cb);
    assert_true(rec.n >= 2);
    assert_int_equal(rec.gt[0].start_us, start);
    assert_false(rec.gt[0].preamble_lost);
    assert_int_equal(rec.gt[0].n_ok, 5);
    /* The step itself took effect: the BlockAck and the retransmissions its loss brings start after it. */
    assert_false(rec.gt[0].ba_ok);
    assert_true(rec.gt[1].start_us > start + 1);
    assert_int_equal(rec.gt[1].n_ok, 0);
    wlan_air_destroy(air);
    wlan_air_destroy(twin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_ppdu_started_before_the_step_keeps_the_rss_of_its_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
