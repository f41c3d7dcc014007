/*
 * test_version_swap.c — what a new configuration version does to the state of the pairs it keeps, at the frame
 * boundary where it is swapped in (the 2AP-2STA lab of sched_fixture.h: AP1-STA1 in slice 0, AP2-STA2 in slice 1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "adwiser/config.h"
#include "adwiser/sched.h"
#include "lab_config.h"
#include "sched_fixture.h"

#define MS 1000000ull
#define GUARD (ADW_RT_GUARD_US_DEFAULT * 1000ull)

/* The lab as version 2 with slice 0 of s0_ms and slice 1 of s1_ms; the caller frees it. */
static struct adw_config *lab_v2(unsigned s0_ms, unsigned s1_ms)
{
    struct adw_config *c = lab_config_2ap_2sta(s0_ms);
    c->version = 2;
    c->slices[1].duration_ns = (uint64_t)s1_ms * MS;
    return c;
}

/* STA1's batch of frame 3 (120 ms) is acknowledged only in part, so its drain is still open at its next slice start
 * (160 ms), where version 2 with a 50 ms slice 1 comes in. The slice before 160 ms was version 1's 20 ms slice 1,
 * not version 2's: the drain went a whole frame before, is closed as stale, and STA1's batch goes at its start. */
static void test_a_drain_of_the_frame_before_a_swap_does_not_hold_the_pairs_next_batch(void **state)
{
    struct sched_fixture *f = *state;
    for (uint64_t t = 0; t < 120 * MS; t += 20 * MS)
        sched_dequeue_all(f->s, t);
    lab_enqueue_data(f->s, 0, 1, 400, 119 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 120 * MS), 40);
    lab_sta_acks(f->s, 0, 20, 125 * MS);
    struct adw_config *c2 = lab_v2(20, 50);
    assert_int_equal(adw_sched_set_config(f->s, c2, 126 * MS, NULL, 0), 0);
    free(c2);
    sched_dequeue_all(f->s, 140 * MS);
    /* V = 5 ms, the last ACK heard (release.c, silent_drain_v): r = 40 + (20 - 5) */
    assert_int_equal(sched_dequeue_all(f->s, 160 * MS), 55);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_int_equal(sched_stats(f->s).slice_deferrals, 0);
}

/* r is the batch of the pair's reference slice (its first), and r -> beta S_i (004 §5, eq. (1)): when a version
 * changes that slice's length the pair keeps its drain rate, so its batch is r scaled to the new length, as a
 * batch is for a slice of another length (adw_batch_for). STA1 drains 400 packets in 99 ms of a 100 ms slice
 * (r = 400 + 1); in 20 ms slices its batch is 401 x 20 / 100 = 80, not 401 packets for a 20 ms slice. */
static void test_a_kept_pairs_batch_is_rescaled_when_its_slice_length_changes(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->slices[0].duration_ns = f->cfg->slices[1].duration_ns = 100 * MS;
    f->cfg->policies.ts_abr_qd.r_init_pkts = 400;
    sched_fixture_recreate(f, NULL);
    lab_queue_segments(f->s, 0, 1, 1000, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 400);
    lab_sta_acks(f->s, 0, 400, 99 * MS);
    struct adw_config *c2 = lab_v2(20, 20);
    assert_int_equal(adw_sched_set_config(f->s, c2, 100 * MS, NULL, 0), 0);
    free(c2);
    sched_dequeue_all(f->s, 100 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 200 * MS), 80);
    assert_int_equal(adw_sched_active_version(f->s), 2);
}

/* A STA that roamed: version 2 has STA2 under AP1, so its pair ap2/sta2 is gone and ap1/sta2 is new. The packets
 * held for it at the swap are addressed to its MAC, which now answers at AP1 only; handed to AP2 (as a removed
 * pair's are), they were sent to an AP the STA has left. They stay its packets: queued for ap1/sta2 and released
 * in its slice, to AP1's port. */
static void test_a_moved_stas_held_packets_follow_it_to_its_new_ap(void **state)
{
    struct sched_fixture *f = *state;
    sched_dequeue_all(f->s, 0);
    struct adw_config *c2 = lab_v2(20, 20);
    c2->stas[1].ap = 0;
    assert_int_equal(adw_sched_set_config(f->s, c2, 2 * MS, NULL, 0), 0);
    free(c2);
    assert_int_equal(lab_enqueue_data(f->s, 1, 1, 3, 25 * MS), 3); /* after STA2's slice start: held to the swap */
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 0);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_int_equal(sched_dequeue_all(f->s, 60 * MS), 3);
    sched_assert_out_to(3, 1);
    assert_int_equal(sched_stats(f->s).drops_config, 0);
}

