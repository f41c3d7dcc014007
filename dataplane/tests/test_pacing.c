/*
 * test_pacing.c — paced mode of the aggregation-target policy (SPEC §3.7, issue 9) through the public API, on the
 * 2AP-2STA lab (20 ms slices, frame 40 ms): a pair with a pacing rate x_i is released by its token bucket at x_i
 * instead of in slice batches, rate changes apply at once and lose no packet, and its queue keeps the A* limit.
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

static uint32_t seq_of(const struct adw_pkt *p)
{
    const uint8_t *t = p->data + 14 + 20 + 4;
    return (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3];
}

static struct adw_pkt out[8192];
static uint64_t out_ns[8192];
static unsigned n_out;

static unsigned dequeue_at(struct adw_sched *s, uint64_t now)
{
    unsigned n = 0, k;
    while ((k = adw_sched_dequeue_burst(s, out + n_out, 64, now)) > 0) {
        for (unsigned i = 0; i < k; i++)
            out_ns[n_out + i] = now;
        n_out += k;
        n += k;
    }
    return n;
}

/* Runs the backend loop from `from` to `to` as adwiser-dp does: sleep to next_event_ns, dequeue. */
static void run_until(struct adw_sched *s, uint64_t from, uint64_t to)
{
    uint64_t t = from;
    while (t <= to) {
        dequeue_at(s, t);
        uint64_t next = adw_sched_next_event_ns(s, t);
        t = next > t ? next : t + 1;
    }
}

/* The lab scheduler, with this file's output log emptied. */
static int setup(void **state)
{
    n_out = 0;
    return sched_fixture_setup(state);
}

static void test_paced_pair_releases_at_its_rate(void **state)
{
    struct sched_fixture *f = *state;
    char err[128];
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, err, sizeof err), 0);
    lab_queue_segments(f->s, 0, 1, 100, 0);
    run_until(f->s, 0, 49 * MS + 999 * US);
    /* One packet per ms, at whole ms: 0, 1, ..., 49 ms (no batch of r_init = 40 at the slice start). */
    assert_int_equal(n_out, 50);
    for (unsigned i = 0; i < n_out; i++) {
        assert_int_equal(out_ns[i], i * MS);
        assert_int_equal(out[i].out_port, 1);
        assert_int_equal(seq_of(&out[i]), 1 + i * 1448);
    }
}

static void test_paced_pair_is_not_batched_at_its_slice_start(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_enqueue_data(f->s, 0, 1, 60, 0);
    lab_enqueue_data(f->s, 1, 1, 60, 0); /* sta2 stays time-sliced: its batch of 40 comes at 20 ms */
    assert_int_equal(dequeue_at(f->s, 0), 1);
    /* sta2's batch, and the 20 sta1 is owed at 1/ms since 0 (its queue stayed backlogged: pacer.h), not a batch */
    assert_int_equal(dequeue_at(f->s, 20 * MS), 40 + 20);
    run_until(f->s, 20 * MS, 40 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.pr[0].mode, ADW_MODE_PACED);
    assert_int_equal(rep.pr[0].pace_bps, lab_one_per_ms_bps());
    /* at 0, 20 at 20 ms, then one per ms at 21 ... 39 ms (the one at 40 ms is the next frame's) */
    assert_int_equal(rep.pr[0].released_pkts, 1 + 20 + 19);
    assert_int_equal(rep.pr[1].mode, ADW_MODE_SLICED);
    assert_int_equal(rep.pr[1].pace_bps, 0);
    assert_int_equal(rep.pr[1].released_pkts, 40);
}

/* Calls the backend loop every step_ns from `from` to `to` (a loop that wakes late, as on a loaded host). */
static void run_every(struct adw_sched *s, uint64_t from, uint64_t to, uint64_t step_ns)
{
    for (uint64_t t = from; t <= to; t += step_ns)
        dequeue_at(s, t);
}

static void test_a_backlogged_pair_woken_late_still_gets_its_rate(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1, 200, 0);
    /* The loop runs every 5 ms instead of at each 1 ms release instant: the queue never empties, so the credit
     * of the missed instants is owed, not capped at one frame (which gave 2 per call, 40 % of x_i). */
    run_every(f->s, 0, 100 * MS, 5 * MS);
    assert_int_equal(n_out, 101); /* 0, 1, ..., 100 ms: one per ms, five at each call after the first */
    for (unsigned i = 0; i < n_out; i++)
        assert_int_equal(seq_of(&out[i]), 1 + i * 1448);
}

