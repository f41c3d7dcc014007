/*
 * test_sched_traffic.c — classification and release through the public API: IPv6 and VLAN-tagged frames,
 * ACK isolation (SPEC §3.6), uplink-transfer drain inference, and the full scale (4096 STAs, 512 APs,
 * 64 slices per frame), new versions at that scale included.
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

static const uint8_t STA2_IP6[16] = {0x20, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12}; /* RFC 5180 */
static const uint8_t SRV_IP6[16] = {0x20, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01};
static const uint8_t ROUTER_MAC[6] = {0x02, 0xad, 0, 0, 0, 0x77};

static uint8_t bufs[9000][1600];
static unsigned nb;
static struct adw_pkt out[10000];

static struct adw_pkt pkt_of(const struct fb_tcp *t, uint16_t in_port)
{
    assert_true(nb < 9000);
    uint8_t *b = bufs[nb++];
    return (struct adw_pkt){.data = b, .len = fb_tcp(b, 1600, t), .in_port = in_port, .cookie = b};
}

static unsigned drain_out(struct adw_sched *s, uint64_t now)
{
    unsigned n = 0, k;
    while ((k = adw_sched_dequeue_burst(s, out + n, 100, now)) > 0)
        n += k;
    return n;
}

static enum adw_verdict enq(struct adw_sched *s, struct adw_pkt *p, uint64_t now)
{
    enum adw_verdict v;
    adw_sched_enqueue_burst(s, p, &v, 1, now);
    return v;
}

static void test_routed_ipv6_packet_is_classified_by_destination_address(void **st)
{
    struct sched_fixture *f = *st;
    struct adw_config *c = f->cfg;
    c->stas[1].n_addrs = 2;
    c->stas[1].addrs[1].family = 6;
    memcpy(c->stas[1].addrs[1].addr, STA2_IP6, 16);
    sched_fixture_recreate(f, NULL);
    struct adw_sched *s = f->s;
    nb = 0;
    assert_non_null(s);
    struct fb_tcp t = {.ip_version = 6, .sport = 443, .dport = 50000, .seq = 7, .flags = ADW_TCP_ACK,
                       .payload_len = 50};
    memcpy(t.src_mac, LAB_SRV_MAC, 6);
    memcpy(t.dst_mac, ROUTER_MAC, 6); /* not the STA's MAC: only the IPv6 address identifies it */
    memcpy(t.src_ip, SRV_IP6, 16);
    memcpy(t.dst_ip, STA2_IP6, 16);
    struct adw_pkt p = pkt_of(&t, 0);
    assert_int_equal(enq(s, &p, 0), ADW_QUEUED);
    assert_int_equal(drain_out(s, 20 * MS), 1);
    assert_int_equal(out[0].out_port, 2);
}

static void test_vlan_tagged_frame_is_managed(void **st)
{
    struct adw_sched *s = ((struct sched_fixture *)*st)->s;
    nb = 0;
    struct fb_tcp t = lab_down_tcp(0, 1, 100);
    t.n_vlans = 2;
    struct adw_pkt p = pkt_of(&t, 0);
    assert_int_equal(enq(s, &p, 0), ADW_QUEUED);
}

static void test_acks_are_isolated_from_data_in_the_batch(void **st)
{
    struct adw_sched *s = ((struct sched_fixture *)*st)->s;
    nb = 0;
    for (unsigned i = 0; i < 100; i++) {
        struct fb_tcp t = lab_down_tcp(0, 1 + i * 1000, 1000);
        struct adw_pkt p = pkt_of(&t, 0);
        enq(s, &p, 0);
    }
    uint8_t *first_ack = NULL;
    for (unsigned i = 0; i < 30; i++) { /* the server's ACKs of an upload by the same STA */
        struct fb_tcp t = lab_down_tcp(0, 555, 0);
        t.sport = 5201, t.dport = 41000, t.ack = 1000 + i * 2896;
        struct adw_pkt p = pkt_of(&t, 0);
        if (i == 0)
            first_ack = (uint8_t *)p.cookie;
        enq(s, &p, 0);
    }
    struct adw_stats sts = sched_stats(s);
    assert_int_equal(sts.queued_ack, 30);
    assert_int_equal(sts.queued_data, 100);
    assert_int_equal(drain_out(s, 0), 40);
    /* The ACKs queued behind 100 data packets are not stuck behind them: half the batch is ACKs. */
    assert_ptr_equal(out[0].cookie, first_ack);
    unsigned acks = 0;
    for (unsigned i = 0; i < 40; i++)
        acks += out[i].len == 54;
    assert_int_equal(acks, 20);
}

