/*
 * test_sched.c — the scheduling core through its public API (adwiser/sched.h) on the 2AP-2STA lab:
 * AP1-STA1 in slice 0, AP2-STA2 in slice 1, 20 ms each, frame 40 ms, time starting at 0.
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

/* STA sta acknowledges its first `segments` segments of 1448 bytes (from sequence 1) at now: the verdict. */
/* STA1 gets `queued` segments from sequence 1 at 0 and its slice starts: how many its first batch released. */
static unsigned sta1_batch_at_0(struct adw_sched *s, unsigned queued)
{
    lab_enqueue_data(s, 0, 1, queued, 0);
    return sched_dequeue_all(s, 0);
}

/* Two hidden APs: AP1-STA1's first batch (40 of 100) is in the air from 0, and STA2's 100 segments arrive at 1 ms
 * for AP2's slice at 20 ms. */
static void sta2_queued_behind_sta1s_batch(struct adw_sched *s)
{
    assert_int_equal(sta1_batch_at_0(s, 100), 40);
    lab_enqueue_data(s, 1, 1, 100, 1 * MS);
}

/* Runs to the end of frame 1 (80 ms): STA1's report of frame 1, where a drain closed at its start shows. */
static struct adw_pair_report sta1_report_of_frame1(struct adw_sched *s)
{
    sched_dequeue_all(s, 80 * MS);
    sched_next_frame(s); /* frame 0 */
    return sched_next_frame(s).pr[0];
}

/* STA1's V and r (the batch size the drain gave) in its report of frame 1 (sta1_report_of_frame1). */
static void assert_sta1_v_and_r_in_frame1(struct adw_sched *s, uint64_t v_ns, uint32_t r_pkts)
{
    struct adw_pair_report r = sta1_report_of_frame1(s);
    assert_int_equal(r.v_ns, v_ns);
    assert_int_equal(r.r_pkts, r_pkts);
}

/* The fixture's scheduler made again with v_cap_factor 1.5: a drain is closed at 30 ms, shorter than the 40 ms
 * frame. */
static void recreate_with_a_30ms_drain_cap(struct sched_fixture *f)
{
    f->cfg->policies.ts_abr_qd.v_cap_factor = 1.5;
    sched_fixture_recreate(f, NULL);
}

/* After `rejected` refused versions (and nothing accepted), version 1 still runs at 100 ms: no swap happened. */
static void assert_version_1_runs_on_after_refusals(struct adw_sched *s, uint64_t rejected)
{
    sched_dequeue_all(s, 100 * MS);
    assert_int_equal(adw_sched_active_version(s), 1);
    struct adw_stats st = sched_stats(s);
    assert_int_equal(st.config_rejected, rejected);
    assert_int_equal(st.config_swaps, 0);
}

/* The lab configuration with slices of slice_ms, as version 2 (the fixture's is 1); the caller frees it. */
static struct adw_config *lab_version_2(unsigned slice_ms)
{
    struct adw_config *c = lab_config_2ap_2sta(slice_ms);
    c->version = 2;
    return c;
}

/* Version 2 of the lab in which AP2 and STA2 leave: AP1-STA1 alone in one slice. */
static struct adw_config *lab_version_2_without_ap2(void)
{
    struct adw_config *c = lab_version_2(20);
    c->n_aps = 1, c->n_stas = 1, c->n_slices = 1, c->n_conflicts = 0;
    return c;
}

static void test_batch_is_released_only_at_its_slice_start(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 1, 1000, 10, 1 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 1 * MS), 0);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS - 1), 0);
    assert_int_equal(adw_sched_next_event_ns(f->s, 20 * MS - 1), 20 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 10);
    sched_assert_out_to(10, 2);
}

static void test_packets_of_a_pair_outside_the_current_slice_are_held(void **state)
{
    struct sched_fixture *f = *state;
    sched_dequeue_all(f->s, 0);
    lab_queue_segments(f->s, 0, 1000, 5, 25 * MS); /* STA1's slice is over until 40 ms */
    assert_int_equal(sched_dequeue_all(f->s, 30 * MS), 0);
    assert_int_equal(sched_dequeue_all(f->s, 39 * MS), 0);
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 5);
    assert_int_equal(sched_out[0].out_port, 1);
}

static void test_batch_holds_r_packets_and_keeps_the_rest(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 0, 1, 100, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 40); /* r_init = 40 */
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.pool_in_use, 60);
}