static void test_a_catch_up_after_a_late_wake_up_is_at_most_n_bar_frames(void **state)
{
    struct sched_fixture *f = *state;
    uint32_t n_bar = f->cfg->policies.aggregation_target.n_target_max;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1, 200, 0);
    assert_int_equal(dequeue_at(f->s, 0), 1);
    /* 100 ms late: 100 owed, but at most N-bar frames of credit pile up (one A-MPDU's worth at the AP, 000 (17)),
     * and the frame that may leave at a credit of zero. */
    assert_int_equal(dequeue_at(f->s, 100 * MS), n_bar + 1);
}

static void test_a_pair_that_was_idle_gets_at_most_one_frame_of_burst(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1, 1, 0);
    assert_int_equal(dequeue_at(f->s, 0), 1);
    /* The queue emptied at 0: the sender, not the pacer, was the limit for 50 ms; no credit is owed for that. */
    lab_queue_segments(f->s, 0, 1449, 20, 50 * MS);
    assert_int_equal(dequeue_at(f->s, 50 * MS), 2);
}

static void test_rate_change_applies_at_once_and_loses_no_packet(void **state)
{
    struct sched_fixture *f = *state;
    uint64_t x = lab_one_per_ms_bps();
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", x, 0, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1, 150, 0);
    run_until(f->s, 0, 9 * MS + 999 * US); /* 10 at 1/ms */
    assert_int_equal(n_out, 10);
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", 2 * x, 10 * MS, NULL, 0), 0); /* mid-frame */
    run_until(f->s, 10 * MS, 19 * MS + 999 * US); /* 20 more at 2/ms */
    assert_int_equal(n_out, 30);
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", x / 2, 20 * MS, NULL, 0), 0);
    run_until(f->s, 20 * MS, 29 * MS + 999 * US); /* 5 more at 1 per 2 ms */
    assert_int_equal(n_out, 35);
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", 0, 30 * MS, NULL, 0), 0); /* back to its slices */
    run_until(f->s, 30 * MS, 2000 * MS); /* no ACKs come back, so r shrinks towards r_min: give it time */
    assert_int_equal(n_out, 150);
    for (unsigned i = 0; i < n_out; i++)
        assert_int_equal(seq_of(&out[i]), 1 + i * 1448); /* in order, none missing */
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drops_tail + st.drops_pool + st.drops_config, 0);
    assert_int_equal(st.pool_in_use, 0);
}

static void test_paced_queue_is_bounded_by_the_astar_limit(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    lab_enqueue_data(f->s, 0, 1, 1, 0);
    dequeue_at(f->s, 0); /* one release: service time 1 ms, Q_eBDP = 200 ms / 1 ms + 5 = 205 */
    unsigned queued = lab_enqueue_data(f->s, 0, 1449, 400, 100 * US);
    assert_int_equal(queued, 205);
    run_until(f->s, 100 * US, 40 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.pr[0].drops_tail, 195);
    assert_true(rep.pr[0].queue_pkts <= rep.pr[0].limit_pkts);
    assert_true(rep.pr[0].limit_pkts <= 205);
}

/* The floor of two batches under a pair's A* limit is for its batches (astar.h, adw_astar_set_floor); a pair paced
 * has none, and its limit is min(Q_eBDP, q_ALT) (SPEC §3.5) even if it was batched before; back in its slices, the
 * floor is there again. */
static void test_a_paced_pair_keeps_no_batch_floor_under_its_limit(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 40, 0);
    assert_int_equal(dequeue_at(f->s, 0), 40); /* a batch of r_init = 40 */
    lab_sta_acks(f->s, 0, 40, 1 * MS); /* drained in 1 ms: r = 40 + 1 x (20 - 1) = 59, floor 118 */
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps() / 4, 2 * MS, NULL, 0), 0);
    lab_queue_segments(f->s, 0, 1 + 40 * 1448, 150, 2 * MS);
    run_until(f->s, 2 * MS, 480 * MS); /* ~120 releases 4 ms apart: T_serv -> 4 ms, Q_eBDP -> 200 / 4 + 5 = 55 */
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    uint32_t limit = 0;
    while (adw_sched_poll_frame(f->s, &fr, pr, 2) == 1)
        limit = pr[0].limit_pkts;
    assert_in_range(limit, 50, 56);
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", 0, 481 * MS, NULL, 0), 0); /* back to its slices */
    run_until(f->s, 481 * MS, 520 * MS);
    while (adw_sched_poll_frame(f->s, &fr, pr, 2) == 1)
        limit = pr[0].limit_pkts;
    assert_int_equal(limit, 118); /* the floor under its next batches again */
}