/* The lab with policies.ts_abr_qd.early_handover on (adw_start_next_slice_early): STA2's batch of 40 (frame 0's
 * slice 1) drains with 1.5 ms of its slice left and 60 segments still queued, so STA1's batch of frame 1 goes early,
 * 43 packets for the 21.5 ms to the end of its slice. Then version 2 is staged, before the frame boundary (40 ms). */
static void sta1_goes_early_then_version_2_is_staged(struct sched_fixture *f, struct adw_config *c2)
{
    f->cfg->policies.ts_abr_qd.early_handover = true;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    assert_int_equal(sched_dequeue_all(f->s, 0), 0);
    lab_queue_segments(f->s, 1, 1, 100, 1 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 40);
    lab_queue_segments(f->s, 0, 1, 200, 21 * MS);
    lab_sta_acks(f->s, 1, 40, 38 * MS + MS / 2);
    unsigned n = sched_dequeue_all(f->s, 38 * MS + MS / 2);
    assert_int_equal(n, 43);
    sched_assert_out_to(n, 1);
    assert_int_equal(sched_stats(f->s).early_slice_starts, 1);
    c2->policies.ts_abr_qd.early_handover = true;
    assert_int_equal(adw_sched_set_config(f->s, c2, 39 * MS, NULL, 0), 0);
    free(c2);
}

/* Version 2 with the slices swapped: STA2 in slice 0, STA1 in slice 1. */
static struct adw_config *lab_v2_swapped_slices(void)
{
    struct adw_config *c = lab_v2(20, 20);
    c->slices[0].pairs[0] = 1;
    c->slices[1].pairs[0] = 0;
    return c;
}

/* STA1's batch that went early under version 1 is on the air at the boundary where version 2 gives slice 0 to STA2,
 * whose pair conflicts with it: STA2's batch waits for that drain (deferral.c), as for any conflicting drain that
 * overran into its slice, and goes when STA1's ACKs end it, to AP2 only. STA1's next batch goes at its own slice. */
static void test_an_early_batch_staged_over_holds_back_the_new_slice_0s_conflicting_pair(void **state)
{
    struct sched_fixture *f = *state;
    sta1_goes_early_then_version_2_is_staged(f, lab_v2_swapped_slices());
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 0);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_int_equal(sched_stats(f->s).slice_deferrals, 1);
    lab_sta_acks(f->s, 0, 43, 45 * MS);
    unsigned n = sched_dequeue_all(f->s, 45 * MS);
    assert_true(n > 0);
    sched_assert_out_to(n, 2);
    assert_int_equal(sched_stats(f->s).early_slice_starts, 1); /* STA1's drain ended outside its slice */
    lab_sta_acks(f->s, 1, 40 + n, 60 * MS); /* STA2's drains end at the boundary: none holds STA1 back */
    n = sched_dequeue_all(f->s, 60 * MS);
    assert_true(n > 0);
    sched_assert_out_to(n, 1);
}

/* The early batch is accounted where it went: its 43 packets in frame 0 (version 1), where they were released; its
 * drain (6.5 ms) in frame 1, where it ended. Frame 1 runs version 2, whose slice 0 is STA2's, and STA2's batch went
 * 5 ms after that slice began, not early: the frame report says slice 0 began on time. STA1 ran its slice 1 only. */
static void test_an_early_batch_staged_over_is_reported_in_the_frames_it_went_and_drained(void **state)
{
    struct sched_fixture *f = *state;
    sta1_goes_early_then_version_2_is_staged(f, lab_v2_swapped_slices());
    sched_dequeue_all(f->s, 40 * MS);
    lab_sta_acks(f->s, 0, 43, 45 * MS);
    lab_sta_acks(f->s, 1, 40 + sched_dequeue_all(f->s, 45 * MS), 60 * MS); /* STA2's deferred batch drains */
    sched_dequeue_all(f->s, 60 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.frame, 0);
    assert_int_equal(rep.fr.version, 1);
    assert_int_equal(rep.pr[0].released_pkts, 43);
    assert_int_equal(rep.pr[0].drains, 0);
    sched_dequeue_all(f->s, 80 * MS);
    rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.frame, 1);
    assert_int_equal(rep.fr.version, 2);
    assert_int_equal(rep.fr.early_ns[0], 0);
    assert_int_equal(rep.fr.early_ns[1], 0);
    assert_int_equal(rep.pr[0].drains, 1);
    assert_int_equal(rep.pr[0].v_ns, 6 * MS + MS / 2);
    assert_int_equal(rep.pr[0].s_ns, 20 * MS);
    assert_int_equal(rep.pr[1].s_ns, 20 * MS);
}

