/*
 * test_realtime.c — real-time packets at a slice start (004 §6.4, core/realtime_release.c) through the public API
 * on the 2AP-2STA lab: AP1-STA1 in slice 0, AP2-STA2 in slice 1, 20 ms each, frame 40 ms, time from 0. The
 * defaults of adwiser/config.h: voice waits at most half the slice (10 ms) for a conflicting drain, and a
 * batch to a conflicting pair goes 300 us after the voice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "adwiser/config.h"
#include "adwiser/sched.h"
#include "frame_builder.h"
#include "lab_config.h"
#include "sched_fixture.h"

#define US 1000ull
#define MS 1000000ull
#define GUARD (ADW_RT_GUARD_US_DEFAULT * US)

/* AP1-STA1's first batch (r_init = 40 of 100 queued) released at 0: its drain is in the air from then. */
static void ap1_batch_in_the_air_from_0(struct adw_sched *s)
{
    lab_queue_segments(s, 0, 1, 100, 0);
    assert_int_equal(sched_dequeue_all(s, 0), 40);
}

/* What the scheduler hands out at now is a batch of AP1's: at least one packet, all to AP1's port. */
static void assert_ap1_batch_goes_at(struct adw_sched *s, uint64_t now)
{
    unsigned n = sched_dequeue_all(s, now);
    assert_true(n > 0);
    sched_assert_out_to(n, 1);
}

/* voice-bulk's case: STA2 has only voice, so AP1-STA1 takes its slice (dynamic slicing); AP1's batch of slice 0
 * is still being acknowledged at 20 ms. The voice to AP2 (hidden from AP1) waits for that drain to end, then
 * AP1's next batch waits the guard, so the voice is on the air alone. */
static void test_voice_waits_for_conflicting_drain_then_batch_waits_guard(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.dynamic_slicing.enabled = true;
    sched_fixture_recreate(f, NULL);
    ap1_batch_in_the_air_from_0(f->s);
    struct adw_pkt v = lab_voice_pkt(1);
    assert_int_equal(sched_enqueue1(f->s, &v, 10 * MS), ADW_QUEUED);
    lab_sta_acks(f->s, 0, 20, 19 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0); /* AP1 still on the air: neither voice nor batch */
    assert_int_equal(adw_sched_next_event_ns(f->s, 20 * MS), 30 * MS); /* the hold's bound */
    lab_sta_acks(f->s, 0, 40, 22 * MS); /* AP1's drain ends */
    assert_int_equal(sched_dequeue_all(f->s, 22 * MS), 1);
    assert_ptr_equal(sched_out[0].cookie, v.cookie);
    assert_int_equal(sched_out[0].out_port, 2);
    assert_int_equal(adw_sched_next_event_ns(f->s, 22 * MS), 22 * MS + GUARD);
    assert_int_equal(sched_dequeue_all(f->s, 22 * MS + GUARD - 1), 0);
    assert_ap1_batch_goes_at(f->s, 22 * MS + GUARD);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.rt_holds, 1);
    assert_int_equal(st.rt_held_ns, 2 * MS);
    assert_int_equal(st.rt_hold_timeouts, 0);
    assert_int_equal(st.rt_batch_waits, 1);
    assert_int_equal(st.released_rt, 1);
}

/* A drain whose ACKs were lost never holds voice for long: it goes at half the slice, the batch a guard later. */
static void test_voice_goes_at_the_hold_bound_when_the_conflicting_drain_does_not_end(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.dynamic_slicing.enabled = true;
    sched_fixture_recreate(f, NULL);
    ap1_batch_in_the_air_from_0(f->s);
    struct adw_pkt v = lab_voice_pkt(1);
    sched_enqueue1(f->s, &v, 10 * MS);
    lab_sta_acks(f->s, 0, 20, 19 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 21 * MS), 0); /* the slice start handled late: the bound is still 30 ms */
    assert_int_equal(sched_dequeue_all(f->s, 30 * MS - 1), 0);
    assert_int_equal(sched_dequeue_all(f->s, 30 * MS), 1);
    assert_ptr_equal(sched_out[0].cookie, v.cookie);
    assert_int_equal(sched_dequeue_all(f->s, 30 * MS + GUARD - 1), 0);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.rt_hold_timeouts, 1);
    assert_int_equal(st.rt_held_ns, 10 * MS);
}