static void test_next_event_is_the_next_paced_release(void **state)
{
    struct sched_fixture *f = *state;
    /* 1488-byte IP packets at 10 Mbit/s: 1190.4 µs apart, so the instant is rounded up to 1191 µs. */
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", 10000000, 0, NULL, 0), 0);
    lab_enqueue_data(f->s, 0, 1, 3, 0);
    assert_int_equal(dequeue_at(f->s, 0), 1);
    struct adw_pkt p = lab_down_pkt(0, 1, 1448);
    uint64_t gap_ns = (uint64_t)(p.len - 14) * 8 * 1000000000ull / 10000000;
    uint64_t want = (gap_ns + US - 1) / US * US;
    assert_int_equal(adw_sched_next_event_ns(f->s, 0), want);
    assert_int_equal(dequeue_at(f->s, gap_ns - 1), 0);
    assert_int_equal(dequeue_at(f->s, want), 1);
}

static void test_pacing_an_unknown_pair_is_refused_naming_it(void **state)
{
    struct sched_fixture *f = *state;
    char err[128];
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta9", 1000000, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "ap1/sta9"));
    assert_int_equal(adw_sched_pacing(f->s, 0), 0);
}

static void test_pacing_rate_stays_with_the_pair_across_versions(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap2/sta2", 5000000, 0, NULL, 0), 0);
    f->cfg->version = 2;
    f->cfg->slices[0].duration_ns = 30 * MS;
    assert_int_equal(adw_sched_set_config(f->s, f->cfg, 1 * MS, NULL, 0), 0);
    dequeue_at(f->s, 40 * MS); /* frame boundary: swap */
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_int_equal(adw_sched_pacing(f->s, 1), 5000000);
    assert_int_equal(adw_sched_pacing(f->s, 0), 0);
}

/* Packets of port `port` among the last n handed out. */
static unsigned last_to_port(unsigned n, uint16_t port)
{
    unsigned k = 0;
    for (unsigned i = n_out - n; i < n_out; i++)
        k += out[i].out_port == port;
    return k;
}

/* 40 segments queued for each of the conflicting pairs; sta1's batch released at 0 ms (its drain is open), and at
 * sta2's slice start (20 ms) sta2's batch waits for that drain (deferral.c). */
static struct sched_fixture *sta2_batch_waiting_on_sta1s_drain(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 40, 0);
    lab_queue_segments(f->s, 1, 1, 40, 0);
    assert_int_equal(dequeue_at(f->s, 0), 40);
    assert_int_equal(dequeue_at(f->s, 20 * MS), 0);
    return f;
}

static void test_pacing_a_pair_whose_batch_waits_cancels_that_batch(void **state)
{
    struct sched_fixture *f = sta2_batch_waiting_on_sta1s_drain(state);
    assert_int_equal(adw_sched_set_pacing(f->s, "ap2/sta2", 10000000, 21 * MS, NULL, 0), 0);
    lab_sta_acks(f->s, 0, 40, 22 * MS); /* sta1's drain ends */
    /* sta2 is paced at 10 Mbit/s (1191 us a packet) since 21 ms: the pacer's packets, not the waiting batch of 37 */
    assert_true(dequeue_at(f->s, 22 * MS) <= 2);
    run_until(f->s, 22 * MS, 49 * MS);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.batches, 1); /* sta1's only */
    assert_int_equal(st.slice_deferrals_expired, 0);
    /* No batch went to sta2, so no drain of it holds sta1's voice back: it goes as it comes. */
    struct adw_pkt v = lab_voice_pkt(0);
    assert_int_equal(sched_enqueue1(f->s, &v, 50 * MS), ADW_QUEUED);
    assert_int_equal(last_to_port(dequeue_at(f->s, 50 * MS), 1), 1);
}

/* The draining pair and the pair whose batch waits for it paced in one change (a pacing table): set one by one,
 * draining sta1 first, sta1's dropped drain released sta2's waiting batch as one burst (39 packets) before sta2 was
 * paced. */
static void test_pacing_both_conflicting_pairs_in_one_table_releases_no_batch(void **state)
{
    struct sched_fixture *f = sta2_batch_waiting_on_sta1s_drain(state);
    const struct adw_pacing_rate table[] = {{"ap1/sta1", 10000000}, {"ap2/sta2", 10000000}, {"ap9/sta9", 5}};
    bool known[3];
    adw_sched_set_pacing_table(f->s, table, 3, 21 * MS, known);
    assert_true(known[0] && known[1] && !known[2]);
    assert_true(dequeue_at(f->s, 21 * MS) <= 2); /* the pacers' first packets, not sta2's batch */
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.batches, 1); /* sta1's only */
}