/* A version that keeps STA1 in slice 0: its batch went early for that slice, and it is not released again at the
 * slice start; the frame report of the new version's frame says how early it went. */
static void test_an_early_batch_of_a_pair_kept_in_slice_0_is_its_batch_under_the_new_version(void **state)
{
    struct sched_fixture *f = *state;
    sta1_goes_early_then_version_2_is_staged(f, lab_v2(20, 30));
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 0);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    sched_dequeue_all(f->s, 60 * MS);
    sched_next_frame(f->s);
    sched_dequeue_all(f->s, 90 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.version, 2);
    assert_int_equal(rep.fr.early_ns[0], 1500000);
    assert_int_equal(rep.pr[0].s_ns, 20 * MS);
}

/* Version 3 of the lab without AP2 and STA2: AP1-STA1 alone in one 20 ms slice. */
static struct adw_config *lab_v3_without_ap2(void)
{
    struct adw_config *c = lab_v2(20, 20);
    c->version = 3;
    c->n_aps = 1, c->n_stas = 1, c->n_slices = 1, c->n_conflicts = 0;
    return c;
}

/* A pair's cumulative counters (drops_tail, drops_other, dup_acks, retx_pkts) start from zero with its state: a pair
 * that one version removes and a later one adds back counts again from the swap that adds it, and its reports say
 * since when, so a reader of the counters (Prometheus, by their created time) tells that restart from a count that
 * went on. Version 3 drops ap2/sta2 at 40 ms; version 4 adds it back at the boundary of 60 ms, which the loop comes
 * to 1 ms late. The pair kept by every version counts on from the scheduler's creation (0). */
static void test_a_readded_pairs_counters_are_reported_since_the_swap_that_added_it_back(void **state)
{
    struct sched_fixture *f = *state;
    sched_dequeue_all(f->s, 0);
    struct adw_config *c3 = lab_v3_without_ap2();
    assert_int_equal(adw_sched_set_config(f->s, c3, 2 * MS, NULL, 0), 0);
    free(c3);
    sched_dequeue_all(f->s, 40 * MS);
    assert_int_equal(adw_sched_active_version(f->s), 3);
    struct adw_config *c4 = lab_v2(20, 20);
    c4->version = 4;
    assert_int_equal(adw_sched_set_config(f->s, c4, 45 * MS, NULL, 0), 0);
    free(c4);
    sched_dequeue_all(f->s, 61 * MS);
    assert_int_equal(adw_sched_active_version(f->s), 4);
    sched_dequeue_all(f->s, 101 * MS);
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    do
        assert_int_equal(adw_sched_poll_frame(f->s, &fr, pr, 2), 1);
    while (fr.version != 4);
    assert_int_equal(fr.n_pairs, 2);
    assert_string_equal(pr[1].name, "ap2/sta2");
    assert_int_equal(pr[1].counters_since_ns, 61 * MS);
    assert_string_equal(pr[0].name, "ap1/sta1");
    assert_int_equal(pr[0].counters_since_ns, 0);
}

/* STA2's batch of frame 0 (slice 1, 20 ms) is half acknowledged at 25 ms: AP2 still sends its last 20 segments when
 * version 2, staged at 26 ms, comes in at the frame boundary (40 ms) without STA2's pair. */
static void sta2_drains_while_version_2_is_staged(struct sched_fixture *f, struct adw_config *c2)
{
    assert_int_equal(sched_dequeue_all(f->s, 0), 0);
    lab_queue_segments(f->s, 1, 1, 40, 1 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 40);
    lab_sta_acks(f->s, 1, 20, 25 * MS);
    assert_int_equal(adw_sched_set_config(f->s, c2, 26 * MS, NULL, 0), 0);
    free(c2);
}

