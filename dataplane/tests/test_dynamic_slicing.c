/*
 * test_dynamic_slicing.c — a backlogged pair that takes the idle pair's slices (004 §6.3, SPEC §3.3) on the
 * 2AP-2STA lab: AP1-STA1 in slice 0, AP2-STA2 in slice 1, 20 ms each, frame 40 ms, time starting at 0. With
 * dynamic slicing on and STA2 idle, STA1 gets every slice, back to back: its batch of the slice before is often
 * still draining when the next slice starts, and that drain must be measured, not cut at the slice length.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "adwiser/sched.h"
#include "sched_fixture.h"

#define MS 1000000ull
#define SEG 1448u

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
    lab_queue_segments(f->s, 0, 1, 300, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 40);
    lab_sta_acks(f->s, 0, 20, 15 * MS); /* half the batch acknowledged: the rest is still in the air */
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
    lab_sta_acks(f->s, 0, 40, 22 * MS);
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
    lab_queue_segments(f->s, 0, 1, 2000, 0);
    unsigned released = 0, max_backlog = 0;
    double delivered = 0;
    for (uint64_t ms = 0; ms < 1000; ms++) {
        if (ms > 0 && delivered < released) {
            delivered = delivered + 1.6 < released ? delivered + 1.6 : released;
            lab_sta_acks(f->s, 0, (unsigned)delivered, ms * MS);
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
    lab_queue_segments(f->s, 1, 1, 30, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 30);   /* STA2 takes slice 0 */
    assert_int_equal(sched_out[0].out_port, 2);
    lab_queue_segments(f->s, 0, 1, 100, 5 * MS);
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

/* A third pair beside the lab's, ap3/sta3 (port 3), sharing slice 0 with AP2-STA2 (they do not conflict), and
 * conflicting with AP1-STA1 (which has slice 1 to itself) if sta3_conflicts: slice 0 = {sta3, sta2} (sta3 listed
 * first) or {sta2, sta3}. */
static const uint8_t STA3_MAC[6] = {0x02, 0xad, 0, 0, 3, 1};
static const uint8_t STA3_IP[4] = {198, 18, 0, 13};

static void add_sta3_beside_sta2(struct sched_fixture *f, bool sta3_first, bool sta3_conflicts)
{
    struct adw_config *c = f->cfg;
    memcpy(c->aps[2].id, "ap3", 4);
    memcpy(c->aps[2].port, "ap3", 4);
    c->aps[2].channel = 36;
    memcpy(c->stas[2].id, "sta3", 5);
    memcpy(c->stas[2].mac, STA3_MAC, 6);
    c->stas[2].n_addrs = 1;
    c->stas[2].addrs[0].family = 4;
    memcpy(c->stas[2].addrs[0].addr, STA3_IP, 4);
    c->stas[2].ap = 2;
    c->n_aps = 3;
    c->n_stas = 3;
    c->conflicts[1] = (struct adw_conflict_cfg){.a = 0, .b = 2};
    c->n_conflicts = sta3_conflicts ? 2 : 1;
    /* slice 0: sta3 and sta2 (spatial reuse); slice 1: sta1 */
    c->slices[0].n_pairs = 2;
    c->slices[0].pairs[0] = sta3_first ? 2 : 1;
    c->slices[0].pairs[1] = sta3_first ? 1 : 2;
    c->slices[1].pairs[0] = 0;
    c->policies.dynamic_slicing.enabled = true;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
}

static struct adw_pkt sta3_pkt(bool downlink, uint32_t seq_or_ack, uint32_t payload)
{
    struct fb_tcp t = downlink ? lab_down_tcp(0, seq_or_ack, payload) : lab_up_ack(0, seq_or_ack);
    memcpy(downlink ? t.dst_mac : t.src_mac, STA3_MAC, 6);
    memcpy(downlink ? t.dst_ip : t.src_ip, STA3_IP, 4);
    uint8_t *b = lab_buf();
    return (struct adw_pkt){.data = b, .len = fb_tcp(b, 1600, &t), .in_port = downlink ? 0 : 3, .cookie = b};
}

static void sta3_data(struct adw_sched *s, uint32_t first_seg, unsigned n, uint64_t now)
{
    for (unsigned i = 0; i < n; i++) {
        struct adw_pkt p = sta3_pkt(true, 1 + (first_seg + i) * SEG, SEG);
        assert_int_equal(sched_enqueue1(s, &p, now), ADW_QUEUED);
    }
}

/* STA2 idle in slice 0, STA3 sending in it: STA1 conflicts with STA3 and must not take STA2's share of the slice,
 * however the slice lists its pairs. With sta3 listed first, its batch (all 10 it had) went before STA2's idle
 * turn came, STA3's queue looked empty, and STA1 was given slice 0: STA3's own slice was then no longer its
 * (given_to), so when its drain ended at 5 ms with 30 more packets queued, the slice went to STA1's batch at AP1
 * instead of STA3's refill. */
static void check_a_pair_sending_in_the_slice_keeps_conflicting_takers_out(void **state, bool sta3_first)
{
    struct sched_fixture *f = *state;
    add_sta3_beside_sta2(f, sta3_first, true);
    lab_enqueue_data(f->s, 0, 1, 200, 0);
    sta3_data(f->s, 0, 10, 0);
    unsigned n = sched_dequeue_all(f->s, 0);
    assert_int_equal(n, 10);
    sched_assert_out_to(n, 3);
    sta3_data(f->s, 10, 30, 3 * MS);
    struct adw_pkt ack = sta3_pkt(false, 1 + 10 * SEG, 0);
    assert_int_equal(sched_enqueue1(f->s, &ack, 5 * MS), ADW_PASS);
    n = sched_dequeue_all(f->s, 5 * MS);
    assert_true(n > 0);
    sched_assert_out_to(n, 3);
    assert_int_equal(sched_stats(f->s).reassignments, 0);
}

static void test_a_pair_listed_first_and_sending_in_the_slice_keeps_conflicting_takers_out(void **state)
{
    check_a_pair_sending_in_the_slice_keeps_conflicting_takers_out(state, true);
}

static void test_a_pair_listed_last_and_sending_in_the_slice_keeps_conflicting_takers_out(void **state)
{
    check_a_pair_sending_in_the_slice_keeps_conflicting_takers_out(state, false);
}

/* Slice 0 = {STA3, STA2}, STA2 idle; STA1 (conflicting with STA2 only) and STA3 have 100 segments queued: STA1 takes
 * STA2's share of slice 0 while STA3 sends in it. */
static void partly_given_slice(struct sched_fixture *f)
{
    add_sta3_beside_sta2(f, true, false);
    lab_enqueue_data(f->s, 0, 1, 100, 0);
    sta3_data(f->s, 0, 100, 0);
}

/* Runs the core to the end of the first frame (40 ms) and returns its report, the three pairs' in pr. */
static struct adw_frame_report first_frame_report(struct sched_fixture *f, struct adw_pair_report pr[3])
{
    sched_dequeue_all(f->s, 20 * MS);
    sched_dequeue_all(f->s, 40 * MS);
    struct adw_frame_report fr;
    assert_int_equal(adw_sched_poll_frame(f->s, &fr, pr, 3), 1);
    return fr;
}

/* STA2 idle in slice 0 gives its share of the slice to STA1 (which conflicts with STA2 only); STA3, the other pair
 * of slice 0, still sends in it. When STA3's drain ends at 8 ms with 60 packets queued, the time left of its own
 * slice is its refill's. It was refused: the slice counted as given away whole (given_to), not STA2's share of it. */
static void test_a_pair_sending_in_a_partly_given_slice_still_refills_it(void **state)
{
    struct sched_fixture *f = *state;
    partly_given_slice(f);
    unsigned n = sched_dequeue_all(f->s, 0), to_ap3 = 0, to_ap1 = 0;
    for (unsigned i = 0; i < n; i++) {
        to_ap3 += sched_out[i].out_port == 3;
        to_ap1 += sched_out[i].out_port == 1;
    }
    assert_int_equal(to_ap3, 40);
    assert_int_equal(to_ap1, 40); /* STA1 took STA2's share */
    struct adw_pkt ack = sta3_pkt(false, 1 + 40 * SEG, 0);
    assert_int_equal(sched_enqueue1(f->s, &ack, 8 * MS), ADW_PASS);
    n = sched_dequeue_all(f->s, 8 * MS);
    assert_true(n > 0);
    sched_assert_out_to(n, 3);
    assert_int_equal(sched_stats(f->s).batch_refills, 1);
}

/* STA2 idle in slice 0 gives its share to STA1; STA3, the other pair of slice 0, sends in it. The frame report says
 * who gave: STA2's gave_slices has slice 0's bit, STA3's and the taker's none. reassigned alone said only that STA2
 * gave some slice away, not which, and the frame's given_to[0] names only the taker. */
static void test_the_report_names_the_pair_that_gave_its_share_of_a_partly_given_slice(void **state)
{
    struct sched_fixture *f = *state;
    partly_given_slice(f);
    sched_dequeue_all(f->s, 0);
    struct adw_pair_report pr[3];
    struct adw_frame_report fr = first_frame_report(f, pr);
    assert_int_equal(fr.given_to[0], 0);
    assert_int_equal(pr[1].gave_slices, UINT64_C(1) << 0);
    assert_int_equal(pr[1].reassigned, 1);
    assert_int_equal(pr[2].gave_slices, 0);
    assert_int_equal(pr[2].reassigned, 0);
    assert_int_equal(pr[0].gave_slices, 0);
}

/* STA2 and STA3 both idle in slice 0, STA1 backlogged: STA1 takes the slice, and the report says both idle pairs
 * gave it away (reassigned, no slice time used). Only the pair listed first was reported so: the other one, left
 * out once given_to was set, kept the slice's 20 ms as its own slice time in the frame and reassigned 0. */
static void check_every_idle_pair_of_a_given_slice_is_reported_as_giving_it_away(void **state, bool sta3_first)
{
    struct sched_fixture *f = *state;
    add_sta3_beside_sta2(f, sta3_first, false);
    lab_enqueue_data(f->s, 0, 1, 200, 0);
    unsigned n = sched_dequeue_all(f->s, 0);
    assert_int_equal(n, 40);
    sched_assert_out_to(n, 1);
    struct adw_pair_report pr[3];
    struct adw_frame_report fr = first_frame_report(f, pr);
    assert_int_equal(fr.given_to[0], 0);
    assert_int_equal(fr.reassignments, 1);
    assert_int_equal(pr[0].s_ns, 40 * MS);
    for (unsigned q = 1; q < 3; q++) {
        assert_int_equal(pr[q].reassigned, 1);
        assert_int_equal(pr[q].s_ns, 0);
    }
}

static void test_every_idle_pair_of_a_given_slice_is_reported_as_giving_it_away_sta2_first(void **state)
{
    check_every_idle_pair_of_a_given_slice_is_reported_as_giving_it_away(state, false);
}

static void test_every_idle_pair_of_a_given_slice_is_reported_as_giving_it_away_sta3_first(void **state)
{
    check_every_idle_pair_of_a_given_slice_is_reported_as_giving_it_away(state, true);
}

/* Slice 0 = {STA2, STA3}, both idle at 40 ms; STA3 (conflicting with STA1) took STA1's slice 1 at 20 ms and its
 * batch is still on the air. STA1, backlogged again, takes slice 0 and must wait for STA3's drain whichever of the
 * idle pairs the slice lists first. With STA2 first, STA3's turn came after the slice was given: it was treated as
 * a pair of the slice releasing its batch, which closed its open drain as stale, and STA1's batch went to AP1 at
 * once, into AP3's transmission. */
static void check_a_second_idle_pairs_drain_on_the_air_holds_back_the_taker(void **state, bool sta3_first)
{
    struct sched_fixture *f = *state;
    add_sta3_beside_sta2(f, sta3_first, true);
    assert_int_equal(sched_dequeue_all(f->s, 0), 0);
    sta3_data(f->s, 0, 30, 10 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 10 * MS), 0);
    unsigned n = sched_dequeue_all(f->s, 20 * MS); /* STA1 idle: STA3 takes slice 1 */
    assert_int_equal(n, 30);
    sched_assert_out_to(n, 3);
    struct adw_pkt half = sta3_pkt(false, 1 + 15 * SEG, 0);
    assert_int_equal(sched_enqueue1(f->s, &half, 30 * MS), ADW_PASS);
    lab_enqueue_data(f->s, 0, 1, 100, 30 * MS);
    for (uint64_t t = 40 * MS; t < 43 * MS; t += MS) {
        n = sched_dequeue_all(f->s, t);
        for (unsigned i = 0; i < n; i++)
            assert_int_not_equal(sched_out[i].out_port, 1);
    }
    assert_int_equal(sched_stats(f->s).drains_superseded, 0);
    struct adw_pkt rest = sta3_pkt(false, 1 + 30 * SEG, 0); /* STA3's drain ends: STA1's batch may go */
    assert_int_equal(sched_enqueue1(f->s, &rest, 43 * MS), ADW_PASS);
    n = sched_dequeue_all(f->s, 43 * MS);
    assert_true(n > 0);
    sched_assert_out_to(n, 1);
}

static void test_a_second_idle_pairs_drain_on_the_air_holds_back_the_taker_sta2_first(void **state)
{
    check_a_second_idle_pairs_drain_on_the_air_holds_back_the_taker(state, false);
}

static void test_a_second_idle_pairs_drain_on_the_air_holds_back_the_taker_sta3_first(void **state)
{
    check_a_second_idle_pairs_drain_on_the_air_holds_back_the_taker(state, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_taken_slice_waits_for_the_takers_own_drain_of_the_slice_before),
        LAB_TEST(test_taker_r_settles_where_its_batch_drains_in_a_slice),
        LAB_TEST(test_an_idle_pairs_drain_still_on_the_air_holds_back_the_pair_taking_its_slice),
        LAB_TEST(test_a_pair_listed_first_and_sending_in_the_slice_keeps_conflicting_takers_out),
        LAB_TEST(test_a_pair_listed_last_and_sending_in_the_slice_keeps_conflicting_takers_out),
        LAB_TEST(test_a_pair_sending_in_a_partly_given_slice_still_refills_it),
        LAB_TEST(test_the_report_names_the_pair_that_gave_its_share_of_a_partly_given_slice),
        LAB_TEST(test_every_idle_pair_of_a_given_slice_is_reported_as_giving_it_away_sta2_first),
        LAB_TEST(test_every_idle_pair_of_a_given_slice_is_reported_as_giving_it_away_sta3_first),
        LAB_TEST(test_a_second_idle_pairs_drain_on_the_air_holds_back_the_taker_sta2_first),
        LAB_TEST(test_a_second_idle_pairs_drain_on_the_air_holds_back_the_taker_sta3_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