/* Queues at t = 0 `segments` segments of 1448 bytes of STA1's download to sta_port, from sequence 1, and (close_flags
 * not 0) the server's bare segment with those flags after them: that segment's cookie (NULL without one). */
static void *sta1_download_queued(struct adw_sched *s, uint16_t sta_port, unsigned segments, uint8_t close_flags)
{
    void *closing = NULL;
    for (unsigned i = 0; i <= segments; i++) {
        if (i == segments && !close_flags)
            break;
        struct fb_tcp t = lab_down_tcp(0, 1 + i * 1448, i < segments ? 1448 : 0);
        t.dport = sta_port;
        if (i == segments)
            t.flags = close_flags;
        struct adw_pkt p = pkt_of(&t, 0);
        assert_int_equal(enq(s, &p, 0), ADW_QUEUED);
        closing = i == segments ? p.cookie : NULL;
    }
    return closing;
}

/* STA1 acknowledges the first `segments` segments of its download to sta_port at now. */
static void sta1_port_acks(struct adw_sched *s, uint16_t sta_port, unsigned segments, uint64_t now)
{
    struct fb_tcp t = lab_up_ack(0, 1 + segments * 1448);
    t.sport = sta_port;
    struct adw_pkt p = pkt_of(&t, 1);
    assert_int_equal(enq(s, &p, now), ADW_PASS);
}

/* The server closes a download whose end is still queued here: its bare FIN follows that data in sequence. Sent
 * ahead of it (in the ACK queue) it reached the STA out of order, and the batch's drain, which waits for the ACK
 * of the highest sequence released, could not end before the data behind it had gone in later batches. */
static void test_a_bare_fin_goes_after_its_flows_queued_data_and_the_batch_drains_at_their_ack(void **st)
{
    struct adw_sched *s = ((struct sched_fixture *)*st)->s;
    nb = 0;
    /* 50 segments, 10 beyond the first batch: too few for a refill (refill.c) */
    void *fin = sta1_download_queued(s, 40000, 50, ADW_TCP_FIN | ADW_TCP_ACK);
    assert_int_equal(drain_out(s, 0), 40); /* r_init */
    sta1_port_acks(s, 40000, 40, 5 * MS);
    struct adw_stats sts = sched_stats(s);
    assert_int_equal(sts.drains_completed, 1); /* was 0: the batch held the FIN and 39 segments */
    for (unsigned i = 0; i < 40; i++)
        assert_ptr_not_equal(out[i].cookie, fin);
    assert_int_equal(drain_out(s, 40 * MS), 11); /* the rest, the FIN last */
    assert_ptr_equal(out[10].cookie, fin);
}

/* The server resets a download whose end is still queued here: the STA must get that data before the reset, as
 * without the appliance. In the ACK queue the RST went out ahead of it (a batch takes the ACK queue first), and the
 * data behind it reached a closed socket. The RST is never acknowledged: released, it ends its flow's wait (drain.c),
 * so the batch it closes is no drain left open to its cap; nor a V, with its data unreported (release.c). */
static void test_a_bare_rst_goes_after_its_flows_queued_data_and_no_drain_waits_for_its_ack(void **st)
{
    struct adw_sched *s = ((struct sched_fixture *)*st)->s;
    nb = 0;
    /* 50 segments, 10 beyond the first batch: too few for a refill (refill.c) */
    void *rst = sta1_download_queued(s, 40000, 50, ADW_TCP_RST | ADW_TCP_ACK);
    assert_int_equal(drain_out(s, 0), 40); /* r_init */
    for (unsigned i = 0; i < 40; i++)
        assert_ptr_not_equal(out[i].cookie, rst); /* was out[0] */
    sta1_port_acks(s, 40000, 40, 5 * MS);
    struct adw_stats sts = sched_stats(s);
    assert_int_equal(sts.drains_completed, 1);
    assert_int_equal(drain_out(s, 40 * MS), 11); /* the rest, the RST last */
    assert_ptr_equal(out[10].cookie, rst);
    adw_sched_stats_read(s, &sts);
    assert_int_equal(sts.drains_completed, 2);
    assert_int_equal(sts.drains_unmeasured, 1);
    assert_int_equal(sts.drains_capped + sts.drains_superseded, 0);
}