static void test_batch_waiting_on_a_drain_goes_at_once_when_the_draining_pair_is_paced(void **state)
{
    struct sched_fixture *f = sta2_batch_waiting_on_sta1s_drain(state);
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", 10000000, 21 * MS, NULL, 0), 0);
    /* Paced, sta1 drops its drain: nothing holds sta2's batch back, so the backend must not sleep to the slice end
     * (where the batch expired and sta2 lost its slice). */
    assert_int_equal(adw_sched_next_event_ns(f->s, 21 * MS), 21 * MS);
    /* The batch goes at that dequeue, scaled to the 19 ms left of its slice: 40 * 19 / 20. */
    assert_int_equal(last_to_port(dequeue_at(f->s, 21 * MS), 2), 38);
    run_until(f->s, 21 * MS, 39 * MS);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.slice_deferrals, 1);
    assert_int_equal(st.slice_deferrals_expired, 0);
}

static void test_voice_held_for_a_drain_goes_at_once_when_the_draining_pair_is_paced(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 40, 0);
    assert_int_equal(dequeue_at(f->s, 0), 40); /* sta1's batch: its drain is open */
    struct adw_pkt v = lab_voice_pkt(1);
    assert_int_equal(sched_enqueue1(f->s, &v, 10 * MS), ADW_QUEUED);
    assert_int_equal(dequeue_at(f->s, 10 * MS), 0); /* sta2's voice waits for sta1's drain (realtime_release.c) */
    assert_int_equal(dequeue_at(f->s, 20 * MS), 0); /* and at its slice start, up to hold_max_fraction of it */
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", 10000000, 21 * MS, NULL, 0), 0);
    /* Paced, sta1 drops its drain: the voice goes now, not when the hold runs out. */
    assert_int_equal(adw_sched_next_event_ns(f->s, 21 * MS), 21 * MS);
    assert_int_equal(last_to_port(dequeue_at(f->s, 21 * MS), 2), 1);
}

/* Downlink UDP server:sport -> STA sta:dport, best effort, an IP packet as long as lab_down_pkt(.., 1448)'s. */
static struct adw_pkt lab_down_udp(unsigned sta, uint16_t sport, uint16_t dport)
{
    uint8_t *b = lab_buf();
    uint32_t n = fb_udp4(b, 1600, LAB_SRV_MAC, LAB_STA_MAC[sta], LAB_SRV_IP, LAB_STA_IP[sta], 0, sport, dport, 1460);
    return (struct adw_pkt){.data = b, .len = n, .in_port = 0, .cookie = b};
}

static void test_udp_to_a_paced_pair_is_released_at_its_rate_and_dhcp_still_passes(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    for (unsigned i = 0; i < 10; i++) {
        struct adw_pkt p = lab_down_udp(0, 40000, 5201);
        assert_int_equal(sched_enqueue1(f->s, &p, 0), ADW_QUEUED);
    }
    struct adw_pkt offer = lab_down_udp(0, 67, 68);
    assert_int_equal(sched_enqueue1(f->s, &offer, 0), ADW_PASS);
    run_until(f->s, 0, 9 * MS + 999 * US);
    assert_int_equal(n_out, 10); /* one per ms at 0 .. 9 ms, as TCP segments of the same size would go */
    for (unsigned i = 0; i < n_out; i++) {
        assert_int_equal(out_ns[i], i * MS);
        assert_int_equal(out[i].out_port, 1);
    }
}

static void test_udp_to_a_time_sliced_pair_passes_straight_through(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", lab_one_per_ms_bps(), 0, NULL, 0), 0);
    struct adw_pkt p = lab_down_udp(1, 40000, 5201); /* sta2 stays time-sliced: no ACKs to time a drain by */
    assert_int_equal(sched_enqueue1(f->s, &p, 0), ADW_PASS);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.pass_other, 1);
    assert_int_equal(st.queued_data, 0);
}

/* The server's pure ACK of ackno to STA1's uplink transfer (STA port 41000 -> server port 5201), queued at now. */
static void server_acks_uplink(struct adw_sched *s, uint32_t ackno, uint64_t now)
{
    struct fb_tcp t = lab_down_tcp(0, 1, 0);
    t.sport = 5201, t.dport = 41000, t.ack = ackno;
    uint8_t *b = lab_buf();
    struct adw_pkt p = {.data = b, .len = fb_tcp(b, 1600, &t), .in_port = 0, .cookie = b};
    assert_int_equal(sched_enqueue1(s, &p, now), ADW_QUEUED);
}

