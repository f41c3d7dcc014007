/*
 * test_refill.c — a drain that ends early in its slice gets a batch for the time left, in the same drain
 * (refill.c, adw_refill_batch; 004 §5 design principle (2): busy up to the end of the slice), and with too
 * little time left for that, with policies.ts_abr_qd.early_handover, the next slice's batch goes at once
 * (adw_start_next_slice_early). The 2AP-2STA lab:
 * AP1-STA1 in slice 0, AP2-STA2 in slice 1, 20 ms each, r_init = 40, a = 1 packet/ms, time starting at 0.
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
#include "sched_fixture.h"

#define MS 1000000ull
#define SEG 1448u

/* The lab with policies.ts_abr_qd.early_handover on (adw_start_next_slice_early). */
static void enable_early_handover(struct sched_fixture *f)
{
    f->cfg->policies.ts_abr_qd.early_handover = true;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
}

/* AP1-STA1 (100 segments queued) drains its batch of 40 with 1.5 ms of its slice left, AP2-STA2 has sta2_segments
 * queued: what is released then. */
static unsigned ap1_drains_with_1_5_ms_left(struct sched_fixture *f, unsigned sta2_segments)
{
    lab_queue_segments(f->s, 0, 1, 100, 0);
    lab_queue_segments(f->s, 1, 1, sta2_segments, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 40);
    lab_sta_acks(f->s, 0, 40, 18 * MS + MS / 2);
    return sched_dequeue_all(f->s, 18 * MS + MS / 2);
}

/* Frame 0's report of AP1-STA1 (polled once frame 1 has begun). */
static struct adw_pair_report sta1_report_of_frame0(struct adw_sched *s)
{
    sched_dequeue_all(s, 40 * MS);
    struct sched_frame rep = sched_next_frame(s);
    assert_int_equal(rep.fr.frame, 0);
    return rep.pr[0];
}

static void test_a_drain_ending_early_in_its_slice_releases_a_batch_for_the_time_left(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 100, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 40);
    lab_sta_acks(f->s, 0, 40, 10 * MS); /* drained in 10 ms: 10 ms of the slice left */
    unsigned n = sched_dequeue_all(f->s, 10 * MS);
    assert_int_equal(n, 20); /* r = 40 for 20 ms, scaled to the 10 ms left */
    sched_assert_out_to(n, 1);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.batch_refills, 1);
    assert_int_equal(st.drains_completed, 0); /* the refill joined the drain */
}

static void test_a_refilled_slice_is_one_drain_timed_from_the_first_release(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    lab_sta_acks(f->s, 0, 40, 10 * MS);
    sched_dequeue_all(f->s, 10 * MS);
    lab_sta_acks(f->s, 0, 60, 19 * MS); /* the refill drained: V = 19 ms from the first release */
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_completed, 1);
    struct adw_pair_report pr = sta1_report_of_frame0(f->s);
    assert_int_equal(pr.drains, 1);
    assert_int_equal(pr.v_ns, 19 * MS);
    assert_int_equal(pr.released_pkts, 60);
    assert_int_equal(pr.r_pkts, 41); /* eq. (1): 40 + 1 packet/ms x (20 - 19) ms */
}

/* The refill's data is released at the ACK that ended the first batch; a refill of which no ACK comes back is still
 * in the AP's queue or the air, as a batch never acknowledged at all: its drain takes the close time, not the time
 * of that ACK (release.c, silent_drain_v). */
static void test_a_refill_never_acknowledged_takes_the_close_time(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 200, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 40);
    lab_sta_acks(f->s, 0, 40, 10 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 10 * MS), 20); /* the refill */
    /* No ACK of the refill: the pair's next batch closes the drain at 40 ms. Was 50 (V = 10 ms: r + 1 x (20 - 10)). */
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 20); /* V = 40 ms: r + 1 packet/ms x (20 - 40) ms */
    assert_int_equal(sched_stats(f->s).drains_silent, 0);
}

static void test_one_refill_per_slice(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    lab_sta_acks(f->s, 0, 40, 10 * MS);
    sched_dequeue_all(f->s, 10 * MS);
    lab_sta_acks(f->s, 0, 60, 14 * MS); /* 6 ms left again, 40 packets still queued */
    assert_int_equal(sched_dequeue_all(f->s, 14 * MS), 0);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.batch_refills, 1);
    assert_int_equal(st.drains_completed, 1);
    assert_int_equal(sta1_report_of_frame0(f->s).v_ns, 14 * MS);
}