/* Voice that finds no conflicting drain open goes at once, between slice starts; a conflicting batch due within
 * the guard after it waits (here AP1's slice starting 100 us later). */
static void test_voice_goes_at_once_when_clear_and_a_conflicting_batch_waits_the_guard(void **state)
{
    struct sched_fixture *f = *state;
    sched_dequeue_all(f->s, 21 * MS);
    lab_queue_segments(f->s, 0, 1, 3, 22 * MS);
    struct adw_pkt v = lab_voice_pkt(1);
    uint64_t t = 40 * MS - 100 * US;
    assert_int_equal(sched_enqueue1(f->s, &v, t), ADW_QUEUED);
    assert_int_equal(sched_dequeue_all(f->s, t), 1);
    assert_ptr_equal(sched_out[0].cookie, v.cookie);
    assert_int_equal(sched_out[0].out_port, 2);
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 0);
    assert_int_equal(adw_sched_next_event_ns(f->s, 40 * MS), t + GUARD);
    assert_int_equal(sched_dequeue_all(f->s, t + GUARD), 3);
    sched_assert_out_to(3, 1);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.rt_holds, 0);
    assert_int_equal(st.rt_between_slices, 1);
    assert_int_equal(st.rt_batch_waits, 1);
}

/* Voice that arrives while a conflicting batch drains goes when that drain ends, not at the next slice start:
 * the AP has delivered its batch and idles until its next one. */
static void test_voice_goes_when_the_conflicting_drain_ends_between_slice_starts(void **state)
{
    struct sched_fixture *f = *state;
    ap1_batch_in_the_air_from_0(f->s);
    struct adw_pkt v = lab_voice_pkt(1);
    sched_enqueue1(f->s, &v, 5 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 5 * MS), 0);
    lab_sta_acks(f->s, 0, 40, 12 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 12 * MS), 1);
    assert_ptr_equal(sched_out[0].cookie, v.cookie);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.rt_between_slices, 1);
}

/* A pair's own voice holds nothing back: its AP sends AC_VO ahead of its data. */
static void test_batch_of_the_voice_pair_itself_goes_at_once_after_its_voice(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 1, 1, 5, 1 * MS);
    struct adw_pkt v = lab_voice_pkt(1);
    sched_enqueue1(f->s, &v, 2 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 6);
    assert_ptr_equal(sched_out[0].cookie, v.cookie);
    sched_assert_out_to(6, 2);
}

/* Voice that arrives during a hold goes with the held voice: the air is clear for it too. */
static void test_voice_arriving_during_a_hold_goes_with_the_held_voice(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.dynamic_slicing.enabled = true;
    sched_fixture_recreate(f, NULL);
    lab_queue_segments(f->s, 0, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    struct adw_pkt v1 = lab_voice_pkt(1), v2 = lab_voice_pkt(1);
    sched_enqueue1(f->s, &v1, 10 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
    sched_enqueue1(f->s, &v2, 21 * MS);
    lab_sta_acks(f->s, 0, 40, 22 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 22 * MS), 2);
    assert_ptr_equal(sched_out[0].cookie, v1.cookie);
    assert_ptr_equal(sched_out[1].cookie, v2.cookie);
}

/* Two voice packets released together (one pending since the previous slice, the next arriving during the hold)
 * are two frame exchanges at AP2: AP1's next batch waits a guard for each, not one for both. */
static void test_a_conflicting_batch_waits_one_guard_per_real_time_packet_released(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.dynamic_slicing.enabled = true;
    sched_fixture_recreate(f, NULL);
    ap1_batch_in_the_air_from_0(f->s);
    struct adw_pkt v1 = lab_voice_pkt(1), v2 = lab_voice_pkt(1);
    sched_enqueue1(f->s, &v1, 1 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
    sched_enqueue1(f->s, &v2, 21 * MS);
    lab_sta_acks(f->s, 0, 40, 22 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 22 * MS), 2);
    sched_assert_out_to(2, 2);
    assert_int_equal(adw_sched_next_event_ns(f->s, 22 * MS), 22 * MS + 2 * GUARD);
    assert_int_equal(sched_dequeue_all(f->s, 22 * MS + 2 * GUARD - 1), 0);
    assert_ap1_batch_goes_at(f->s, 22 * MS + 2 * GUARD);
}

/* hold_max_fraction = 0: voice goes at the slice start even into a conflicting drain (the paper's order alone);
 * guard_us = 0: the conflicting batch goes right behind the voice. */
static void test_zero_hold_and_guard_release_at_the_slice_start_without_waiting(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.realtime.hold_max_fraction = 0;
    f->cfg->policies.realtime.guard_us = 0;
    sched_fixture_recreate(f, NULL);
    ap1_batch_in_the_air_from_0(f->s);
    struct adw_pkt v = lab_voice_pkt(1);
    sched_enqueue1(f->s, &v, 10 * MS); /* AP1's drain open: waits for the next slice start */
    assert_int_equal(sched_dequeue_all(f->s, 10 * MS), 0);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 1); /* AP2's slice: goes, AP1's drain still open */
    assert_ptr_equal(sched_out[0].cookie, v.cookie);
    lab_sta_acks(f->s, 0, 40, 30 * MS);
    struct adw_pkt v2 = lab_voice_pkt(1);
    sched_enqueue1(f->s, &v2, 40 * MS - 100 * US);
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS - 100 * US), 1);
    assert_ap1_batch_goes_at(f->s, 40 * MS); /* AP1's batch at its slice start, no guard */
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.rt_holds, 0);
    assert_int_equal(st.rt_batch_waits, 0);
}