/* A 1448-byte segment of STA1's uplink transfer at now. */
static void sta1_sends_uplink_segment(struct adw_sched *s, uint64_t now)
{
    struct fb_tcp t = lab_up_ack(0, 1);
    t.sport = 41000, t.dport = 5201, t.payload_len = 1448;
    uint8_t *b = lab_buf();
    struct adw_pkt p = {.data = b, .len = fb_tcp(b, 1600, &t), .in_port = 1, .cookie = b};
    assert_int_equal(sched_enqueue1(s, &p, now), ADW_PASS);
}

/* An uplink transfer's ACKs released by the pacer are no batch's: back in its slices, the pair's first batch of ACKs
 * awaits the bytes they free beyond the last ACK the pacer released, not every byte the STA sent while paced. */
static void test_an_uplink_batch_after_paced_mode_awaits_only_the_bytes_its_acks_free(void **state)
{
    struct sched_fixture *f = *state;
    uint32_t ackno = 1000;
    server_acks_uplink(f->s, ackno, 0);
    assert_int_equal(dequeue_at(f->s, 0), 1); /* a batch: the drain learns the flow's last released ACK */
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", 100000000, 1 * MS, NULL, 0), 0);
    for (unsigned i = 0; i < 20; i++) { /* paced: each ACK frees two segments, which the STA sends */
        uint64_t t = 1 * MS + i * 100 * US;
        server_acks_uplink(f->s, ackno += 2896, t);
        assert_int_equal(dequeue_at(f->s, t), 1);
        sta1_sends_uplink_segment(f->s, t + 10 * US);
        sta1_sends_uplink_segment(f->s, t + 20 * US);
    }
    assert_int_equal(adw_sched_set_pacing(f->s, "ap1/sta1", 0, 30 * MS, NULL, 0), 0);
    for (unsigned i = 0; i < 4; i++)
        server_acks_uplink(f->s, ackno += 2896, 39 * MS);
    assert_int_equal(dequeue_at(f->s, 40 * MS), 4); /* frame 1's batch: 3 ACKs free 6 segments beyond the first */
    for (unsigned i = 1; i <= 6; i++)
        sta1_sends_uplink_segment(f->s, 40 * MS + i * MS);
    dequeue_at(f->s, 80 * MS);
    struct sched_frame fr = sched_next_frame(f->s);
    fr = sched_next_frame(f->s);
    assert_int_equal(fr.fr.frame, 1);
    /* Was none: the 40 segments sent while paced were awaited too, and the drain stayed open to the next batch. */
    assert_int_equal(fr.pr[0].drains, 1);
    assert_int_equal(fr.pr[0].v_ns, 6 * MS);
}

#define PACING_TEST(test) cmocka_unit_test_setup_teardown(test, setup, sched_fixture_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        PACING_TEST(test_paced_pair_releases_at_its_rate),
        PACING_TEST(test_paced_pair_is_not_batched_at_its_slice_start),
        PACING_TEST(test_a_backlogged_pair_woken_late_still_gets_its_rate),
        PACING_TEST(test_a_catch_up_after_a_late_wake_up_is_at_most_n_bar_frames),
        PACING_TEST(test_a_pair_that_was_idle_gets_at_most_one_frame_of_burst),
        PACING_TEST(test_rate_change_applies_at_once_and_loses_no_packet),
        PACING_TEST(test_paced_queue_is_bounded_by_the_astar_limit),
        PACING_TEST(test_a_paced_pair_keeps_no_batch_floor_under_its_limit),
        PACING_TEST(test_next_event_is_the_next_paced_release),
        PACING_TEST(test_pacing_an_unknown_pair_is_refused_naming_it),
        PACING_TEST(test_pacing_rate_stays_with_the_pair_across_versions),
        PACING_TEST(test_pacing_a_pair_whose_batch_waits_cancels_that_batch),
        PACING_TEST(test_pacing_both_conflicting_pairs_in_one_table_releases_no_batch),
        PACING_TEST(test_batch_waiting_on_a_drain_goes_at_once_when_the_draining_pair_is_paced),
        PACING_TEST(test_voice_held_for_a_drain_goes_at_once_when_the_draining_pair_is_paced),
        PACING_TEST(test_udp_to_a_paced_pair_is_released_at_its_rate_and_dhcp_still_passes),
        PACING_TEST(test_udp_to_a_time_sliced_pair_passes_straight_through),
        PACING_TEST(test_an_uplink_batch_after_paced_mode_awaits_only_the_bytes_its_acks_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
