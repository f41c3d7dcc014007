/*
 * test_slice_reclaim.c — a pair idle at its slice start takes back the rest of the slice once it has backlog again,
 * whether it gave the slice away or no pair could take it (SPEC §3.3: "The pair reclaims its slice as soon as it
 * has backlog again"; 004 §6.3, the HTTP user whose response waits). On the 2AP-2STA lab (AP1-STA1 in slice 0,
 * AP2-STA2 in slice 1, 20 ms each, frame 40 ms, STA1 and STA2 conflicting) with dynamic slicing on: STA1 always
 * backlogged, STA2 idle at 20 ms, so STA1 takes slice 1 unless the policy's pair list leaves it out. STA1
 * acknowledges each of its batches whole, ACK_DELAY after its release.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include "adwiser/sched.h"
#include "sched_fixture.h"

#define MS 1000000ull
#define SEG 1448u
#define ACK_DELAY (5 * MS)
#define STA2_PKTS 20u

struct run {
    unsigned to_ap1, to_ap2;      /* packets released to each AP so far */
    uint64_t ack_at;              /* when STA1 acknowledges all released to it (0: nothing owed) */
    uint64_t first_ap2_ns;        /* when STA2's first packet went (UINT64_MAX: not yet) */
    unsigned ap1_in_25_40;        /* packets to AP1 released from 25 ms to the end of slice 1 */
};

/* Dynamic slicing on, or off; and with a pair list, only that pair may take an idle slice. */
enum policy { ON, OFF, ONLY_STA2_TAKES };

/* STA1 (300 packets queued at 0) and STA2 (STA2_PKTS arriving at sta2_at), stepped on every whole millisecond
 * (and at sta2_at) up to end. */
static void run_policy_until(struct sched_fixture *f, enum policy pol, struct run *r, uint64_t sta2_at, uint64_t end)
{
    f->cfg->policies.dynamic_slicing.enabled = pol != OFF;
    f->cfg->policies.dynamic_slicing.n_pairs = pol == ONLY_STA2_TAKES ? 1 : 0;
    f->cfg->policies.dynamic_slicing.pairs[0] = 1;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    *r = (struct run){.first_ap2_ns = UINT64_MAX};
    assert_int_equal(lab_enqueue_data(f->s, 0, 1, 300, 0), 300);
    for (uint64_t t = 0; t <= end;) {
        if (t == sta2_at)
            assert_int_equal(lab_enqueue_data(f->s, 1, 1, STA2_PKTS, t), STA2_PKTS);
        if (r->ack_at != 0 && t == r->ack_at) {
            struct adw_pkt a = lab_up_ack_pkt(0, 1 + r->to_ap1 * SEG);
            assert_int_equal(sched_enqueue1(f->s, &a, t), ADW_PASS);
            r->ack_at = 0;
        }
        unsigned n = sched_dequeue_all(f->s, t), ap1 = 0, ap2 = 0;
        for (unsigned i = 0; i < n; i++) {
            ap1 += sched_out[i].out_port == 1;
            ap2 += sched_out[i].out_port == 2;
        }
        r->to_ap1 += ap1;
        r->to_ap2 += ap2;
        if (ap1 > 0)
            r->ack_at = t + ACK_DELAY;
        if (ap2 > 0 && r->first_ap2_ns == UINT64_MAX)
            r->first_ap2_ns = t;
        if (t >= 25 * MS && t < 40 * MS)
            r->ap1_in_25_40 += ap1;
        uint64_t next = (t / MS + 1) * MS;
        t = sta2_at > t && sta2_at < next ? sta2_at : next;
    }
}

static void run_until(struct sched_fixture *f, struct run *r, uint64_t sta2_at, uint64_t end)
{
    run_policy_until(f, ON, r, sta2_at, end);
}

/* STA2's data arrives at 21 ms; STA1's batch in slice 1 (released at 20 ms) drains at 25 ms: STA2's batch goes
 * then, into the 15 ms left of its slice, sized for them (r = 40 x 15 / 20 = 30 >= its 20 packets). It waited for
 * STA1's next slice start: the 15 ms went to a refill for STA1 and STA2's packets went at 60 ms, 39 ms on top of
 * the HTTP response time. */
static void test_an_idle_owner_with_backlog_again_reclaims_the_rest_of_its_slice_after_the_takers_drain(void **state)
{
    struct run r;
    run_until(*state, &r, 21 * MS, 80 * MS);
    assert_int_equal(r.first_ap2_ns, 25 * MS);
    assert_int_equal(r.to_ap2, STA2_PKTS);
}

/* Once STA2 has backlog again the taker gets no more of the slice: no refill for STA1 when its drain ends at 25 ms,
 * nor anything else of it before the end of slice 1. */
static void test_the_taker_gets_no_refill_once_the_idle_owner_has_backlog_again(void **state)
{
    struct sched_fixture *f = *state;
    struct run r;
    run_until(f, &r, 21 * MS, 39 * MS);
    assert_int_equal(r.ap1_in_25_40, 0);
    assert_int_equal(sched_stats(f->s).batch_refills, 1); /* STA1's in its own slice 0, at 5 ms */
}