static void test_drain_from_returning_ack_updates_r(void **state)
{
    struct sched_fixture *f = *state;
    /* one batch: nothing queued for a refill when it drains (test_refill.c) */
    assert_int_equal(sta1_batch_at_0(f->s, 40), 40);
    struct adw_pkt a = lab_up_ack_pkt(0, 1 + 38 * 1448);
    assert_int_equal(sched_enqueue1(f->s, &a, 2 * MS), ADW_PASS);
    assert_int_equal(a.out_port, 0);
    lab_sta_acks(f->s, 0, 40, 3 * MS); /* covers the last released byte: V = 3 ms */
    sched_dequeue_all(f->s, 40 * MS); /* frame 0 ends */
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.n_pairs, 2);
    assert_string_equal(rep.pr[0].name, "ap1/sta1");
    assert_int_equal(rep.pr[0].v_ns, 3 * MS);
    assert_int_equal(rep.pr[0].r_pkts, 57); /* 40 + 1 pkt/ms * (20 - 3) ms */
    assert_int_equal(rep.pr[0].released_pkts, 40);
    assert_int_equal(rep.pr[0].queue_pkts, 0);
    assert_int_equal(rep.pr[0].rate_bps, (uint64_t)(40 / 3.0 * 1000 * 1500 * 8)); /* 40 packets drained in 3 ms */
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_completed, 1);
    assert_int_equal(st.pass_uplink, 2);
}

/* The ACK of the last segments never comes (lost, or held by the receiver's delayed-ACK timer): the drain is
 * closed at the pair's next batch, and as nothing of it was heard for a slice, V is the time to the last ACK
 * heard, not the 40 ms to the close (release.c, silent_drain_v). */
static void test_lost_final_ack_closes_the_drain_with_v_at_the_last_ack_heard(void **state)
{
    struct sched_fixture *f = *state;
    sta1_batch_at_0(f->s, 100);
    lab_sta_acks(f->s, 0, 38, 2 * MS); /* the ACKs of the last two segments never come */
    sched_dequeue_all(f->s, 40 * MS);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_superseded, 1); /* open 40 ms at the next batch, under the 60 ms cap */
    assert_int_equal(st.drains_silent, 1);
    assert_int_equal(st.drains_completed, 0);
    assert_sta1_v_and_r_in_frame1(f->s, 2 * MS, 58); /* 40 + (20 - 2) */
}

/* A drain still heard from within the last slice when it is closed was still delivering: V is the close time. */
static void test_drain_heard_from_within_a_slice_of_its_close_takes_the_close_time(void **state)
{
    struct sched_fixture *f = *state;
    sta1_batch_at_0(f->s, 100);
    lab_sta_acks(f->s, 0, 30, 25 * MS); /* 15 ms before the close */
    sched_dequeue_all(f->s, 40 * MS);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_superseded, 1);
    assert_int_equal(st.drains_silent, 0);
    assert_sta1_v_and_r_in_frame1(f->s, 40 * MS, 20); /* 40 + (20 - 40) */
}

/* The STA resets the connection (a transfer's end) with the batch still at the AP; its RSTs to the data still
 * delivered keep the drain from counting as silent, and no ACK will end it. Closed at the next batch, it is no
 * drain time: r stays (no eq. (1) sample) and the report shows no V for it (release.c, adw_finish_drain). */
static void test_drain_to_a_connection_the_sta_reset_gives_no_v(void **state)
{
    struct sched_fixture *f = *state;
    sta1_batch_at_0(f->s, 100);
    for (uint64_t t = 5; t <= 35; t += 10) { /* a RST for every segment that still arrives */
        struct fb_tcp rst = lab_up_ack(0, 1 + 10 * 1448);
        rst.flags = ADW_TCP_RST | ADW_TCP_ACK;
        uint8_t *b = lab_buf();
        struct adw_pkt p = {.data = b, .len = fb_tcp(b, 1600, &rst), .in_port = 1, .cookie = b};
        sched_enqueue1(f->s, &p, t * MS);
    }
    sched_dequeue_all(f->s, 40 * MS);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_unmeasured, 1);
    assert_int_equal(st.drains_superseded, 1);
    assert_int_equal(st.drains_silent, 0);
    struct adw_pair_report r = sta1_report_of_frame1(f->s);
    assert_int_equal(r.drains, 0);
    assert_int_equal(r.r_pkts, 40); /* r_init, untouched (V = 40 ms would have made it 20) */
}

/* A drain that overruns the frame boundary ends in the next frame, next to that frame's own drain: the report
 * counts both (drains, v_sum_ns), where v_ns shows only the last and repeats it in a frame where none ended. */
static void test_frame_report_counts_every_drain_that_ended_in_it(void **state)
{
    struct sched_fixture *f = *state;
    lab_enqueue_data(f->s, 1, 1, 75, 0); /* two batches, 40 + 35: nothing left for a refill (test_refill.c) */
    sched_dequeue_all(f->s, 20 * MS); /* STA2's batch of frame 0: 40 packets */
    sched_dequeue_all(f->s, 40 * MS);
    lab_sta_acks(f->s, 1, 40, 45 * MS); /* ends in frame 1: V = 25 ms, r = 35 */
    sched_dequeue_all(f->s, 60 * MS);
    lab_sta_acks(f->s, 1, 75, 75 * MS); /* frame 1's batch: V = 15 ms */
    sched_dequeue_all(f->s, 80 * MS);
    struct sched_frame rep = sched_next_frame(f->s); /* frame 0 */
    assert_int_equal(rep.pr[1].drains, 0);
    assert_int_equal(rep.pr[1].v_sum_ns, 0);
    rep = sched_next_frame(f->s); /* frame 1 */
    assert_int_equal(rep.pr[1].drains, 2);
    assert_int_equal(rep.pr[1].v_sum_ns, 40 * MS);
    assert_int_equal(rep.pr[1].v_ns, 15 * MS);
    assert_int_equal(rep.pr[0].drains, 0);
}