/* STA1's pair report of frame 0, read once the next frame started (at 40 ms). */
static struct adw_pair_report sta1_frame0_report(struct adw_sched *s)
{
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    assert_int_equal(adw_sched_poll_frame(s, &fr, pr, 2), 1);
    assert_int_equal(fr.frame, 0);
    return pr[0];
}

/* A server resets a download with its last batch just released: the RST, released after that data, closes the
 * flow's wait (drain.c) and the batch's drain ends at once, though the data is still in the AP's queue and no ACK
 * said anything of it. That end is no drain time: taken as V = 0 it grew r by a x S (40 -> 60) as if the batch had
 * drained instantly. The drain still ends at once for the conflicting pair, whose batch goes at its slice start. */
static void test_a_drain_a_server_rst_ends_with_its_data_unacked_gives_no_v_and_holds_nothing_back(void **st)
{
    struct adw_sched *s = ((struct sched_fixture *)*st)->s;
    nb = 0;
    sta1_download_queued(s, 40000, 39, ADW_TCP_RST | ADW_TCP_ACK); /* with the RST, r_init = 40 */
    for (unsigned i = 0; i < 40; i++) {
        struct fb_tcp t = lab_down_tcp(1, 1 + i * 1448, 1448);
        struct adw_pkt p = pkt_of(&t, 0);
        assert_int_equal(enq(s, &p, 0), ADW_QUEUED);
    }
    assert_int_equal(drain_out(s, 0), 40);
    assert_int_equal(drain_out(s, 20 * MS), 40); /* STA2's batch, not held back */
    drain_out(s, 40 * MS);
    struct adw_pair_report r = sta1_frame0_report(s);
    assert_int_equal(r.r_pkts, 40); /* was 60 */
    assert_int_equal(r.drains, 0);
    struct adw_stats sts = sched_stats(s);
    assert_int_equal(sts.slice_deferrals, 0);
    assert_int_equal(sts.drains_unmeasured, 1);
}

/* The same RST with another flow's data released before that flow's: the other flow's ACK ends the drain, but says
 * nothing of the reset flow's data, released after it and still in the AP's queue. No V (was 5 ms, r 40 -> 55). */
static void test_a_drain_ended_by_an_earlier_flows_ack_gives_no_v_when_a_server_rst_closed_later_data(void **st)
{
    struct adw_sched *s = ((struct sched_fixture *)*st)->s;
    nb = 0;
    sta1_download_queued(s, 40001, 20, 0);
    sta1_download_queued(s, 40000, 19, ADW_TCP_RST | ADW_TCP_ACK);
    assert_int_equal(drain_out(s, 0), 40);
    sta1_port_acks(s, 40001, 20, 5 * MS);
    drain_out(s, 40 * MS);
    struct adw_pair_report r = sta1_frame0_report(s);
    assert_int_equal(r.r_pkts, 40); /* was 55 */
    assert_int_equal(r.drains, 0);
    struct adw_stats sts = sched_stats(s);
    assert_int_equal(sts.drains_unmeasured, 1);
}

/* The other way round, the other flow's data released after the reset flow's: its ACK comes once the AP has sent
 * everything released before it (the AP sends in release order, drain.h), the reset flow's data included. V is
 * measured: 5 ms, r 40 + (20 - 5) = 55. */
static void test_a_drain_ended_by_the_ack_of_data_released_after_a_server_rst_is_measured(void **st)
{
    struct adw_sched *s = ((struct sched_fixture *)*st)->s;
    nb = 0;
    sta1_download_queued(s, 40000, 19, ADW_TCP_RST | ADW_TCP_ACK);
    sta1_download_queued(s, 40001, 20, 0);
    assert_int_equal(drain_out(s, 0), 40);
    sta1_port_acks(s, 40001, 20, 5 * MS);
    drain_out(s, 40 * MS);
    struct adw_stats sts = sched_stats(s);
    assert_int_equal(sts.drains_unmeasured, 0);
    assert_int_equal(sts.drains_completed, 1);
    struct adw_pair_report r = sta1_frame0_report(s);
    assert_int_equal(r.drains, 1);
    assert_int_equal(r.v_ns, 5 * MS);
    assert_int_equal(r.r_pkts, 55);
}

