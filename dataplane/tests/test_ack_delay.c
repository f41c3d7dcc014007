/*
 * test_ack_delay.c — the release-to-ACK delay of a paced pair (core/ack_delay.h) through the public API, on the
 * 2AP-2STA lab (frame 40 ms): a data segment is timed from its release by the pacer to the first ACK that covers
 * it, one at a time, retransmissions are not timed (Karn), a segment not answered within 500 ms is given up, and
 * a time-sliced pair is not timed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "adwiser/sched.h"
#include "frame_builder.h"
#include "lab_config.h"
#include "parse.h"
#include "sched_fixture.h"

#define MS 1000000ull
#define US 1000ull
#define SEG 1448u

/* Runs the loop at every ms from `from` to `to`: the pacer releases one segment per ms. */
static void run_ms(struct adw_sched *s, uint64_t from, uint64_t to)
{
    for (uint64_t t = from; t <= to; t += MS)
        sched_dequeue_all(s, t);
}

/* The next finished frame's report of AP1-STA1. */
static struct adw_pair_report next_report(struct adw_sched *s)
{
    return sched_next_frame(s).pr[0];
}

static void test_a_paced_segment_is_timed_from_its_release_to_the_ack_that_covers_it(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1, 30, 0);
    run_ms(f->s, 0, 3 * MS);            /* segments 0..3 released at 0, 1, 2, 3 ms; segment 0 is timed */
    lab_sta_acks(f->s, 0, 1, 3 * MS + 200 * US);  /* covers segment 0: 3.2 ms */
    run_ms(f->s, 4 * MS, 9 * MS);       /* segment 4, released at 4 ms, is the next one timed */
    lab_sta_acks(f->s, 0, 4, 9 * MS + 500 * US);  /* short of segment 4's end: no sample */
    lab_sta_acks(f->s, 0, 5, 9 * MS + 800 * US);  /* covers it: 5.8 ms */
    run_ms(f->s, 10 * MS, 40 * MS);
    struct adw_pair_report r = next_report(f->s);
    assert_int_equal(r.mode, ADW_MODE_PACED);
    assert_int_equal(r.ack_delay_samples, 2);
    assert_int_equal(r.ack_delay_mean_ns, (3200 * US + 5800 * US) / 2);
    assert_int_equal(r.ack_delay_min_ns, 3200 * US);
}

static void test_each_frame_reports_only_its_own_samples(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1, 60, 0);
    run_ms(f->s, 0, 1 * MS);
    lab_sta_acks(f->s, 0, 1, 1 * MS + 500 * US);  /* 1.5 ms, in frame 0 */
    run_ms(f->s, 2 * MS, 41 * MS);      /* segment 2 (2 ms) timed, not answered in frame 0 */
    lab_sta_acks(f->s, 0, 3, 41 * MS + 100 * US); /* 39.1 ms, in frame 1 */
    run_ms(f->s, 42 * MS, 80 * MS);
    struct adw_pair_report r0 = next_report(f->s), r1 = next_report(f->s);
    assert_int_equal(r0.ack_delay_samples, 1);
    assert_int_equal(r0.ack_delay_mean_ns, 1500 * US);
    assert_int_equal(r1.ack_delay_samples, 1);
    assert_int_equal(r1.ack_delay_mean_ns, 39100 * US);
    assert_int_equal(r1.ack_delay_min_ns, 39100 * US);
}

static void test_a_retransmission_of_the_timed_segment_takes_no_sample(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1, 2, 0);
    run_ms(f->s, 0, 2 * MS);            /* segment 0 timed at 0 */
    lab_queue_segments(f->s, 0, 1, 1, 2 * MS); /* the server sends segment 0 again: released at 2 ms */
    run_ms(f->s, 2 * MS, 3 * MS);
    lab_sta_acks(f->s, 0, 2, 3 * MS + 500 * US); /* which copy it answers is unknown (RFC 6298 §3) */
    run_ms(f->s, 4 * MS, 40 * MS);
    assert_int_equal(next_report(f->s).ack_delay_samples, 0);
}

static void test_a_segment_not_answered_within_500_ms_is_given_up(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1, 1, 0);
    run_ms(f->s, 0, 1 * MS);            /* segment 0 timed at 0 */
    lab_queue_segments(f->s, 0, 1 + 1 * SEG, 1, 600 * MS);
    run_ms(f->s, 600 * MS, 601 * MS);   /* segment 1 at 600 ms: segment 0 given up, segment 1 timed */
    lab_sta_acks(f->s, 0, 2, 602 * MS);    /* covers both: only segment 1's 2 ms counts */
    run_ms(f->s, 603 * MS, 640 * MS);
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    uint32_t samples = 0;
    uint64_t mean = 0;
    while (adw_sched_poll_frame(f->s, &fr, pr, 2) == 1) {
        samples += pr[0].ack_delay_samples;
        if (pr[0].ack_delay_samples)
            mean = pr[0].ack_delay_mean_ns;
    }
    assert_int_equal(samples, 1);
    assert_int_equal(mean, 2 * MS);
}

static void test_a_segment_timed_before_the_pair_left_paced_mode_is_forgotten_when_it_is_paced_again(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1, 1, 0);
    run_ms(f->s, 0, 1 * MS);            /* segment 0 timed at 0 */
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", 0, 2 * MS, NULL, 0), 0);
    run_ms(f->s, 2 * MS, 100 * MS);     /* time-sliced meanwhile */
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 100 * MS, NULL, 0), 0);
    lab_sta_acks(f->s, 0, 1, 101 * MS);    /* 101 ms after segment 0, most of it not paced: not a sample */
    run_ms(f->s, 101 * MS, 160 * MS);
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    uint32_t samples = 0;
    while (adw_sched_poll_frame(f->s, &fr, pr, 2) == 1)
        samples += pr[0].ack_delay_samples;
    assert_int_equal(samples, 0);
}

static void test_a_time_sliced_pair_is_not_timed(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 10, 0);
    run_ms(f->s, 0, 5 * MS);            /* released in AP1's slice batch at 0 */
    lab_sta_acks(f->s, 0, 10, 5 * MS);
    run_ms(f->s, 6 * MS, 40 * MS);
    struct adw_pair_report r = next_report(f->s);
    assert_int_equal(r.mode, ADW_MODE_SLICED);
    assert_int_equal(r.released_pkts, 10);
    assert_int_equal(r.ack_delay_samples, 0);
    assert_int_equal(r.ack_delay_mean_ns, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_a_paced_segment_is_timed_from_its_release_to_the_ack_that_covers_it),
        LAB_TEST(test_each_frame_reports_only_its_own_samples),
        LAB_TEST(test_a_retransmission_of_the_timed_segment_takes_no_sample),
        LAB_TEST(test_a_segment_not_answered_within_500_ms_is_given_up),
        LAB_TEST(test_a_segment_timed_before_the_pair_left_paced_mode_is_forgotten_when_it_is_paced_again),
        LAB_TEST(test_a_time_sliced_pair_is_not_timed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