/* 004 §5: the next slice starts when the previous pair's activity has ended. AP2's batch waits while the
 * conflicting AP1-STA1 drain is still in the air at its slice start (open, its ACKs still coming), and goes when
 * that drain ends, scaled to the slice time left. */
static void test_batch_waits_while_a_conflicting_pair_still_drains(void **state)
{
    struct sched_fixture *f = *state;
    sta2_queued_behind_sta1s_batch(f->s);
    lab_sta_acks(f->s, 0, 20, 19 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0); /* AP1's batch is still in the air */
    lab_sta_acks(f->s, 0, 40, 21 * MS);
    assert_int_equal(adw_sched_next_event_ns(f->s, 21 * MS), 21 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 21 * MS), 38); /* r = 40 for 20 ms, 19 ms left */
    assert_int_equal(sched_out[0].out_port, 2);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.slice_deferrals, 1);
    assert_int_equal(st.slice_deferred_ns, 1 * MS);
}

/* A STA's ACKs pause for 10-22 ms while its AP still sends (they lose contention to the AP's A-MPDUs): a drain
 * gone quiet is still in the air, and the batch waits for its end, not for a fixed time. */
static void test_deferred_batch_waits_for_a_conflicting_drain_whose_acks_pause(void **state)
{
    struct sched_fixture *f = *state;
    sta2_queued_behind_sta1s_batch(f->s);
    lab_sta_acks(f->s, 0, 10, 1 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
    assert_int_equal(adw_sched_next_event_ns(f->s, 20 * MS), 40 * MS); /* the slice end at the latest */
    assert_int_equal(sched_dequeue_all(f->s, 35 * MS - 1), 0);
    lab_sta_acks(f->s, 0, 40, 35 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 35 * MS), 10); /* 5 ms of the slice left */
    assert_int_equal(sched_out[0].out_port, 2);
}

/* A drain still acknowledged is still in the air, however long it overruns: releasing into it would make the
 * two hidden APs collide. */
static void test_deferred_batch_waits_while_the_conflicting_drain_is_still_acknowledged(void **state)
{
    struct sched_fixture *f = *state;
    sta2_queued_behind_sta1s_batch(f->s);
    lab_sta_acks(f->s, 0, 10, 19 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
    lab_sta_acks(f->s, 0, 20, 27 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 30 * MS), 0);
    assert_int_equal(adw_sched_next_event_ns(f->s, 30 * MS), 40 * MS);
    lab_sta_acks(f->s, 0, 40, 34 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 34 * MS), 12); /* 6 ms left: 40 x 6 / 20 */
    assert_int_equal(sched_out[0].out_port, 2);
}

/* A conflicting drain in the air until the end of the waiting slice took that slice: the waiting batch is
 * skipped, not released into the next slice (the conflicting pair's own). */
static void test_deferred_batch_is_skipped_when_its_slice_ends_under_the_conflicting_drain(void **state)
{
    struct sched_fixture *f = *state;
    sta2_queued_behind_sta1s_batch(f->s);
    for (unsigned k = 1; k <= 4; k++) {
        lab_sta_acks(f->s, 0, k * 7, (15 + 5 * k) * MS); /* 20, 25, 30, 35 ms */
        assert_int_equal(sched_dequeue_all(f->s, (15 + 5 * k) * MS), 0);
    }
    unsigned n = sched_dequeue_all(f->s, 40 * MS); /* AP1's next slice */
    sched_assert_out_to(n, 1);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.slice_deferrals, 1);
    assert_int_equal(st.slice_deferrals_expired, 1);
    assert_int_equal(st.pool_in_use, 100 + 60 - n);
}

/* Without a conflicting drain in the air (it ended) the batch goes at the slice start, whole. */
static void test_batch_is_not_deferred_when_the_conflicting_drain_ended(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(sta1_batch_at_0(f->s, 40), 40); /* one batch: no refill when it drains (test_refill.c) */
    lab_sta_acks(f->s, 0, 40, 15 * MS);
    lab_enqueue_data(f->s, 1, 1, 100, 16 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 40);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.slice_deferrals, 0);
}

/* A slow drain may pull Q_eBDP under the batch size; the queue still holds two batches, else every batch
 * would be under-filled and neither r nor the limit could recover. */