/* sta2_drains_while_version_2_is_staged, and STA1's queue waits for slice 0 of version 2. */
static void sta2_drains_into_version_2(struct sched_fixture *f, struct adw_config *c2)
{
    sta2_drains_while_version_2_is_staged(f, c2);
    lab_queue_segments(f->s, 0, 1, 100, 30 * MS);
}

/* Version 2's batches to AP1 (of `pairs` pairs) go at 65 ms, not before: STA2's drain, of which nothing more is
 * heard (its pair is gone), counts as over a frame (40 ms) after its last ACK, the bound of any conflicting drain
 * (deferral.c). Out of AP1's port only. */
static void ap1_waits_for_sta2s_drain_to_65_ms(struct sched_fixture *f, unsigned pairs)
{
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 0);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_int_equal(sched_stats(f->s).slice_deferrals, pairs);
    assert_int_equal(sched_dequeue_all(f->s, 64 * MS), 0);
    assert_int_equal(sched_stats(f->s).slice_deferrals_expired, 0);
    unsigned n = sched_dequeue_all(f->s, 65 * MS);
    assert_true(n >= pairs);
    sched_assert_out_to(n, 1);
}

/* Version 2 without STA2's pair: AP2 stays, with no pair; one 40 ms slice, STA1's. */
static struct adw_config *lab_v2_without_sta2(void)
{
    struct adw_config *c = lab_v2(40, 40);
    c->n_stas = 1;
    c->n_slices = 1;
    c->n_conflicts = 0;
    return c;
}

/* A version that removes a pair whose batch is still on the air (AP2 sending STA2's segments) does not take that
 * transmission off the air: STA1's batch, which conflicted with it under version 1, waits for it, or AP1 and AP2,
 * hidden from each other, send at once (SPEC §3.1, 004 §5: time-slicing exists to keep them apart). */
static void test_a_removed_pairs_drain_still_on_the_air_holds_back_its_conflicting_pairs(void **state)
{
    struct sched_fixture *f = *state;
    sta2_drains_into_version_2(f, lab_v2_without_sta2());
    ap1_waits_for_sta2s_drain_to_65_ms(f, 1);
}

/* STA2's batch of frame 0 (40 segments at 20 ms) is acknowledged whole at 25 ms, its drain over; 30 more segments
 * arrive after it (30 ms) and are held for its next slice when version 2 without STA2's pair, staged at 31 ms, comes
 * in at 40 ms. AP2 stays: the 30 go to it at the swap, counted (released_config), and AP2 sends them from then on as
 * it sends a batch. STA1's batch, which conflicted with STA2 under version 1, waits for them as for a removed pair's
 * drain still on the air (above): AP1 and AP2, hidden from each other, would otherwise send at once right at the
 * frame boundary, what time-slicing exists to prevent (SPEC §3.1, 004 §5). Nothing is heard of them any more (STA2
 * is no pair's), so they count as over a frame after they went (80 ms), the end of STA1's one 40 ms slice: that
 * batch is skipped, and STA1's next one goes at 80 ms, to AP1. */
static void test_a_removed_pairs_held_packets_hold_back_its_conflicting_pairs(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(sched_dequeue_all(f->s, 0), 0);
    lab_queue_segments(f->s, 1, 1, 40, 1 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 40);
    lab_sta_acks(f->s, 1, 40, 25 * MS);
    lab_queue_segments(f->s, 1, 1 + 40 * 1448, 30, 30 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 30 * MS), 0);
    struct adw_config *c2 = lab_v2_without_sta2();
    assert_int_equal(adw_sched_set_config(f->s, c2, 31 * MS, NULL, 0), 0);
    free(c2);
    lab_queue_segments(f->s, 0, 1, 100, 32 * MS);
    unsigned n = sched_dequeue_all(f->s, 40 * MS);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_int_equal(n, 30);
    sched_assert_out_to(n, 2);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.released_config, 30);
    assert_int_equal(st.drops_config, 0);
    assert_int_equal(st.slice_deferrals, 1);
    assert_int_equal(adw_sched_next_event_ns(f->s, 40 * MS), 80 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 80 * MS - 1), 0);
    n = sched_dequeue_all(f->s, 80 * MS);
    assert_true(n > 0);
    sched_assert_out_to(n, 1);
    assert_int_equal(sched_stats(f->s).slice_deferrals_expired, 1);
}

