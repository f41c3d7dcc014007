/*
 * test_queue_limit.c — the A* queue limit of a time-sliced pair (003 §IV, SPEC §3.5) from its batches' drain
 * times, on the 2AP-2STA lab (AP1-STA1 in slice 0, AP2-STA2 in slice 1, 20 ms each, frame 40 ms, time from 0).
 * Only batches of at least ADW_EBDP_MIN_BATCH_PKTS packets give a per-packet service sample (astar.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "adwiser/sched.h"
#include "astar.h"
#include "sched_fixture.h"

#define MS 1000000ull
#define SEG 1448u

/* STA1's batch of r_init packets (of 100 queued) at 0, acknowledged whole at v_ms: its limit at frame end. */
static uint32_t sta1_limit_after_one_batch(struct sched_fixture *f, uint32_t r_init, uint64_t v_ms)
{
    f->cfg->policies.ts_abr_qd.r_init_pkts = r_init;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    for (unsigned i = 0; i < r_init; i++) { /* one batch: no refill when it drains (test_refill.c) */
        struct adw_pkt p = lab_down_pkt(0, 1 + i * SEG, SEG);
        enum adw_verdict v;
        adw_sched_enqueue_burst(f->s, &p, &v, 1, 0);
    }
    assert_int_equal(sched_dequeue_all(f->s, 0), r_init);
    struct adw_pkt a = lab_up_ack_pkt(0, 1 + r_init * SEG);
    enum adw_verdict v;
    adw_sched_enqueue_burst(f->s, &a, &v, 1, v_ms * MS);
    sched_dequeue_all(f->s, 40 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.pr[0].v_ns, v_ms * MS);
    return rep.pr[0].limit_pkts;
}

/* Two packets acknowledged after 30 ms (a collision burst) are 30 ms of latency, not 15 ms per packet: the
 * limit stays where it was (no service time measured yet: q_max). As a sample it gave 200 / (15 x 40/20) + 5 = 11,
 * clamped to q_min = 32, and the next slow start was dropped at the tail. */
static void test_batch_smaller_than_an_ampdu_gives_no_service_sample(void **state)
{
    struct sched_fixture *f = *state;
    uint32_t q_max = f->cfg->policies.queue_sizing.q_max_pkts;
    assert_in_range(sta1_limit_after_one_batch(f, 2, 30), q_max - 8, q_max); /* q_ALT's busy-time step aside */
}

/* A batch of a few A-MPDUs is n service times: 40 packets in 10 ms, 0.25 ms each, 0.5 ms stretched by the
 * frame (40 ms) over the pair's slice (20 ms): Q_eBDP = 200 / 0.5 + 5 = 405. */
static void test_batch_of_several_ampdus_sets_the_limit_from_its_drain_time(void **state)
{
    struct sched_fixture *f = *state;
    assert_true(40 >= ADW_EBDP_MIN_BATCH_PKTS);
    assert_int_equal(sta1_limit_after_one_batch(f, 40, 10), 405);
}

/* STA1 alone backlogged for 80 slices, each batch of 40 drained in exactly its 20 ms slice (V = S, so r stays 40):
 * its limit after the last frame. With dynamic slicing (STA2 idle) STA1 has every slice of the frame. */
static uint32_t sta1_limit_draining_40_per_slice(struct sched_fixture *f, bool dynamic)
{
    f->cfg->policies.dynamic_slicing.enabled = dynamic;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    uint32_t released = 0;
    for (unsigned k = 0; k < 80; k++) {
        uint64_t t = k * 20 * MS;
        bool sta1s = dynamic || k % 2 == 0;
        if (k > 0 && (dynamic || k % 2 == 1)) { /* the batch of the slice before drained at its end */
            struct adw_pkt a = lab_up_ack_pkt(0, 1 + released * SEG);
            assert_int_equal(sched_enqueue1(f->s, &a, t), ADW_PASS);
        }
        if (sta1s)
            lab_queue_segments(f->s, 0, 1 + released * SEG, 40, t > 0 ? t - MS : 0);
        unsigned n = sched_dequeue_all(f->s, t);
        assert_int_equal(n, sta1s ? 40 : 0);
        released += n;
    }
    sched_dequeue_all(f->s, 80 * 20 * MS);
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    uint32_t limit = 0;
    while (adw_sched_poll_frame(f->s, &fr, pr, 2) == 1)
        limit = pr[0].limit_pkts;
    return limit;
}

/* Its own slice only: 0.5 ms a packet in the slice, 1 ms stretched by the frame over the pair's 20 ms of it:
 * Q_eBDP = 200 / 1 + 5 = 205. */
static void test_a_pair_served_in_its_own_slice_only_has_its_service_time_stretched_by_the_frame(void **state)
{
    assert_int_equal(sta1_limit_draining_40_per_slice(*state, false), 205);
}

/* Every slice of the frame (dynamic slicing gives it the idle pair's): 0.5 ms a packet is its service time, a
 * queue of 400 is 200 ms of delay, Q_eBDP = 200 / 0.5 + 5 = 405 (the first sample, in the first frame, was taken
 * at the plan's share and is averaged out). The stretch by the plan's 20 ms of the frame halved it to 205: a
 * queue of 100 ms at T_max = 200 ms, its TCP dropped at the tail for a delay it never had. */
static void test_a_pair_given_every_slice_has_its_service_time_stretched_by_the_slices_it_had(void **state)
{
    assert_in_range(sta1_limit_draining_40_per_slice(*state, true), 400, 405);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_batch_smaller_than_an_ampdu_gives_no_service_sample),
        LAB_TEST(test_batch_of_several_ampdus_sets_the_limit_from_its_drain_time),
        LAB_TEST(test_a_pair_served_in_its_own_slice_only_has_its_service_time_stretched_by_the_frame),
        LAB_TEST(test_a_pair_given_every_slice_has_its_service_time_stretched_by_the_slices_it_had),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