static void test_queue_limit_holds_two_batches_when_ebdp_says_less(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.queue_sizing.t_max_ns = 20 * MS; /* Q_eBDP = 20 ms / 0.5 ms + 5 = 45 after the drain below */
    sched_fixture_recreate(f, NULL);
    assert_int_equal(sta1_batch_at_0(f->s, 40), 40);
    lab_sta_acks(f->s, 0, 40, 10 * MS); /* V = 10 ms: r = 40 + 10 = 50, T_serv = 10/40 ms x 40/20 = 0.5 ms */
    lab_enqueue_data(f->s, 0, 1 + 40 * 1448, 60, 11 * MS); /* after the drain: no refill (test_refill.c) */
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 50);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.pr[0].r_pkts, 50);
    assert_int_equal(rep.pr[0].limit_pkts, 100); /* two batches, not 45 */
    assert_int_equal(lab_enqueue_data(f->s, 0, 1 + 100 * 1448, 120, 41 * MS), 90); /* 10 held + 90 = 100 */
}

static void test_drain_open_past_the_cap_is_closed_at_the_cap(void **state)
{
    struct sched_fixture *f = *state;
    recreate_with_a_30ms_drain_cap(f);
    sta1_batch_at_0(f->s, 100);
    sched_dequeue_all(f->s, 40 * MS);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_capped, 1);
    assert_int_equal(st.drains_superseded, 0);
    assert_sta1_v_and_r_in_frame1(f->s, 30 * MS, 30); /* 40 + (20 - 30) */
}

/* The ACK that covers the batch comes after the cap (35 ms, cap 30 ms) but before the pair's next batch: the drain
 * was still open at the cap, so it is closed at the cap as one that never completed (config.h v_cap_factor,
 * tsabr.h): V = 30 ms, and no drain rate is taken from it (40 packets in 30 ms, which is not what drained). */
static void test_a_drain_that_ends_past_the_cap_is_closed_at_the_cap(void **state)
{
    struct sched_fixture *f = *state;
    recreate_with_a_30ms_drain_cap(f);
    assert_int_equal(sta1_batch_at_0(f->s, 40), 40);
    lab_sta_acks(f->s, 0, 40, 35 * MS);
    sched_dequeue_all(f->s, 40 * MS);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_capped, 1);
    assert_int_equal(st.drains_completed, 0);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.pr[0].v_ns, 30 * MS);
    assert_int_equal(rep.pr[0].r_pkts, 30); /* 40 + (20 - 30) */
    assert_int_equal(rep.pr[0].rate_bps, 0);
}

static void test_batch_scales_with_the_length_of_the_slice(void **state)
{
    struct sched_fixture *f = *state;
    /* STA1 in slice 0 (20 ms) and slice 2 (40 ms); STA2 in slice 1 (20 ms): an 80 ms frame. */
    f->cfg->n_slices = 3;
    f->cfg->slices[2] = f->cfg->slices[0];
    f->cfg->slices[2].duration_ns = 40 * MS;
    sched_fixture_recreate(f, NULL);
    /* Data comes after each drain has ended, so no refill goes into the time left (test_refill.c). */
    assert_int_equal(sta1_batch_at_0(f->s, 40), 40);
    lab_sta_acks(f->s, 0, 40, 10 * MS); /* V = 10 ms in a 20 ms slice: r = 40 + 10 = 50 */
    lab_enqueue_data(f->s, 0, 1 + 40 * 1448, 100, 11 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 100); /* twice the slice, twice the batch */
    lab_sta_acks(f->s, 0, 140, 60 * MS); /* 100 packets in 20 ms of a 40 ms slice: as 50 in 10 ms of 20: r = 60 */
    lab_enqueue_data(f->s, 0, 1 + 140 * 1448, 100, 61 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 80 * MS), 60);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drains_completed, 2);
}

static void test_unmanaged_traffic_passes_straight_through(void **state)
{
    struct sched_fixture *f = *state;
    uint8_t b[4][128];
    struct adw_pkt p[5];
    enum adw_verdict v[5];
    p[0] = (struct adw_pkt){.data = b[0], .len = fb_arp(b[0], 128, LAB_SRV_MAC), .in_port = 0};
    uint8_t other_mac[6] = {0x02, 0x99, 0, 0, 0, 1}, other_ip[4] = {198, 18, 0, 99};
    p[1] = (struct adw_pkt){
        .data = b[1], .len = fb_udp4(b[1], 128, LAB_SRV_MAC, other_mac, LAB_SRV_IP, other_ip, 0, 1, 2, 10)};
    p[2] = (struct adw_pkt){.data = b[2],
                            .len = fb_udp4(b[2], 128, LAB_SRV_MAC, LAB_STA_MAC[0], LAB_SRV_IP, LAB_STA_IP[0], 0,
                                           67, 68, 300 - 28 - 14 > 100 ? 60 : 60)}; /* DHCP-like, non-RT */
    memset(b[3], 0xab, 10);
    p[3] = (struct adw_pkt){.data = b[3], .len = 10, .in_port = 0}; /* runt */
    p[4] = lab_up_ack_pkt(1, 5);
    adw_sched_enqueue_burst(f->s, p, v, 5, 1 * MS);
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(v[i], ADW_PASS);
    assert_int_equal(p[0].out_port, ADW_PORT_FLOOD);
    assert_int_equal(p[1].out_port, ADW_PORT_FLOOD);
    assert_int_equal(p[2].out_port, 1);
    assert_int_equal(p[3].out_port, ADW_PORT_FLOOD);
    assert_int_equal(p[4].out_port, 0);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.pass_broadcast, 1);
    assert_int_equal(st.pass_unknown, 1);
    assert_int_equal(st.pass_other, 1);
    assert_int_equal(st.malformed, 1);
    assert_int_equal(st.pass_uplink, 1);
    assert_int_equal(st.rx_pkts, 5);
}