/* STA2's voice packet (30 ms) is held for STA1's batch of frame 0, still being acknowledged (004 §6.4,
 * realtime_release.c), when version 2 without STA2's pair comes in at 40 ms: AP2 stays, so the voice goes to it at the
 * swap, a removed pair's held packet, as it would have gone at STA1's slice start. STA1's batch, which conflicted with
 * STA2 under version 1, waits the real-time guard after it, as after any conflicting voice released (one frame
 * exchange at AP2), so the voice is on the air alone; sent at once, AP1's batch collided with it at STA2, hidden from
 * AP1. The voice leaves nothing a drain waits for (no TCP), so the guard is all that holds AP1 back. */
static void test_a_removed_pairs_held_voice_holds_back_conflicting_batches_by_the_guard(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 100, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 40);
    lab_sta_acks(f->s, 0, 20, 5 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0); /* STA2's slice: nothing queued */
    struct adw_pkt v = lab_voice_pkt(1);
    assert_int_equal(sched_enqueue1(f->s, &v, 30 * MS), ADW_QUEUED);
    assert_int_equal(sched_dequeue_all(f->s, 30 * MS), 0); /* STA1's drain still open */
    struct adw_config *c2 = lab_v2_without_sta2();
    assert_int_equal(adw_sched_set_config(f->s, c2, 31 * MS, NULL, 0), 0);
    free(c2);
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 1);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_ptr_equal(sched_out[0].cookie, v.cookie);
    assert_int_equal(sched_out[0].out_port, 2);
    assert_int_equal(sched_stats(f->s).released_config, 1);
    assert_int_equal(adw_sched_next_event_ns(f->s, 40 * MS), 40 * MS + GUARD);
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS + GUARD - 1), 0);
    unsigned n = sched_dequeue_all(f->s, 40 * MS + GUARD);
    assert_true(n > 0);
    sched_assert_out_to(n, 1);
    assert_int_equal(sched_stats(f->s).rt_batch_waits, 1);
}

/* Version 2 with STA2 moved to AP1 (pair ap1/sta2), sharing STA1's one 40 ms slice, no conflicts listed: STA2's
 * batch released to AP2 under version 1 is still on AP2's air, and AP1's pairs conflicted with it there, STA1's
 * and now STA2's own at AP1: both wait for it. */
static void test_a_moved_stas_drain_at_its_old_ap_holds_back_the_pairs_of_the_aps_it_conflicted_with(void **state)
{
    struct sched_fixture *f = *state;
    struct adw_config *c2 = lab_v2(40, 40);
    c2->stas[1].ap = 0;
    c2->n_slices = 1;
    c2->slices[0].n_pairs = 2;
    c2->slices[0].pairs[1] = 1;
    c2->n_conflicts = 0;
    sta2_drains_into_version_2(f, c2);
    lab_queue_segments(f->s, 1, 100000, 50, 30 * MS); /* carried to ap1/sta2 at the swap */
    ap1_waits_for_sta2s_drain_to_65_ms(f, 2);
}

/* The held voice packet v, looked at from now on: the backend is woken for it at `at`, not before, and it goes then,
 * alone, to AP1. */
static void voice_goes_to_ap1_at(struct sched_fixture *f, const struct adw_pkt *v, uint64_t now, uint64_t at)
{
    assert_int_equal(adw_sched_next_event_ns(f->s, now), at);
    assert_int_equal(sched_dequeue_all(f->s, at - 1), 0);
    assert_int_equal(sched_dequeue_all(f->s, at), 1);
    assert_ptr_equal(sched_out[0].cookie, v->cookie);
    assert_int_equal(sched_out[0].out_port, 1);
}

/* STA1's voice is released outside the slices when no conflicting drain is on the air (004 §6.4, realtime_release.c):
 * arriving at 45 ms while AP2 still sends the batch of STA2's removed pair, it waits for that drain as STA1's batches
 * do, until it counts as over a frame after its last ACK (65 ms), and the backend is woken for it then. Released at
 * once, AP1 sent it into AP2's transmission, hidden from each other. */
static void test_a_removed_pairs_drain_still_on_the_air_holds_back_its_conflicting_pairs_voice(void **state)
{
    struct sched_fixture *f = *state;
    sta2_drains_while_version_2_is_staged(f, lab_v2_without_sta2());
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 0);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    struct adw_pkt v = lab_voice_pkt(0);
    assert_int_equal(sched_enqueue1(f->s, &v, 45 * MS), ADW_QUEUED);
    assert_int_equal(sched_dequeue_all(f->s, 45 * MS), 0);
    voice_goes_to_ap1_at(f, &v, 45 * MS, 65 * MS);
}