/* STA2's data arrives at 38.5 ms, under the 2 ms a refill needs of its slice (ADW_REFILL_MIN_NS): too late for a
 * batch of its own, STA2 waits for its next slice start, 60 ms, as before. */
static void test_an_owner_whose_backlog_comes_too_late_in_its_slice_waits_for_its_next_slice(void **state)
{
    struct run r;
    run_until(*state, &r, 38 * MS + MS / 2, 60 * MS);
    assert_int_equal(r.first_ap2_ns, 60 * MS);
}

/* STA2's data arrives at 21 ms but STA1's batch in slice 1 drains only at 38.5 ms (it is acknowledged late): under
 * 2 ms left, STA2's batch is not released into it and goes at its next slice start (60 ms); STA1 gets no refill. */
static void test_an_owner_whose_takers_drain_ends_too_late_in_the_slice_waits_for_its_next_slice(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.dynamic_slicing.enabled = true;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    assert_int_equal(lab_enqueue_data(f->s, 0, 1, 300, 0), 300);
    unsigned sent = sched_dequeue_all(f->s, 0);
    sched_assert_out_to(sent, 1);
    struct adw_pkt a = lab_up_ack_pkt(0, 1 + sent * SEG);
    assert_int_equal(sched_enqueue1(f->s, &a, 19 * MS), ADW_PASS); /* 1 ms left of slice 0: no refill */
    unsigned n = sched_dequeue_all(f->s, 20 * MS);                 /* STA1 takes slice 1 */
    assert_true(n > 0);
    sched_assert_out_to(n, 1);
    sent += n;
    assert_int_equal(lab_enqueue_data(f->s, 1, 1, STA2_PKTS, 21 * MS), STA2_PKTS);
    assert_int_equal(sched_dequeue_all(f->s, 21 * MS), 0);
    a = lab_up_ack_pkt(0, 1 + sent * SEG);
    assert_int_equal(sched_enqueue1(f->s, &a, 38 * MS + MS / 2), ADW_PASS);
    assert_int_equal(sched_dequeue_all(f->s, 38 * MS + MS / 2), 0);
    assert_int_equal(sched_dequeue_all(f->s, 39 * MS), 0);
    n = sched_dequeue_all(f->s, 40 * MS);                          /* STA1's own slice 0 */
    sched_assert_out_to(n, 1);
    sent += n;
    a = lab_up_ack_pkt(0, 1 + sent * SEG);
    assert_int_equal(sched_enqueue1(f->s, &a, 59 * MS), ADW_PASS);
    sched_dequeue_all(f->s, 59 * MS);
    n = sched_dequeue_all(f->s, 60 * MS);
    assert_int_equal(n, STA2_PKTS);
    sched_assert_out_to(n, 2);
    assert_int_equal(sched_stats(f->s).batch_refills, 0);
}

/* The frame report of the reclaimed slice: slice 1 is still reported as given to STA1 and STA2 as having given it
 * away (it had nothing at the slice start), but the 15 ms STA2 took back are its slice time, not STA1's: s_ns 25 +
 * 15 ms, adding up to the 40 ms frame, and STA2's 20 packets are its own release. */
static void test_a_reclaimed_slice_rest_is_reported_as_the_owners_slice_time(void **state)
{
    struct sched_fixture *f = *state;
    struct run r;
    run_until(f, &r, 21 * MS, 40 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.given_to[1], 0);
    assert_int_equal(rep.fr.reassignments, 1);
    assert_int_equal(rep.pr[1].reassigned, 1);
    assert_int_equal(rep.pr[0].s_ns, 25 * MS);
    assert_int_equal(rep.pr[1].s_ns, 15 * MS);
    assert_int_equal(rep.pr[1].released_pkts, STA2_PKTS);
}

/* STA2 idle at 20 ms and STA1, the only backlogged pair, not allowed to take its slice: STA2 keeps it, idle. Its data
 * arriving at 21 ms goes at once (nothing of STA1's is in the air: its refill drained at 10 ms), sized for the 19 ms
 * left (r = 38 >= its 20 packets). It waited for its next slice start, 60 ms, its own slice idle meanwhile. */
static void test_an_idle_owner_that_kept_its_slice_takes_the_rest_of_it_once_it_has_backlog(void **state)
{
    struct run r;
    run_policy_until(*state, ONLY_STA2_TAKES, &r, 21 * MS, 80 * MS);
    assert_int_equal(r.first_ap2_ns, 21 * MS);
    assert_int_equal(r.to_ap2, STA2_PKTS);
}

/* STA1 sent all it had in slice 0 (20 packets at 0 ms) and acknowledges them only at 25 ms: idle at 20 ms, it cannot
 * take STA2's slice, so STA2 keeps it. STA2's data arriving at 21 ms waits for STA1's drain, still in the air (a
 * conflicting pair: deferral.c), and goes when it ends at 25 ms, not at 60 ms. */