/* AP1's batch of slice 0 is never acknowledged (its ACKs lost), so voice arriving at 35 ms waits for that drain. At
 * 40 ms, AP1's next slice start closes it as stale: nothing holds the voice any more, and it goes at once, AP1's
 * new batch a guard later. It was held to the hold's bound (50 ms) and AP1's batch with it, half of AP1's slice
 * idle behind a drain already closed; the backend, told the next event was at 50 ms, slept to it. */
static void test_voice_held_for_a_drain_its_pairs_slice_start_closes_goes_at_that_start(void **state)
{
    struct sched_fixture *f = *state;
    ap1_batch_in_the_air_from_0(f->s);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
    struct adw_pkt v = lab_voice_pkt(1);
    assert_int_equal(sched_enqueue1(f->s, &v, 35 * MS), ADW_QUEUED);
    assert_int_equal(sched_dequeue_all(f->s, 35 * MS), 0); /* AP1's drain open */
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 1);
    assert_ptr_equal(sched_out[0].cookie, v.cookie);
    assert_int_equal(sched_out[0].out_port, 2);
    assert_int_equal(adw_sched_next_event_ns(f->s, 40 * MS), 40 * MS + GUARD);
    assert_ap1_batch_goes_at(f->s, 40 * MS + GUARD);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.rt_hold_timeouts, 0);
    assert_int_equal(st.rt_held_ns, 0);
}

static void test_out_of_range_hold_and_guard_are_refused_by_name(void **state)
{
    (void)state;
    char err[256];
    struct adw_config *c = lab_config_2ap_2sta(20);
    c->policies.realtime.hold_max_fraction = 1.5;
    assert_int_not_equal(adw_config_check(c, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "policies.realtime.hold_max_fraction"));
    c->policies.realtime.hold_max_fraction = 0.25;
    c->policies.realtime.guard_us = ADW_RT_GUARD_US_MAX + 1;
    assert_int_not_equal(adw_config_check(c, err, sizeof(err)), 0);
    assert_non_null(strstr(err, "policies.realtime.guard_us"));
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_voice_waits_for_conflicting_drain_then_batch_waits_guard),
        LAB_TEST(test_voice_goes_at_the_hold_bound_when_the_conflicting_drain_does_not_end),
        LAB_TEST(test_voice_goes_at_once_when_clear_and_a_conflicting_batch_waits_the_guard),
        LAB_TEST(test_voice_goes_when_the_conflicting_drain_ends_between_slice_starts),
        LAB_TEST(test_batch_of_the_voice_pair_itself_goes_at_once_after_its_voice),
        LAB_TEST(test_voice_arriving_during_a_hold_goes_with_the_held_voice),
        LAB_TEST(test_a_conflicting_batch_waits_one_guard_per_real_time_packet_released),
        LAB_TEST(test_zero_hold_and_guard_release_at_the_slice_start_without_waiting),
        LAB_TEST(test_voice_held_for_a_drain_its_pairs_slice_start_closes_goes_at_that_start),
        cmocka_unit_test(test_out_of_range_hold_and_guard_are_refused_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