static void test_uplink_transfer_drain_ends_when_data_comes_back(void **st)
{
    struct adw_sched *s = ((struct sched_fixture *)*st)->s;
    nb = 0;
    /* Frame 0: the first released ACK teaches the flow's position; frame 1 measures. */
    for (unsigned frame = 0; frame < 2; frame++) {
        uint64_t t0 = frame * 40 * MS;
        for (unsigned i = 0; i < 4; i++) {
            struct fb_tcp t = lab_down_tcp(0, 1, 0);
            t.sport = 5201, t.dport = 41000, t.ack = 1000 + (frame * 4 + i) * 2896;
            struct adw_pkt p = pkt_of(&t, 0);
            assert_int_equal(enq(s, &p, t0), ADW_QUEUED);
        }
        assert_int_equal(drain_out(s, t0), 4);
        /* The STA's data: 2 segments per released ACK. */
        for (unsigned i = 0; i < 8; i++) {
            struct fb_tcp t = lab_up_ack(0, 0);
            t.sport = 41000, t.dport = 5201, t.payload_len = 1448;
            struct adw_pkt p = pkt_of(&t, 1);
            assert_int_equal(enq(s, &p, t0 + (i + 1) * MS), ADW_PASS);
            assert_int_equal(p.out_port, 0);
        }
    }
    drain_out(s, 80 * MS);
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    assert_int_equal(adw_sched_poll_frame(s, &fr, pr, 2), 1);
    assert_int_equal(adw_sched_poll_frame(s, &fr, pr, 2), 1);
    /* frame 0: 3 ACKs advanced 3 x 2896 = 8688 bytes -> 6 segments back after 6 ms; frame 1: 4 x 2896 -> 8 ms */
    assert_int_equal(pr[0].v_ns, 8 * MS);
    struct adw_stats sts = sched_stats(s);
    assert_int_equal(sts.drains_completed, 2);
}

/* Queues 200 downlink TCP packets of one flow to lab STA1 at t = 0: data segments of `payload` bytes in sequence,
 * or (payload 0) the server's ACKs, the i-th acknowledging 1000 + i * ack_step bytes (ack_step 0: duplicates). */
static void queue_200_to_sta1(struct adw_sched *s, uint32_t payload, uint32_t ack_step)
{
    nb = 0;
    for (unsigned i = 0; i < 200; i++) {
        struct fb_tcp t = lab_down_tcp(0, 1 + i * payload, payload);
        if (payload == 0)
            t.sport = 5201, t.dport = 41000, t.ack = 1000 + i * ack_step;
        struct adw_pkt p = pkt_of(&t, 0);
        assert_int_equal(enq(s, &p, 0), ADW_QUEUED);
    }
}

/* The server's duplicate ACKs (an uplink sender in loss recovery) acknowledge no new byte: their batch drains at
 * once (V = 0), so r grows by a * S, rather than staying where the loss put it with the ACKs queued. */
static void test_a_batch_of_duplicate_acks_drains_at_once_and_r_grows(void **st)
{
    struct adw_sched *s = ((struct sched_fixture *)*st)->s;
    queue_200_to_sta1(s, 0, 0);
    assert_int_equal(drain_out(s, 0), 40);           /* r_init */
    assert_int_equal(drain_out(s, 40 * MS), 40 + 20); /* r + a (1 packet/ms) x S (20 ms) */
    struct adw_stats sts = sched_stats(s);
    assert_int_equal(sts.drains_completed, 2);
}

/* The server's ACKs to an uplink sender that sends nothing for them (in RTO recovery, or done): no byte of its
 * data comes back for a whole frame, so the pair's air held only the AP's ACKs. The slice was left idle, not
 * overrun: V = 0 and r grows by a * S, instead of the close time (40 ms) cutting r by 20 (release.c,
 * silent_drain_v). */
/* The batch released at the frame start of the lab (r_init = 40) after queue_200_to_sta1(payload, ack_step), of
 * which nothing comes back: the size of the next frame's batch, and the scheduler's counters after it. */