static void test_no_refill_with_under_2_ms_of_the_slice_left(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    lab_sta_acks(f->s, 0, 40, 18 * MS + MS / 2); /* 1.5 ms left */
    assert_int_equal(sched_dequeue_all(f->s, 18 * MS + MS / 2), 0);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.batch_refills, 0);
    assert_int_equal(st.drains_completed, 1);
}

static void test_no_refill_for_a_drain_that_ends_in_another_pairs_slice(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    sched_dequeue_all(f->s, 20 * MS); /* AP2-STA2's slice (nothing queued for it) */
    lab_sta_acks(f->s, 0, 40, 25 * MS); /* AP1's drain overran into it */
    assert_int_equal(sched_dequeue_all(f->s, 25 * MS), 0);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.batch_refills, 0);
    assert_int_equal(st.drains_completed, 1);
    assert_int_equal(st.drains_overrun, 1);
}

static void test_no_refill_without_backlog(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 40, 0);
    sched_dequeue_all(f->s, 0);
    lab_sta_acks(f->s, 0, 40, 10 * MS);
    assert_int_equal(sched_stats(f->s).batch_refills, 0);
    assert_int_equal(sta1_report_of_frame0(f->s).v_ns, 10 * MS);
}

/* A refill under one A-MPDU (ADW_EBDP_MIN_BATCH_PKTS) is one transmission whose lone last segment's ACK the
 * receiver may hold for its delayed-ACK timer: not released. */
static void test_no_refill_of_less_than_an_ampdu(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 50, 0); /* 10 left after the batch of 40 */
    sched_dequeue_all(f->s, 0);
    lab_sta_acks(f->s, 0, 40, 10 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 10 * MS), 0);
    assert_int_equal(sched_stats(f->s).batch_refills, 0);
}

/* An uplink transfer's batch is the server's ACKs (queued as downlink ACKs): no refill of them. */
static void test_no_refill_of_acks_to_an_uplink_sender(void **state)
{
    struct sched_fixture *f = *state;
    for (unsigned i = 0; i < 100; i++) { /* the server's pure ACKs of the STA's data */
        struct fb_tcp a = lab_down_tcp(0, 1, 0);
        a.ack = 1 + i * 2 * SEG;
        uint8_t *b = lab_buf();
        struct adw_pkt p = {.data = b, .len = fb_tcp(b, 1600, &a), .in_port = 0, .cookie = b};
        assert_int_equal(sched_enqueue1(f->s, &p, 0), ADW_QUEUED);
    }
    assert_int_equal(sched_dequeue_all(f->s, 0), 40);
    for (unsigned k = 0; k < 78; k++) { /* the STA sends the 39 x 2 segments the released ACKs allow */
        struct fb_tcp d = lab_up_ack(0, 1);
        d.seq = 1 + k * SEG;
        d.payload_len = SEG;
        uint8_t *b = lab_buf();
        struct adw_pkt p = {.data = b, .len = fb_tcp(b, 1600, &d), .in_port = 1, .cookie = b};
        sched_enqueue1(f->s, &p, 5 * MS + k * 50000ull);
    }
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_completed, 1);
    assert_int_equal(st.batch_refills, 0);
}

/* 004 §6.4: real-time packets go first. A voice packet for AP2 held while AP1's drain was in the air goes out
 * when that drain ends, and AP1 gets no refill into the gap it was waiting for. */
static void test_real_time_packets_waiting_for_the_drain_go_instead_of_a_refill(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    struct adw_pkt v = lab_voice_pkt(1);
    assert_int_equal(sched_enqueue1(f->s, &v, 5 * MS), ADW_QUEUED);
    assert_int_equal(sched_dequeue_all(f->s, 5 * MS), 0); /* held: AP1's drain is in the air */
    lab_sta_acks(f->s, 0, 40, 10 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 10 * MS), 1);
    assert_int_equal(sched_out[0].out_port, 2);
    assert_int_equal(sched_stats(f->s).batch_refills, 0);
}

