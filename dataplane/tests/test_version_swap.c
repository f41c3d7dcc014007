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

#include "adwiser/sched.h"
#include "lab_config.h"
#include "sched_fixture.h"

#define MS 1000000ull

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_a_drain_of_the_frame_before_a_swap_does_not_hold_the_pairs_next_batch),
        LAB_TEST(test_a_kept_pairs_batch_is_rescaled_when_its_slice_length_changes),
        LAB_TEST(test_a_moved_stas_held_packets_follow_it_to_its_new_ap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