/* A frame the parser refuses is counted as malformed whichever side it comes from, also when it is addressed to a
 * group (stats.h: malformed counts the frames the parser refused). */
static void test_a_malformed_multicast_frame_from_an_ap_is_counted_as_malformed(void **state)
{
    struct sched_fixture *f = *state;
    struct fb_tcp t = lab_up_ack(0, 5);
    t.dst_mac[0] = 0x01; /* a group address */
    uint8_t *b = lab_buf();
    struct adw_pkt p = {.data = b, .len = fb_tcp(b, 1600, &t), .in_port = 1};
    b[14] = 0x43; /* IPv4 with IHL 3: refused by the parser */
    assert_int_equal(sched_enqueue1(f->s, &p, 1 * MS), ADW_PASS);
    assert_int_equal(p.out_port, ADW_PORT_FLOOD);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.malformed, 1);
    assert_int_equal(st.pass_broadcast, 0);
}

static void test_queue_limit_drops_are_counted(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.queue_sizing.q_max_pkts = 32;
    f->cfg->policies.queue_sizing.q_min_pkts = 32;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    assert_int_equal(lab_enqueue_data(f->s, 1, 1, 40, 0), 32);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drops_tail, 8);
    assert_int_equal(st.queued_data, 32);
    sched_dequeue_all(f->s, 40 * MS);
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    adw_sched_poll_frame(f->s, &fr, pr, 2);
    assert_int_equal(pr[1].drops_tail, 8);
    assert_int_equal(pr[1].limit_pkts, 32);
}

static void test_pool_exhaustion_drops_are_counted(void **state)
{
    struct sched_fixture *f = *state;
    struct adw_sched_params prm = {.pool_pkts = 16};
    sched_fixture_recreate(f, &prm);
    assert_int_equal(lab_enqueue_data(f->s, 1, 1, 20, 0), 16);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drops_pool, 4);
    assert_int_equal(st.pool_in_use, 16);
}

/* Frames the backend keeps in buffers of the same pool (its TX backlogs) come out of the budget: with 10 of 16 lent
 * the core holds 6, and what is given back it may hold again. */
static void test_packets_lent_to_the_backend_come_out_of_the_pool_budget(void **state)
{
    struct sched_fixture *f = *state;
    struct adw_sched_params prm = {.pool_pkts = 16};
    sched_fixture_recreate(f, &prm);
    adw_sched_pool_lend(f->s, 10);
    assert_int_equal(adw_sched_pool_lent(f->s), 10);
    assert_int_equal(adw_sched_pool_room(f->s), 6);
    assert_int_equal(lab_enqueue_data(f->s, 1, 1, 8, 0), 6);
    assert_int_equal(adw_sched_pool_room(f->s), 0);
    assert_int_equal(sched_stats(f->s).drops_pool, 2);
    adw_sched_pool_give_back(f->s, 4);
    assert_int_equal(adw_sched_pool_lent(f->s), 6);
    assert_int_equal(adw_sched_pool_room(f->s), 4);
    assert_int_equal(lab_enqueue_data(f->s, 1, 1 + 8 * 1448, 6, 0), 4);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drops_pool, 4);
    assert_int_equal(st.pool_in_use, 10);
}

static void test_config_swaps_only_at_frame_boundary(void **state)
{
    struct sched_fixture *f = *state;
    sched_dequeue_all(f->s, 0);
    struct adw_config *c2 = lab_version_2(10);
    char err[256];
    assert_int_equal(adw_sched_set_config(f->s, c2, 5 * MS, err, sizeof(err)), 0);
    sched_dequeue_all(f->s, 20 * MS);
    assert_int_equal(adw_sched_active_version(f->s), 1);
    assert_int_equal(adw_sched_next_event_ns(f->s, 20 * MS), 40 * MS); /* still the 20 ms slices */
    sched_dequeue_all(f->s, 39 * MS);
    assert_int_equal(adw_sched_active_version(f->s), 1);
    sched_dequeue_all(f->s, 40 * MS);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_int_equal(adw_sched_next_event_ns(f->s, 40 * MS), 50 * MS); /* the new 10 ms slices */
    struct adw_frame_report fr;
    assert_int_equal(adw_sched_poll_frame(f->s, &fr, NULL, 0), 1);
    assert_int_equal(fr.version, 1);
    assert_int_equal(fr.frame_ns, 40 * MS);
    free(c2);
}