/* By default (early_handover off) slices start on the clock, as in 004 §5: with 1.5 ms left and AP2-STA2's batch
 * queued, it waits for its slice start. */
static void test_without_early_handover_the_next_slice_starts_on_the_clock(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(ap1_drains_with_1_5_ms_left(f, 100), 0);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 40);
    assert_int_equal(sched_stats(f->s).early_slice_starts, 0);
}

/* With early_handover, too little of the slice left for a refill: AP2-STA2's batch goes when AP1's drain ends,
 * sized for the time to the end of its own slice (r = 40 for 20 ms, 21.5 ms away: 43 packets), and nothing more at
 * its slice start. */
static void test_next_slice_starts_when_a_drain_ends_with_no_time_left_for_a_refill(void **state)
{
    struct sched_fixture *f = *state;
    enable_early_handover(f);
    unsigned n = ap1_drains_with_1_5_ms_left(f, 100);
    assert_int_equal(n, 43);
    sched_assert_out_to(n, 2);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.early_slice_starts, 1);
    assert_int_equal(st.early_slice_ns, 1500000);
    assert_int_equal(st.batch_refills, 0);
    assert_int_equal(st.slice_deferrals, 0);
}

/* The early batch is its slice's batch for eq. (1): drained in 20.425 ms of the 21.5 it was sized for, it is the
 * sample 19 ms of S_ref = 20 (scaled back like a batch held back by an overrun), so r grows by a x 1 ms. Its drain
 * ends with 1.075 ms of its slice left: AP1-STA1's batch of the next frame goes early in turn. */
static void test_an_early_batch_is_its_slices_sample_scaled_back_to_the_reference_slice(void **state)
{
    struct sched_fixture *f = *state;
    enable_early_handover(f);
    ap1_drains_with_1_5_ms_left(f, 100);
    sched_dequeue_all(f->s, 20 * MS);
    lab_sta_acks(f->s, 1, 43, 38 * MS + 925000);
    assert_true(sched_dequeue_all(f->s, 38 * MS + 925000) > 0);
    assert_int_equal(sched_stats(f->s).early_slice_starts, 2);
    sched_dequeue_all(f->s, 40 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.early_ns[0], 0);
    assert_int_equal(rep.fr.early_ns[1], 1500000); /* the frame report says how early each slice began */
    assert_int_equal(rep.pr[1].drains, 1);
    assert_int_equal(rep.pr[1].v_ns, 20 * MS + 425000);
    assert_int_equal(rep.pr[1].r_pkts, 41);
    sched_dequeue_all(f->s, 80 * MS);
    rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.frame, 1);
    assert_int_equal(rep.fr.early_ns[0], 1075000); /* AP1-STA1's batch of frame 1 went in frame 0 */
}

/* A slice whose batch went early, in the slice before, ran even if the loop next comes after its end (a stall): it is
 * not skipped, and its pair's slice time counts it. */
static void test_a_slice_whose_batch_went_early_is_not_skipped_by_a_late_dequeue(void **state)
{
    struct sched_fixture *f = *state;
    enable_early_handover(f);
    assert_int_equal(ap1_drains_with_1_5_ms_left(f, 100), 43);
    sched_dequeue_all(f->s, 45 * MS); /* slice 1 ran 20-40 ms */
    assert_int_equal(sched_stats(f->s).slices_skipped, 0);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.skipped_slices, 0);
    assert_int_equal(rep.fr.early_ns[1], 1500000);
    assert_int_equal(rep.pr[1].s_ns, 20 * MS);
}

/* A drain that overran into the next pair's slice hands over through the deferral (adw_release_deferred), and
 * starts no slice early: the slice after it is the overrunning pair's own. */
static void test_no_early_start_after_a_drain_that_overran_its_slice(void **state)
{
    struct sched_fixture *f = *state;
    enable_early_handover(f);
    lab_queue_segments(f->s, 0, 1, 100, 0);
    lab_queue_segments(f->s, 1, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0); /* AP2's batch held back: AP1's drain is in the air */
    lab_sta_acks(f->s, 0, 40, 22 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 22 * MS), 36); /* r = 40 scaled to the 18 ms left */
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.slice_deferrals, 1);
    assert_int_equal(st.early_slice_starts, 0);
}