static unsigned batch_after_a_silent_one(uint32_t payload, uint32_t ack_step, struct adw_stats *sts)
{
    struct adw_config *c = lab_config_2ap_2sta(20);
    struct adw_sched *s = adw_sched_create(NULL, c, 0, NULL, 0);
    queue_200_to_sta1(s, payload, ack_step);
    assert_int_equal(drain_out(s, 0), 40);
    unsigned next = drain_out(s, 40 * MS);
    adw_sched_stats_read(s, sts);
    adw_sched_free(s);
    free(c);
    return next;
}

static void test_an_ack_batch_the_sta_sends_nothing_for_is_no_overrun_and_r_grows(void **st)
{
    (void)st;
    struct adw_stats sts;
    /* Pure ACKs, each freeing two segments of the STA's, which sends nothing back. */
    assert_int_equal(batch_after_a_silent_one(0, 2896, &sts), 40 + 20); /* V = 0: r + a (1 packet/ms) x S (20 ms) */
    assert_int_equal(sts.drains_silent, 1);
    assert_int_equal(sts.drains_overrun, 0);
}

/* Downlink data of which no ACK came back may still be in the AP's queue or the air: a drain not heard from at
 * all still takes the close time (40 ms, an overrun), unlike the uplink batch above. */
static void test_a_data_batch_never_acknowledged_takes_the_close_time(void **st)
{
    (void)st;
    struct adw_stats sts;
    assert_int_equal(batch_after_a_silent_one(1448, 0, &sts), 40 - 20); /* V = 40 ms: r + a x (20 - 40) */
    assert_int_equal(sts.drains_silent, 0);
    assert_int_equal(sts.drains_overrun, 1);
}

static void test_every_packet_is_counted_exactly_once(void **st)
{
    struct sched_fixture *f = *st;
    f->cfg->policies.realtime.n_udp_ports = 1;
    f->cfg->policies.realtime.udp_ports[0] = 5004;
    struct adw_sched_params prm = {.pool_pkts = 3000};
    sched_fixture_recreate(f, &prm);
    struct adw_sched *s = f->s;
    nb = 0;
    uint32_t x = 99;
    unsigned queued = 0, handed = 0;
    for (unsigned i = 0; i < 8000; i++) {
        x = x * 1664525u + 1013904223u;
        unsigned sta = (x >> 8) & 1, kind = (x >> 9) % 6;
        struct fb_tcp t = lab_down_tcp(sta, i * 100, (x >> 12) % 3 ? 100 : 0);
        uint8_t *b = bufs[nb++];
        uint32_t len;
        uint16_t in_port = 0;
        if (kind == 0)
            len = fb_arp(b, 1600, LAB_SRV_MAC);
        else if (kind == 1)
            len = fb_udp4(b, 1600, LAB_SRV_MAC, LAB_STA_MAC[sta], LAB_SRV_IP, LAB_STA_IP[sta], 0, 5004, 5004, 20);
        if (kind == 2) { /* uplink: the STA's segment from its AP */
            struct fb_tcp u = t;
            memcpy(u.src_mac, t.dst_mac, 6), memcpy(u.dst_mac, t.src_mac, 6);
            memcpy(u.src_ip, t.dst_ip, 4), memcpy(u.dst_ip, t.src_ip, 4);
            u.sport = t.dport, u.dport = t.sport;
            t = u;
            in_port = (uint16_t)(sta + 1);
        }
        if (kind > 1)
            len = fb_tcp(b, 1600, &t);
        if (kind == 3) /* damaged in flight: one random byte flipped, length cut at random */
            b[(x >> 16) % len] ^= 0xff, len = (x >> 3) % (len + 1);
        struct adw_pkt p = {.data = b, .len = len, .in_port = in_port, .cookie = b};
        queued += enq(s, &p, i * 10000ull) == ADW_QUEUED;
        if (nb == 8999) {
            while (adw_sched_flush(s, out, 100) > 0)
                ;
            nb = 0;
        }
    }
    unsigned k;
    while ((k = adw_sched_flush(s, out + handed, 100)) > 0)
        handed += k;
    struct adw_stats sts = sched_stats(s);
    assert_int_equal(sts.rx_pkts, 8000);
    assert_int_equal(sts.rx_pkts, sts.malformed + sts.pass_uplink + sts.pass_broadcast + sts.pass_unknown +
                                      sts.pass_arp + sts.pass_other + sts.queued_data + sts.queued_ack +
                                      sts.queued_rt + sts.drops_tail + sts.drops_pool);
    assert_int_equal(sts.queued_data + sts.queued_ack + sts.queued_rt, queued);
    assert_int_equal(sts.released_pkts + sts.drops_config, queued);
    assert_true(sts.malformed > 0 && sts.queued_rt > 0 && sts.queued_ack > 0 && sts.pass_uplink > 0);
    assert_int_equal(sts.pool_in_use, 0);
}

