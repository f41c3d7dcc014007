/* tcp_bulk.c — see tcp_bulk.h. Frames are real Ethernet/IPv4/TCP so the core parses them as it would on a wire. */
#include "tcp_bulk.h"

#include <string.h>

#include "lab_config.h"

static void w16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v; }
static void w32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* Ethernet/IPv4/TCP with `payload` zero bytes; a SACK block [sack_l, sack_r) if sack_r != sack_l. */
static uint32_t build(uint8_t *b, const uint8_t *smac, const uint8_t *dmac, const uint8_t *sip, const uint8_t *dip,
                      uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint32_t payload, uint32_t sack_l,
                      uint32_t sack_r)
{
    uint32_t opt = sack_l != sack_r ? 12u : 0u;
    memset(b, 0, 54 + opt);
    memcpy(b, dmac, 6);
    memcpy(b + 6, smac, 6);
    w16(b + 12, 0x0800);
    uint8_t *ip = b + 14;
    ip[0] = 0x45;
    w16(ip + 2, (uint16_t)(40 + opt + payload));
    ip[8] = 64;
    ip[9] = 6;
    memcpy(ip + 12, sip, 4);
    memcpy(ip + 16, dip, 4);
    uint8_t *tcp = ip + 20;
    w16(tcp, sport);
    w16(tcp + 2, dport);
    w32(tcp + 4, seq);
    w32(tcp + 8, ack);
    tcp[12] = (uint8_t)(((20 + opt) / 4) << 4);
    tcp[13] = 0x10;
    w16(tcp + 14, 65535);
    if (opt) {
        uint8_t *o = tcp + 20;
        o[0] = 1, o[1] = 1, o[2] = 5, o[3] = 10;
        w32(o + 4, sack_l);
        w32(o + 8, sack_r);
    }
    return 54 + opt + payload;
}

void tcp_init(struct tcp_bulk *t, uint32_t sta)
{
    memset(t, 0, sizeof(*t));
    t->sta = sta;
    t->isn = 0xffffffffu - 5000000u * (sta + 1);
    t->cwnd = 10;
    t->ssthresh = TCP_CWND_MAX;
    t->app_limit = UINT64_MAX;
}

int64_t tcp_next_to_send(struct tcp_bulk *t)
{
    uint64_t outstanding = t->next_seg - t->acked_seg;
    if (t->retx_n > 0) {
        uint64_t seg = t->retx[t->retx_head];
        t->retx_head = (t->retx_head + 1) % TCP_RING;
        t->retx_n--;
        if (seg < t->acked_seg)
            return tcp_next_to_send(t);
        return (int64_t)seg;
    }
    if ((double)outstanding >= t->cwnd || outstanding >= TCP_RING / 2 || t->next_seg >= t->app_limit)
        return -1;
    return (int64_t)t->next_seg++;
}

uint32_t tcp_build_segment(struct tcp_bulk *t, uint64_t seg)
{
    uint32_t slot = (uint32_t)(seg % TCP_RING);
    t->frame_seg[slot] = seg;
    t->frame_len[slot] = build(t->frame[slot], LAB_SRV_MAC, LAB_STA_MAC[t->sta], LAB_SRV_IP, LAB_STA_IP[t->sta], 80,
                               40000, t->isn + (uint32_t)(seg * TCP_MSS), 1, TCP_MSS, 0, 0);
    return slot;
}

void tcp_server_dropped(struct tcp_bulk *t, uint64_t seg, bool measure)
{
    if (t->retx_n < TCP_RING) {
        t->retx[(t->retx_head + t->retx_n) % TCP_RING] = seg;
        t->retx_n++;
    }
    if (measure)
        t->segs_lost++;
    if (t->acked_seg >= t->recover_seg) { /* one reduction per window of data (NewReno/SACK recovery) */
        t->ssthresh = t->cwnd / 2 > 4 ? t->cwnd / 2 : 4;
        t->cwnd = t->ssthresh;
        t->recover_seg = t->next_seg;
    }
}

bool tcp_sta_receive(struct tcp_bulk *t, uint64_t seg, bool burst_end, bool measure, uint64_t *ack_count)
{
    if (seg >= t->rcv_next && seg < t->rcv_next + TCP_RING)
        t->got[seg % TCP_RING] = true;
    if (seg + 1 > t->rcv_max)
        t->rcv_max = seg + 1;
    uint64_t before = t->rcv_next;
    while (t->got[t->rcv_next % TCP_RING]) {
        t->got[t->rcv_next % TCP_RING] = false;
        t->rcv_next++;
    }
    if (measure)
        t->delivered_bytes += (t->rcv_next - before) * TCP_MSS;
    t->unacked += (uint32_t)(t->rcv_next - before);
    bool out_of_order = seg != before || t->rcv_max > t->rcv_next;
    if (t->unacked >= 2 || (burst_end && t->unacked > 0) || out_of_order) {
        t->unacked = 0;
        *ack_count = t->rcv_next;
        return true;
    }
    return false;
}

uint32_t tcp_build_ack(struct tcp_bulk *t, uint64_t ack_count)
{
    uint32_t slot = t->ack_next++ % TCP_RING;
    uint32_t sl = 0, sr = 0;
    if (t->rcv_max > ack_count) { /* SACK the block that ends at the highest segment received */
        uint64_t left = t->rcv_max - 1;
        while (left > ack_count && left > t->rcv_next && t->got[(left - 1) % TCP_RING])
            left--;
        sl = t->isn + (uint32_t)(left * TCP_MSS);
        sr = t->isn + (uint32_t)(t->rcv_max * TCP_MSS);
    }
    t->ack_len[slot] = build(t->ack_frame[slot], LAB_STA_MAC[t->sta], LAB_SRV_MAC, LAB_STA_IP[t->sta], LAB_SRV_IP,
                             40000, 80, 1, t->isn + (uint32_t)(ack_count * TCP_MSS), 0, sl, sr);
    t->ack_count[slot] = ack_count;
    return slot;
}

void tcp_server_ack(struct tcp_bulk *t, uint64_t ack_count)
{
    if (ack_count <= t->acked_seg)
        return;
    double k = (double)(ack_count - t->acked_seg);
    t->acked_seg = ack_count;
    t->cwnd += t->cwnd < t->ssthresh ? k : k / t->cwnd;
    if (t->cwnd > TCP_CWND_MAX)
        t->cwnd = TCP_CWND_MAX;
}
