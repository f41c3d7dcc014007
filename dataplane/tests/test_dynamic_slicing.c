/*
 * test_dynamic_slicing.c — a backlogged pair that takes the idle pair's slices (004 §6.3, SPEC §3.3) on the
 * 2AP-2STA lab: AP1-STA1 in slice 0, AP2-STA2 in slice 1, 20 ms each, frame 40 ms, time starting at 0. With
 * dynamic slicing on and STA2 idle, STA1 gets every slice, back to back: its batch of the slice before is often
 * still draining when the next slice starts, and that drain must be measured, not cut at the slice length.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "adwiser/sched.h"
#include "sched_fixture.h"

#define MS 1000000ull
#define SEG 1448u

static void enqueue_data(struct adw_sched *s, unsigned sta, unsigned n, uint64_t now)
{
    for (unsigned i = 0; i < n; i++) {
        struct adw_pkt p = lab_down_pkt(sta, 1 + i * SEG, SEG);
        enum adw_verdict v;
        adw_sched_enqueue_burst(s, &p, &v, 1, now);
        assert_int_equal(v, ADW_QUEUED);
    }
}

/* STA1 acknowledges its first `segs` segments at `now`. */
static void sta1_acks(struct adw_sched *s, unsigned segs, uint64_t now)
{
    struct adw_pkt a = lab_up_ack_pkt(0, 1 + segs * SEG);
    enum adw_verdict v;
    adw_sched_enqueue_burst(s, &a, &v, 1, now);
    assert_int_equal(v, ADW_PASS);
}

static void enable_dynamic_slicing(struct sched_fixture *f)
{
    f->cfg->policies.dynamic_slicing.enabled = true;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
}

/* STA2 idle: STA1 takes slice 1 while its batch of slice 0 is still being acknowledged. The taken slice's batch
 * waits for that drain; the drain ends at 22 ms, V = 22 ms (not the 20 ms slice length), r = 40 + (20 - 22) = 38,
 * and the batch goes then, scaled to the 18 ms left of the slice: 38 x 18 / 20 = 34. */
static void test_taken_slice_waits_for_the_takers_own_drain_of_the_slice_before(void **state)
{
    struct sched_fixture *f = *state;
    enable_dynamic_slicing(f);
    enqueue_data(f->s, 0, 300, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 40);
    sta1_acks(f->s, 20, 15 * MS); /* half the batch acknowledged: the rest is still in the air */
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
    sta1_acks(f->s, 40, 22 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 22 * MS), 34);
    sched_assert_out_to(34, 1);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.reassignments, 1);
    assert_int_equal(st.slice_deferrals, 1);
    assert_int_equal(st.drains_completed, 1);
    assert_int_equal(st.drains_superseded, 0);
    sched_dequeue_all(f->s, 40 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.given_to[1], 0);
    assert_int_equal(rep.pr[0].v_ns, 22 * MS);
}

/* STA2 idle for a second: STA1 holds every slice, back to back, and its AP serves 1.6 packets/ms (32 in a 20 ms
 * slice), acknowledged as they arrive. Each batch waits for the drain of the one before, so V is measured and
 * r settles where a batch drains in a slice; the AP's queue stays within a batch. Drains cut at the slice length
 * (V = S) left r at 40, and the AP's queue grew by 8 packets a slice (400 in the second). */
static void test_taker_r_settles_where_its_batch_drains_in_a_slice(void **state)
{
    struct sched_fixture *f = *state;
    enable_dynamic_slicing(f);
    enqueue_data(f->s, 0, 2000, 0);
    unsigned released = 0, max_backlog = 0;
    double delivered = 0;
    for (uint64_t ms = 0; ms < 1000; ms++) {
        if (ms > 0 && delivered < released) {
            delivered = delivered + 1.6 < released ? delivered + 1.6 : released;
            sta1_acks(f->s, (unsigned)delivered, ms * MS);
        }
        released += sched_dequeue_all(f->s, ms * MS);
        if (released - (unsigned)delivered > max_backlog)
            max_backlog = released - (unsigned)delivered;
    }
    assert_true(max_backlog <= 48);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_superseded, 0);
    assert_true(st.drains_completed > 40);
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    uint32_t r_last = 0;
    while (adw_sched_poll_frame(f->s, &fr, pr, 2) == 1)
        r_last = pr[0].r_pkts;
    assert_in_range(r_last, 26, 38);
}

/* STA1 idle: STA2 takes slice 0 and its batch takes all it had (30 < r). STA1's data arrives, and at 20 ms STA2's
 * own slice starts with STA2 idle and its batch half acknowledged, still on the air. Its drain must stay open: closed
 * as stale, it was the only record that AP2 still sends, slice 1 went to STA1 (conflicting with STA2) and STA1's
 * batch went to AP1 at once, into AP2's transmissions, the collision slicing exists to prevent. */
static void test_an_idle_pairs_drain_still_on_the_air_holds_back_the_pair_taking_its_slice(void **state)
{
    struct sched_fixture *f = *state;
    enable_dynamic_slicing(f);
    enqueue_data(f->s, 1, 30, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 30);   /* STA2 takes slice 0 */
    assert_int_equal(sched_out[0].out_port, 2);
    enqueue_data(f->s, 0, 100, 5 * MS);
    struct adw_pkt a = lab_up_ack_pkt(1, 1 + 15 * SEG);  /* STA2 acknowledges half of its batch */
    enum adw_verdict v;
    adw_sched_enqueue_burst(f->s, &a, &v, 1, 15 * MS);
    unsigned n = sched_dequeue_all(f->s, 20 * MS), to_ap1 = 0;
    for (unsigned i = 0; i < n; i++)
        to_ap1 += sched_out[i].out_port == 1;
    assert_int_equal(to_ap1, 0);
    struct adw_pkt rest = lab_up_ack_pkt(1, 1 + 30 * SEG);  /* STA2's drain ends: STA1's batch may go */
    adw_sched_enqueue_burst(f->s, &rest, &v, 1, 23 * MS);
    n = sched_dequeue_all(f->s, 23 * MS);
    assert_true(n > 0);
    assert_int_equal(sched_out[0].out_port, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_taken_slice_waits_for_the_takers_own_drain_of_the_slice_before),
        LAB_TEST(test_taker_r_settles_where_its_batch_drains_in_a_slice),
        LAB_TEST(test_an_idle_pairs_drain_still_on_the_air_holds_back_the_pair_taking_its_slice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