/* 4096 STAs, 8 per AP on 512 APs, 64 slices of 15 ms each holding the 64 STAs of 8 APs. */
static struct adw_config *full_scale(void)
{
    struct adw_config *c = calloc(1, sizeof(*c));
    c->schema_version = ADW_SCHEMA_VERSION;
    c->version = 1;
    c->n_aps = ADW_MAX_APS;
    for (unsigned a = 0; a < ADW_MAX_APS; a++) {
        snprintf(c->aps[a].id, ADW_ID_LEN, "ap%u", a);
        snprintf(c->aps[a].port, ADW_PORT_NAME_LEN, "port%u", a);
    }
    c->n_stas = ADW_MAX_STAS;
    for (unsigned i = 0; i < ADW_MAX_STAS; i++) {
        struct adw_sta_cfg *s = &c->stas[i];
        snprintf(s->id, ADW_ID_LEN, "sta%u", i);
        uint8_t mac[6] = {0x02, 0, 0, 0, (uint8_t)(i >> 8), (uint8_t)i};
        memcpy(s->mac, mac, 6);
        s->n_addrs = 1;
        s->addrs[0].family = 4;
        uint8_t ip[4] = {198, 18, (uint8_t)(16 + (i >> 8)), (uint8_t)i};
        memcpy(s->addrs[0].addr, ip, 4);
        s->ap = (uint16_t)(i / 8);
    }
    c->n_slices = ADW_MAX_SLICES;
    for (unsigned k = 0; k < ADW_MAX_SLICES; k++) {
        c->slices[k].duration_ns = 15 * MS;
        c->slices[k].n_pairs = 64;
        for (unsigned j = 0; j < 64; j++)
            c->slices[k].pairs[j] = (uint16_t)(k * 64 + j);
    }
    /* neighbouring slices' first pairs conflict (they are never in one slice) */
    c->n_conflicts = ADW_MAX_SLICES - 1;
    for (unsigned k = 0; k + 1 < ADW_MAX_SLICES; k++)
        c->conflicts[k] = (struct adw_conflict_cfg){(uint16_t)(k * 64), (uint16_t)((k + 1) * 64)};
    adw_config_default_policies(&c->policies);
    return c;
}

static void test_full_scale_every_pair_released_in_its_own_slice(void **st)
{
    (void)st;
    struct adw_config *c = full_scale();
    char err[256];
    assert_int_equal(adw_config_check(c, err, sizeof(err)), 0);
    struct adw_sched *s = adw_sched_create(NULL, c, 0, err, sizeof(err));
    assert_non_null(s);
    nb = 0;
    for (unsigned i = 0; i < ADW_MAX_STAS; i++)
        for (unsigned k = 0; k < 2; k++) {
            struct fb_tcp t = {.ip_version = 4, .sport = 80, .dport = 40000, .seq = 1 + k * 500,
                               .flags = ADW_TCP_ACK, .payload_len = 500};
            memcpy(t.src_mac, LAB_SRV_MAC, 6);
            memcpy(t.dst_mac, c->stas[i].mac, 6);
            memcpy(t.src_ip, LAB_SRV_IP, 4);
            memcpy(t.dst_ip, c->stas[i].addrs[0].addr, 4);
            struct adw_pkt p = pkt_of(&t, 0);
            assert_int_equal(enq(s, &p, 1), ADW_QUEUED);
        }
    unsigned total = 0;
    for (unsigned k = 0; k < ADW_MAX_SLICES; k++) {
        unsigned n = drain_out(s, k * 15 * MS);
        for (unsigned i = 0; i < n; i++)
            assert_int_equal((out[i].out_port - 1) / 8, k); /* APs 8k..8k+7 are those of slice k */
        /* the first pair conflicts with the previous slice's first pair, which acknowledged its batch: nothing
         * is in the air, nothing waits */
        assert_int_equal(n, 128);
        total += n;
        struct fb_tcp ack = {.ip_version = 4, .sport = 40000, .dport = 80, .ack = 1 + 2 * 500, .flags = ADW_TCP_ACK};
        memcpy(ack.src_mac, c->stas[k * 64].mac, 6);
        memcpy(ack.dst_mac, LAB_SRV_MAC, 6);
        memcpy(ack.src_ip, c->stas[k * 64].addrs[0].addr, 4);
        memcpy(ack.dst_ip, LAB_SRV_IP, 4);
        struct adw_pkt a = pkt_of(&ack, (uint16_t)(c->stas[k * 64].ap + 1));
        assert_int_equal(enq(s, &a, k * 15 * MS + 7500000), ADW_PASS);
    }
    assert_int_equal(total, 2 * ADW_MAX_STAS);
    assert_int_equal(drain_out(s, 960 * MS), 0); /* frame 1: nothing left */
    struct adw_frame_report fr;
    static struct adw_pair_report pr[ADW_MAX_PAIRS];
    assert_int_equal(adw_sched_poll_frame(s, &fr, pr, ADW_MAX_PAIRS), 1);
    assert_int_equal(fr.n_pairs, ADW_MAX_PAIRS);
    assert_int_equal(fr.n_slices, ADW_MAX_SLICES);
    assert_string_equal(pr[4095].name, "ap511/sta4095");
    assert_int_equal(adw_sched_flush(s, out, 100), 0);
    adw_sched_free(s);
    free(c);
}