/* Under an A-MPDU queued for the next pair: it waits for its slice start, as a refill would not go. */
static void test_no_early_start_with_under_an_ampdu_queued_for_the_next_pair(void **state)
{
    struct sched_fixture *f = *state;
    enable_early_handover(f);
    assert_int_equal(ap1_drains_with_1_5_ms_left(f, 10), 0);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 10);
    assert_int_equal(sched_stats(f->s).early_slice_starts, 0);
}

/* An early batch only when the whole batch is queued: released underfilled, what arrives before its slice start
 * would wait for the pair's next frame. */
static void test_no_early_start_when_the_next_pairs_batch_would_be_underfilled(void **state)
{
    struct sched_fixture *f = *state;
    enable_early_handover(f);
    assert_int_equal(ap1_drains_with_1_5_ms_left(f, 30), 0); /* under the 43 of an early batch */
    lab_queue_segments(f->s, 1, 1 + 30 * SEG, 10, 19 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 40); /* at its slice start, with what came meanwhile */
    assert_int_equal(sched_stats(f->s).early_slice_starts, 0);
}

/* With time left for a refill but too little queued for one, the slice stays its pair's too: its packets may
 * still come (a cwnd-limited sender), and the next pair's batch waits for its slice start. */
static void test_no_early_start_with_time_left_for_a_refill_that_did_not_go(void **state)
{
    struct sched_fixture *f = *state;
    enable_early_handover(f);
    lab_queue_segments(f->s, 0, 1, 50, 0); /* 10 left after the batch of 40: no refill */
    lab_queue_segments(f->s, 1, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    lab_sta_acks(f->s, 0, 40, 10 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 10 * MS), 0);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 40);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.batch_refills, 0);
    assert_int_equal(st.early_slice_starts, 0);
}

/* With time left for a refill the slice stays its pair's: the refill goes, the next slice waits. */
static void test_a_refill_keeps_the_slice_for_its_pair(void **state)
{
    struct sched_fixture *f = *state;
    enable_early_handover(f);
    lab_queue_segments(f->s, 0, 1, 100, 0);
    lab_queue_segments(f->s, 1, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    lab_sta_acks(f->s, 0, 40, 10 * MS);
    unsigned n = sched_dequeue_all(f->s, 10 * MS);
    assert_int_equal(n, 20);
    sched_assert_out_to(n, 1);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.batch_refills, 1);
    assert_int_equal(st.early_slice_starts, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_a_drain_ending_early_in_its_slice_releases_a_batch_for_the_time_left),
        LAB_TEST(test_a_refilled_slice_is_one_drain_timed_from_the_first_release),
        LAB_TEST(test_a_refill_never_acknowledged_takes_the_close_time),
        LAB_TEST(test_one_refill_per_slice),
        LAB_TEST(test_no_refill_with_under_2_ms_of_the_slice_left),
        LAB_TEST(test_no_refill_for_a_drain_that_ends_in_another_pairs_slice),
        LAB_TEST(test_no_refill_without_backlog),
        LAB_TEST(test_no_refill_of_less_than_an_ampdu),
        LAB_TEST(test_no_refill_of_acks_to_an_uplink_sender),
        LAB_TEST(test_real_time_packets_waiting_for_the_drain_go_instead_of_a_refill),
        LAB_TEST(test_without_early_handover_the_next_slice_starts_on_the_clock),
        LAB_TEST(test_next_slice_starts_when_a_drain_ends_with_no_time_left_for_a_refill),
        LAB_TEST(test_an_early_batch_is_its_slices_sample_scaled_back_to_the_reference_slice),
        LAB_TEST(test_a_slice_whose_batch_went_early_is_not_skipped_by_a_late_dequeue),
        LAB_TEST(test_no_early_start_after_a_drain_that_overran_its_slice),
        LAB_TEST(test_no_early_start_with_under_an_ampdu_queued_for_the_next_pair),
        LAB_TEST(test_no_early_start_when_the_next_pairs_batch_would_be_underfilled),
        LAB_TEST(test_no_early_start_with_time_left_for_a_refill_that_did_not_go),
        LAB_TEST(test_a_refill_keeps_the_slice_for_its_pair),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