static void test_invalid_config_is_refused_whole_naming_the_field(void **state)
{
    struct sched_fixture *f = *state;
    struct adw_config *c2 = lab_version_2(20);
    c2->slices[1].pairs[0] = 0; /* ap1/sta1 twice in the frame is fine, but now sta2 is in no slice */
    char err[256];
    assert_int_equal(adw_sched_set_config(f->s, c2, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "ap2/sta2"));
    c2->slices[1].pairs[0] = 7;
    assert_int_equal(adw_sched_set_config(f->s, c2, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "slice_map.slices[1].pairs[0]"));
    assert_version_1_runs_on_after_refusals(f->s, 2);
    free(c2);
}

/* A version built in code with an aggregation target no file could carry (the loader's bounds): refused before anything
 * of it is staged, so the version in force keeps running and nothing swaps at the boundary. */
static void test_a_version_with_an_aggregation_target_out_of_bounds_is_refused_whole(void **state)
{
    struct sched_fixture *f = *state;
    struct adw_config *c2 = lab_version_2(20);
    c2->policies.aggregation_target.n_target_max = 100000;
    char err[256];
    assert_int_equal(adw_sched_set_config(f->s, c2, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "policies.aggregation_target.n_target_max"));
    assert_version_1_runs_on_after_refusals(f->s, 1);
    free(c2);
}

static void test_removed_pair_held_packets_are_dropped_with_a_cause(void **state)
{
    struct sched_fixture *f = *state;
    sched_dequeue_all(f->s, 0);
    lab_enqueue_data(f->s, 1, 1, 5, 1 * MS); /* STA2 held until 20 ms */
    struct adw_config *c2 = lab_version_2_without_ap2();
    char err[256];
    assert_int_equal(adw_sched_set_config(f->s, c2, 2 * MS, err, sizeof(err)), 0);
    unsigned n = sched_dequeue_all(f->s, 20 * MS);
    assert_int_equal(n, 5); /* STA2's own slice still runs in this frame */
    lab_enqueue_data(f->s, 1, 8000, 3, 25 * MS);
    n = sched_dequeue_all(f->s, 40 * MS); /* the swap: STA2's 3 held packets come out as drops */
    assert_int_equal(n, 3);
    sched_assert_out_to(n, ADW_PORT_DROP);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drops_config, 3);
    assert_int_equal(st.pool_in_use, 0);
    free(c2);
}

static void test_released_packets_go_to_their_aps_port_of_the_new_version(void **state)
{
    struct sched_fixture *f = *state;
    sched_dequeue_all(f->s, 0);
    lab_queue_segments(f->s, 1, 1, 10, 1 * MS);
    struct adw_config *c2 = lab_version_2(20);
    struct adw_ap_cfg ap1 = c2->aps[0];
    c2->aps[0] = c2->aps[1], c2->aps[1] = ap1; /* ap2 is port 1 now, ap1 port 2; each STA keeps its AP */
    c2->stas[0].ap = 1, c2->stas[1].ap = 0;
    assert_int_equal(adw_sched_set_config(f->s, c2, 2 * MS, NULL, 0), 0);
    free(c2);
    /* STA2's slice start (20 ms) releases its 10 under version 1 (port 2), one is handed out; the frame boundary
     * (40 ms) swaps version 2 in before the other 9 are. */
    struct adw_pkt first;
    assert_int_equal(adw_sched_dequeue_burst(f->s, &first, 1, 20 * MS), 1);
    assert_int_equal(first.out_port, 2);
    unsigned n = sched_dequeue_all(f->s, 41 * MS);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    assert_int_equal(n, 9);
    sched_assert_out_to(n, 1);
}

static void test_released_packets_of_a_removed_ap_are_dropped_with_a_cause(void **state)
{
    struct sched_fixture *f = *state;
    sched_dequeue_all(f->s, 0);
    lab_queue_segments(f->s, 1, 1, 5, 1 * MS);
    struct adw_config *c2 = lab_version_2_without_ap2();
    assert_int_equal(adw_sched_set_config(f->s, c2, 2 * MS, NULL, 0), 0);
    free(c2);
    /* Released at 20 ms to port 2, which version 2 does not have: one handed out, 4 still due at the swap at
     * 40 ms. */
    struct adw_pkt first;
    assert_int_equal(adw_sched_dequeue_burst(f->s, &first, 1, 20 * MS), 1);
    assert_int_equal(first.out_port, 2);
    unsigned n = sched_dequeue_all(f->s, 41 * MS);
    assert_int_equal(n, 4);
    sched_assert_out_to(n, ADW_PORT_DROP);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.drops_config, 4);
    assert_int_equal(st.released_pkts, 1);
}