/* A segment of 500 bytes from the server to STA i of c, arriving at now: the test fails unless it is queued. */
static void queue_to_sta(struct adw_sched *s, const struct adw_config *c, unsigned i, uint64_t now)
{
    struct fb_tcp t = {.ip_version = 4, .sport = 80, .dport = 40000, .seq = 1, .flags = ADW_TCP_ACK,
                       .payload_len = 500};
    memcpy(t.src_mac, LAB_SRV_MAC, 6);
    memcpy(t.dst_mac, c->stas[i].mac, 6);
    memcpy(t.src_ip, LAB_SRV_IP, 4);
    memcpy(t.dst_ip, c->stas[i].addrs[0].addr, 4);
    struct adw_pkt p = pkt_of(&t, 0);
    assert_int_equal(enq(s, &p, now), ADW_QUEUED);
}

/* STA i of c acknowledges the segment of queue_to_sta at now: its drain is over. */
static void sta_acks(struct adw_sched *s, const struct adw_config *c, unsigned i, uint64_t now)
{
    struct fb_tcp ack = {.ip_version = 4, .sport = 40000, .dport = 80, .ack = 1 + 500, .flags = ADW_TCP_ACK};
    memcpy(ack.src_mac, c->stas[i].mac, 6);
    memcpy(ack.dst_mac, LAB_SRV_MAC, 6);
    memcpy(ack.src_ip, c->stas[i].addrs[0].addr, 4);
    memcpy(ack.dst_ip, LAB_SRV_IP, 4);
    struct adw_pkt a = pkt_of(&ack, (uint16_t)(c->stas[i].ap + 1));
    assert_int_equal(enq(s, &a, now), ADW_PASS);
}

/* At capacity (4096 pairs, the schema's limit, which the controller and --check-config accept), a version that
 * renames one STA is a valid document like any other: the operator replacing a STA must not be refused because the
 * pair it replaces still has its state until the swap. The segment held for the old name at the swap follows the
 * STA (same MAC) to its new pair and goes in its slice of frame 1, to its AP. */
static void test_a_version_replacing_one_sta_at_capacity_is_taken(void **st)
{
    (void)st;
    struct adw_config *c = full_scale();
    char err[256] = "";
    struct adw_sched *s = adw_sched_create(NULL, c, 0, err, sizeof(err));
    assert_non_null(s);
    nb = 0;
    assert_int_equal(drain_out(s, 945 * MS), 0); /* up to slice 63 of frame 0 */
    queue_to_sta(s, c, 4095, 950 * MS);          /* held for STA 4095's next slice */
    c->version = 2;
    snprintf(c->stas[4095].id, ADW_ID_LEN, "sta4095-replaced");
    int rc = adw_sched_set_config(s, c, 951 * MS, err, sizeof(err));
    assert_string_equal(err, "");
    assert_int_equal(rc, 0);
    assert_int_equal(drain_out(s, 960 * MS), 0);
    assert_int_equal(adw_sched_active_version(s), 2);
    assert_int_equal(drain_out(s, 1905 * MS - 1), 0);
    assert_int_equal(drain_out(s, 1905 * MS), 1); /* slice 63 of frame 1 */
    assert_int_equal(out[0].out_port, 512);
    assert_int_equal(sched_stats(s).drops_config, 0);
    adw_sched_free(s);
    free(c);
}