static void test_an_idle_owner_that_kept_its_slice_waits_for_a_conflicting_drain_before_taking_it(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.dynamic_slicing.enabled = true;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    assert_int_equal(lab_enqueue_data(f->s, 0, 1, 20, 0), 20);
    assert_int_equal(sched_dequeue_all(f->s, 0), 20);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0); /* both idle: nobody takes slice 1 */
    assert_int_equal(lab_enqueue_data(f->s, 1, 1, STA2_PKTS, 21 * MS), STA2_PKTS);
    for (uint64_t t = 21 * MS; t < 25 * MS; t += MS)
        assert_int_equal(sched_dequeue_all(f->s, t), 0);
    struct adw_pkt a = lab_up_ack_pkt(0, 1 + 20 * SEG);
    assert_int_equal(sched_enqueue1(f->s, &a, 25 * MS), ADW_PASS);
    unsigned n = sched_dequeue_all(f->s, 25 * MS);
    assert_int_equal(n, STA2_PKTS);
    sched_assert_out_to(n, 2);
    assert_int_equal(sched_stats(f->s).reassignments, 0);
}

/* The frame report of a kept slice taken back: STA2's slice time is its 20 ms slice once (it never gave it away, so
 * the rest it took back is not added again), STA1's its own 20 ms, adding up to the 40 ms frame; nothing reassigned,
 * and STA2's 20 packets are its release of the frame. */
static void test_a_kept_slice_taken_back_is_reported_as_the_owners_slice_once(void **state)
{
    struct sched_fixture *f = *state;
    struct run r;
    run_policy_until(f, ONLY_STA2_TAKES, &r, 21 * MS, 40 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.given_to[1], ADW_PAIR_NONE);
    assert_int_equal(rep.fr.reassignments, 0);
    assert_int_equal(rep.pr[1].reassigned, 0);
    assert_int_equal(rep.pr[0].s_ns, 20 * MS);
    assert_int_equal(rep.pr[1].s_ns, 20 * MS);
    assert_int_equal(rep.pr[1].released_pkts, STA2_PKTS);
}

/* The policy's pair list names the pairs that may take an idle slice; every pair's idle slice may be given away
 * (adw_slice_start), and taken back, listed or not. STA2, not listed, idle at 20 ms with STA1 (listed) idle too
 * after its 20 packets were acknowledged at 5 ms: nobody takes slice 1, and STA2's data at 21 ms goes at once. */
static void test_a_pair_left_out_of_the_takers_list_takes_the_rest_of_its_kept_slice_too(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.dynamic_slicing.enabled = true;
    f->cfg->policies.dynamic_slicing.n_pairs = 1;
    f->cfg->policies.dynamic_slicing.pairs[0] = 0;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    assert_int_equal(lab_enqueue_data(f->s, 0, 1, 20, 0), 20);
    assert_int_equal(sched_dequeue_all(f->s, 0), 20);
    struct adw_pkt a = lab_up_ack_pkt(0, 1 + 20 * SEG);
    assert_int_equal(sched_enqueue1(f->s, &a, 5 * MS), ADW_PASS);
    assert_int_equal(sched_dequeue_all(f->s, 5 * MS), 0);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
    assert_int_equal(lab_enqueue_data(f->s, 1, 1, STA2_PKTS, 21 * MS), STA2_PKTS);
    unsigned n = sched_dequeue_all(f->s, 21 * MS);
    assert_int_equal(n, STA2_PKTS);
    sched_assert_out_to(n, 2);
}

/* Without dynamic slicing a pair idle at its slice start keeps the slice as the plan has it, and its data arriving
 * at 21 ms waits for its next slice start, 60 ms, as it always has: a slice's batch goes at its start (004 §5). */
static void test_without_dynamic_slicing_an_idle_owners_backlog_waits_for_its_next_slice(void **state)
{
    struct run r;
    run_policy_until(*state, OFF, &r, 21 * MS, 60 * MS);
    assert_int_equal(r.first_ap2_ns, 60 * MS);
    assert_int_equal(r.to_ap2, STA2_PKTS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_an_idle_owner_with_backlog_again_reclaims_the_rest_of_its_slice_after_the_takers_drain),
        LAB_TEST(test_the_taker_gets_no_refill_once_the_idle_owner_has_backlog_again),
        LAB_TEST(test_an_owner_whose_backlog_comes_too_late_in_its_slice_waits_for_its_next_slice),
        LAB_TEST(test_an_owner_whose_takers_drain_ends_too_late_in_the_slice_waits_for_its_next_slice),
        LAB_TEST(test_a_reclaimed_slice_rest_is_reported_as_the_owners_slice_time),
        LAB_TEST(test_an_idle_owner_that_kept_its_slice_takes_the_rest_of_it_once_it_has_backlog),
        LAB_TEST(test_an_idle_owner_that_kept_its_slice_waits_for_a_conflicting_drain_before_taking_it),
        LAB_TEST(test_a_kept_slice_taken_back_is_reported_as_the_owners_slice_once),
        LAB_TEST(test_a_pair_left_out_of_the_takers_list_takes_the_rest_of_its_kept_slice_too),
        LAB_TEST(test_without_dynamic_slicing_an_idle_owners_backlog_waits_for_its_next_slice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