/* STA1's voice held under version 1 for STA2's drain (arrived at 30 ms) is still held at version 2's first slice start
 * (40 ms), where STA2's pair is gone but its batch still on AP2's air: it goes at the hold's bound (half of STA1's
 * 40 ms slice, 60 ms), before the drain counts as over (65 ms), as for a conflicting drain of the version in force. */
static void test_voice_held_for_a_removed_pairs_drain_stays_held_at_the_new_versions_slice_start(void **state)
{
    struct sched_fixture *f = *state;
    sta2_drains_while_version_2_is_staged(f, lab_v2_without_sta2());
    struct adw_pkt v = lab_voice_pkt(0);
    assert_int_equal(sched_enqueue1(f->s, &v, 30 * MS), ADW_QUEUED);
    assert_int_equal(sched_dequeue_all(f->s, 30 * MS), 0); /* STA2's drain open under version 1 */
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 0);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    voice_goes_to_ap1_at(f, &v, 40 * MS, 60 * MS);
}

/* STA1's batch went early under version 1 for frame 1's slice 0 (38.5 ms) and is on AP1's air when version 2, without
 * STA1's pair (one 40 ms slice, STA2's), comes in at 40 ms: STA2's batch waits for it, as it does for STA1's early
 * batch under a version that keeps STA1 (above). STA1's 157 segments still held go to AP1 at the swap, into that
 * drain (test_a_removed_pairs_held_packets_hold_back_its_conflicting_pairs), so it counts as over a frame after
 * that release (80 ms), not after the early batch's (78.5 ms): STA2's slice is skipped, its batch goes at 80 ms. */
static void test_an_early_batch_of_a_removed_pair_holds_back_the_new_slice_0s_conflicting_pair(void **state)
{
    struct sched_fixture *f = *state;
    struct adw_config *c2 = lab_v2(40, 40);
    c2->stas[0] = c2->stas[1];
    c2->n_stas = 1;
    c2->n_slices = 1;
    c2->slices[0].pairs[0] = 0;
    c2->n_conflicts = 0;
    sta1_goes_early_then_version_2_is_staged(f, c2);
    sched_assert_out_to(sched_dequeue_all(f->s, 40 * MS), 1); /* STA1's held packets: a removed pair's, to its AP */
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_int_equal(sched_stats(f->s).slice_deferrals, 1);
    assert_int_equal(sched_stats(f->s).released_config, 157);
    assert_int_equal(sched_dequeue_all(f->s, 80 * MS - 1), 0);
    unsigned n = sched_dequeue_all(f->s, 80 * MS);
    assert_true(n > 0);
    sched_assert_out_to(n, 2);
    assert_int_equal(sched_stats(f->s).slice_deferrals_expired, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_a_drain_of_the_frame_before_a_swap_does_not_hold_the_pairs_next_batch),
        LAB_TEST(test_a_kept_pairs_batch_is_rescaled_when_its_slice_length_changes),
        LAB_TEST(test_a_moved_stas_held_packets_follow_it_to_its_new_ap),
        LAB_TEST(test_an_early_batch_staged_over_holds_back_the_new_slice_0s_conflicting_pair),
        LAB_TEST(test_an_early_batch_staged_over_is_reported_in_the_frames_it_went_and_drained),
        LAB_TEST(test_an_early_batch_of_a_pair_kept_in_slice_0_is_its_batch_under_the_new_version),
        LAB_TEST(test_a_readded_pairs_counters_are_reported_since_the_swap_that_added_it_back),
        LAB_TEST(test_a_removed_pairs_drain_still_on_the_air_holds_back_its_conflicting_pairs),
        LAB_TEST(test_a_moved_stas_drain_at_its_old_ap_holds_back_the_pairs_of_the_aps_it_conflicted_with),
        LAB_TEST(test_a_removed_pairs_held_packets_hold_back_its_conflicting_pairs),
        LAB_TEST(test_a_removed_pairs_held_voice_holds_back_conflicting_batches_by_the_guard),
        LAB_TEST(test_an_early_batch_of_a_removed_pair_holds_back_the_new_slice_0s_conflicting_pair),
        LAB_TEST(test_a_removed_pairs_drain_still_on_the_air_holds_back_its_conflicting_pairs_voice),
        LAB_TEST(test_voice_held_for_a_removed_pairs_drain_stays_held_at_the_new_versions_slice_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