/* The most one version change can ask: at capacity, every STA replaced by another (new names, MACs and addresses),
 * and then the next version back to the first STAs. Each is taken and swapped in, and each new pair's segment goes
 * in its slice to its AP. */
static void test_a_version_replacing_every_sta_at_capacity_is_taken(void **st)
{
    (void)st;
    struct adw_config *c = full_scale();
    char err[256] = "";
    struct adw_sched *s = adw_sched_create(NULL, c, 0, err, sizeof(err));
    assert_non_null(s);
    struct adw_config *c2 = full_scale();
    c2->version = 2;
    for (unsigned i = 0; i < ADW_MAX_STAS; i++) {
        snprintf(c2->stas[i].id, ADW_ID_LEN, "new%u", i);
        c2->stas[i].mac[1] = 1;
        c2->stas[i].addrs[0].addr[1] = 19;
    }
    for (uint32_t v = 2; v <= 3; v++) {
        struct adw_config *next = v == 2 ? c2 : c;
        next->version = v;
        uint64_t frame_start = (2 * (v - 2) + 1) * 960 * MS; /* v2 at frame 1, v3 at frame 3 */
        int rc = adw_sched_set_config(s, next, frame_start - 10 * MS, err, sizeof(err));
        assert_string_equal(err, "");
        assert_int_equal(rc, 0);
        assert_int_equal(drain_out(s, frame_start), 0);
        assert_int_equal(adw_sched_active_version(s), v);
        nb = 0;
        for (unsigned i = 0; i < ADW_MAX_STAS; i++)
            queue_to_sta(s, next, i, frame_start + 1 * MS); /* slice 0's segments wait for the next frame */
        for (unsigned k = 1; k <= ADW_MAX_SLICES; k++) { /* k = 64: slice 0 of the next frame */
            unsigned n = drain_out(s, frame_start + k * 15 * MS);
            assert_int_equal(n, 64);
            for (unsigned i = 0; i < n; i++)
                assert_int_equal((out[i].out_port - 1) / 8, k % ADW_MAX_SLICES);
            /* the slice's first pair conflicts with the next slice's: its drain is over before that slice */
            sta_acks(s, next, (k % ADW_MAX_SLICES) * 64, frame_start + k * 15 * MS + 7500000);
        }
    }
    assert_int_equal(sched_stats(s).drops_config, 0);
    adw_sched_free(s);
    free(c2);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_routed_ipv6_packet_is_classified_by_destination_address),
        LAB_TEST(test_vlan_tagged_frame_is_managed),
        LAB_TEST(test_acks_are_isolated_from_data_in_the_batch),
        LAB_TEST(test_a_bare_fin_goes_after_its_flows_queued_data_and_the_batch_drains_at_their_ack),
        LAB_TEST(test_a_bare_rst_goes_after_its_flows_queued_data_and_no_drain_waits_for_its_ack),
        LAB_TEST(test_a_drain_a_server_rst_ends_with_its_data_unacked_gives_no_v_and_holds_nothing_back),
        LAB_TEST(test_a_drain_ended_by_an_earlier_flows_ack_gives_no_v_when_a_server_rst_closed_later_data),
        LAB_TEST(test_a_drain_ended_by_the_ack_of_data_released_after_a_server_rst_is_measured),
        LAB_TEST(test_uplink_transfer_drain_ends_when_data_comes_back),
        LAB_TEST(test_a_batch_of_duplicate_acks_drains_at_once_and_r_grows),
        cmocka_unit_test(test_an_ack_batch_the_sta_sends_nothing_for_is_no_overrun_and_r_grows),
        cmocka_unit_test(test_a_data_batch_never_acknowledged_takes_the_close_time),
        LAB_TEST(test_every_packet_is_counted_exactly_once),
        cmocka_unit_test(test_full_scale_every_pair_released_in_its_own_slice),
        cmocka_unit_test(test_a_version_replacing_one_sta_at_capacity_is_taken),
        cmocka_unit_test(test_a_version_replacing_every_sta_at_capacity_is_taken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