static void test_kept_pair_keeps_its_batch_size_across_versions(void **state)
{
    struct sched_fixture *f = *state;
    sta1_batch_at_0(f->s, 40); /* one batch: no refill when it drains (test_refill.c) */
    lab_sta_acks(f->s, 0, 40, 3 * MS); /* r -> 57 */
    struct adw_config *c2 = lab_version_2(20);
    assert_int_equal(adw_sched_set_config(f->s, c2, 4 * MS, NULL, 0), 0);
    lab_enqueue_data(f->s, 0, 1 + 100 * 1448, 100, 5 * MS);
    sched_dequeue_all(f->s, 20 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 40 * MS), 57);
    assert_int_equal(adw_sched_active_version(f->s), 2);
    free(c2);
}

static void test_flush_releases_everything_held(void **state)
{
    struct sched_fixture *f = *state;
    lab_enqueue_data(f->s, 0, 1, 50, 0);
    lab_enqueue_data(f->s, 1, 1, 30, 0);
    struct adw_pkt v = lab_voice_pkt(1);
    sched_enqueue1(f->s, &v, 0);
    sched_dequeue_all(f->s, 0);      /* 1 voice handed out */
    sched_dequeue_all(f->s, 1 * MS); /* and 38 of STA1 (r = 40 for the 19 ms left), a guard after the voice */
    unsigned n = 0, k;
    while ((k = adw_sched_flush(f->s, sched_out + n, 7)) > 0)
        n += k;
    assert_int_equal(n, 12 + 30);
    unsigned to1 = 0, to2 = 0;
    for (unsigned i = 0; i < n; i++)
        to1 += sched_out[i].out_port == 1, to2 += sched_out[i].out_port == 2;
    assert_int_equal(to1, 12);
    assert_int_equal(to2, 30);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.pool_in_use, 0);
    assert_int_equal(st.released_pkts, 81);
}

static void test_dynamic_slicing_gives_idle_slice_away_and_takes_it_back(void **state)
{
    struct sched_fixture *f = *state;
    f->cfg->policies.dynamic_slicing.enabled = true;
    sched_fixture_recreate(f, NULL);
    assert_int_equal(sta1_batch_at_0(f->s, 300), 40); /* STA1 bulk, STA2 in think time */
    /* STA2's slice goes to STA1; its first drain ends at 20 ms = S: r stays 40 */
    lab_sta_acks(f->s, 0, 40, 20 * MS);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 40);
    assert_int_equal(sched_out[0].out_port, 1);
    lab_enqueue_data(f->s, 1, 1, 10, 30 * MS); /* STA2 wants again */
    lab_sta_acks(f->s, 0, 80, 40 * MS); /* STA1's batches drain in S, each before the next slice */
    sched_dequeue_all(f->s, 40 * MS);
    lab_sta_acks(f->s, 0, 120, 60 * MS);
    /* and gets its own slice back at its start */
    assert_int_equal(sched_dequeue_all(f->s, 60 * MS), 10);
    assert_int_equal(sched_out[0].out_port, 2);
    sched_dequeue_all(f->s, 80 * MS);
    struct sched_frame rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.reassignments, 1);
    assert_int_equal(rep.fr.given_to[1], 0);
    assert_int_equal(rep.fr.given_to[0], ADW_PAIR_NONE);
    assert_int_equal(rep.pr[1].reassigned, 1);
    assert_int_equal(rep.pr[0].s_ns, 40 * MS);
    rep = sched_next_frame(f->s);
    assert_int_equal(rep.fr.reassignments, 0);
    assert_int_equal(rep.fr.given_to[1], ADW_PAIR_NONE);
    assert_int_equal(rep.pr[1].reassigned, 0);
}

static void test_idle_slice_is_not_given_away_without_dynamic_slicing(void **state)
{
    struct sched_fixture *f = *state;
    sta1_batch_at_0(f->s, 300);
    assert_int_equal(sched_dequeue_all(f->s, 20 * MS), 0);
}

static void test_late_dequeue_skips_whole_frames(void **state)
{
    struct sched_fixture *f = *state;
    sched_dequeue_all(f->s, 0);
    sched_dequeue_all(f->s, 1000 * MS + 5 * MS);
    struct adw_stats st = sched_stats(f->s);
    assert_int_equal(st.frames_skipped, 24); /* frames 1..24 skipped, frame 25 starts at 1000 ms */
    assert_int_equal(adw_sched_next_event_ns(f->s, 1005 * MS), 1020 * MS);
}

/* A stall of the loop past the end of a slice (the host did not run it): that slice's batch, released when the loop
 * comes back, would go out in the next pair's slice, on the air with it (004 §2: a pair's packets only in its own
 * slice). The slice is skipped, counted, and the pair sends in its next one. */
static void test_a_slice_over_before_a_late_dequeue_releases_no_batch(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 1, 1, 100, 0);
    assert_int_equal(sched_dequeue_all(f->s, 0), 0);
    assert_int_equal(sched_dequeue_all(f->s, 45 * MS), 0); /* slice 1 ran 20-40 ms; slice 0 of frame 1 is sta1's */
    assert_int_equal(sched_stats(f->s).slices_skipped, 1);
    unsigned n = sched_dequeue_all(f->s, 60 * MS);
    assert_int_equal(n, 40); /* r_init, in its slice 60-80 ms */
    sched_assert_out_to(n, 2);
    assert_int_equal(sched_stats(f->s).slices_skipped, 1);
}

/* The stall of the test above, seen per frame: --stats counted skipped slices only in total, so an operator could
 * not tell which slices of which frame the loop came to too late. Frame 0's slice 1 (20-40 ms, STA2's) was over at
 * 45 ms; frame 1's slice 0 (40-60 ms) was not and sent. */
static void test_the_frame_report_says_which_slices_were_skipped(void **state)
{
    struct sched_fixture *f = *state;
    lab_queue_segments(f->s, 1, 1, 100, 0);
    sched_dequeue_all(f->s, 0);
    sched_dequeue_all(f->s, 45 * MS);
    sched_dequeue_all(f->s, 60 * MS);
    sched_dequeue_all(f->s, 80 * MS);
    assert_int_equal(sched_next_frame(f->s).fr.skipped_slices, UINT64_C(1) << 1);
    assert_int_equal(sched_next_frame(f->s).fr.skipped_slices, 0);
}

/* A slice over before the loop came to it in which no pair had anything to send held nothing back (the first slice,
 * anchored when the scheduler was made, before a backend's ports started): it is not counted as skipped. */
static void test_a_slice_over_with_nothing_queued_is_not_counted_skipped(void **state)
{
    struct sched_fixture *f = *state;
    assert_int_equal(sched_dequeue_all(f->s, 25 * MS), 0);
    assert_int_equal(sched_stats(f->s).slices_skipped, 0);
    sched_dequeue_all(f->s, 40 * MS);
    assert_int_equal(sched_next_frame(f->s).fr.skipped_slices, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_batch_is_released_only_at_its_slice_start),
        LAB_TEST(test_a_slice_over_before_a_late_dequeue_releases_no_batch),
        LAB_TEST(test_a_slice_over_with_nothing_queued_is_not_counted_skipped),
        LAB_TEST(test_the_frame_report_says_which_slices_were_skipped),
        LAB_TEST(test_packets_of_a_pair_outside_the_current_slice_are_held),
        LAB_TEST(test_batch_holds_r_packets_and_keeps_the_rest),
        LAB_TEST(test_drain_from_returning_ack_updates_r),
        LAB_TEST(test_lost_final_ack_closes_the_drain_with_v_at_the_last_ack_heard),
        LAB_TEST(test_drain_heard_from_within_a_slice_of_its_close_takes_the_close_time),
        LAB_TEST(test_drain_to_a_connection_the_sta_reset_gives_no_v),
        LAB_TEST(test_frame_report_counts_every_drain_that_ended_in_it),
        LAB_TEST(test_batch_waits_while_a_conflicting_pair_still_drains),
        LAB_TEST(test_deferred_batch_waits_for_a_conflicting_drain_whose_acks_pause),
        LAB_TEST(test_deferred_batch_waits_while_the_conflicting_drain_is_still_acknowledged),
        LAB_TEST(test_deferred_batch_is_skipped_when_its_slice_ends_under_the_conflicting_drain),
        LAB_TEST(test_batch_is_not_deferred_when_the_conflicting_drain_ended),
        LAB_TEST(test_queue_limit_holds_two_batches_when_ebdp_says_less),
        LAB_TEST(test_drain_open_past_the_cap_is_closed_at_the_cap),
        LAB_TEST(test_a_drain_that_ends_past_the_cap_is_closed_at_the_cap),
        LAB_TEST(test_batch_scales_with_the_length_of_the_slice),
        LAB_TEST(test_unmanaged_traffic_passes_straight_through),
        LAB_TEST(test_a_malformed_multicast_frame_from_an_ap_is_counted_as_malformed),
        LAB_TEST(test_queue_limit_drops_are_counted),
        LAB_TEST(test_pool_exhaustion_drops_are_counted),
        LAB_TEST(test_packets_lent_to_the_backend_come_out_of_the_pool_budget),
        LAB_TEST(test_config_swaps_only_at_frame_boundary),
        LAB_TEST(test_invalid_config_is_refused_whole_naming_the_field),
        LAB_TEST(test_a_version_with_an_aggregation_target_out_of_bounds_is_refused_whole),
        LAB_TEST(test_removed_pair_held_packets_are_dropped_with_a_cause),
        LAB_TEST(test_released_packets_go_to_their_aps_port_of_the_new_version),
        LAB_TEST(test_released_packets_of_a_removed_ap_are_dropped_with_a_cause),
        LAB_TEST(test_kept_pair_keeps_its_batch_size_across_versions),
        LAB_TEST(test_flush_releases_everything_held),
        LAB_TEST(test_dynamic_slicing_gives_idle_slice_away_and_takes_it_back),
        LAB_TEST(test_idle_slice_is_not_given_away_without_dynamic_slicing),
        LAB_TEST(test_late_dequeue_skips_whole_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
