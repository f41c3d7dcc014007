/* tcp_bulk.c — see tcp_bulk.h. Frames are real Ethernet/IPv4/TCP so the core parses them as it would on a wire. */
#include "tcp_bulk.h"

#include <string.h>

#include "lab_config.h"

static void w16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v; }
static void w32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

static uint32_t build(uint8_t *b, const uint8_t *smac, const uint8_t *dmac, const uint8_t *sip, const uint8_t *dip,
                      uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint32_t payload)
{
    memset(b, 0, 54);
    memcpy(b, dmac, 6);
    memcpy(b + 6, smac, 6);
    w16(b + 12, 0x0800);
    uint8_t *ip = b + 14;
    ip[0] = 0x45;
    w16(ip + 2, (uint16_t)(40 + payload));
    ip[8] = 64;
    ip[9] = 6;
    memcpy(ip + 12, sip, 4);
    memcpy(ip + 16, dip, 4);
    uint8_t *tcp = ip + 20;
    w16(tcp, sport);
    w16(tcp + 2, dport);
    w32(tcp + 4, seq);
    w32(tcp + 8, ack);
    tcp[12] = 5 << 4;
    tcp[13] = 0x10;
    w16(tcp + 14, 65535);
    return 54 + payload;
}

void tcp_init(struct tcp_bulk *t, uint32_t sta, uint32_t window)
{
    memset(t, 0, sizeof(*t));
    t->sta = sta;
    t->window = window < TCP_RING / 2 ? window : TCP_RING / 2;
    t->isn = 0xffffffffu - 5000000u * (sta + 1);
}

uint32_t tcp_sendable(const struct tcp_bulk *t)
{
    uint64_t out = t->next_seg - t->acked_seg;
    return out >= t->window ? 0 : (uint32_t)(t->window - out);
}

uint32_t tcp_build_segment(struct tcp_bulk *t, uint64_t seg)
{
    uint32_t slot = (uint32_t)(seg % TCP_RING);
    t->frame_seg[slot] = seg;
    t->frame_len[slot] = build(t->frame[slot], LAB_SRV_MAC, LAB_STA_MAC[t->sta], LAB_SRV_IP, LAB_STA_IP[t->sta], 80,
                               40000, t->isn + (uint32_t)(seg * TCP_MSS), 1, TCP_MSS);
    return slot;
}

bool tcp_sta_receive(struct tcp_bulk *t, uint64_t seg, bool burst_end, bool measure, uint64_t *ack_count)
{
    if (seg >= t->rcv_next && seg < t->rcv_next + TCP_RING)
        t->got[seg % TCP_RING] = true;
    uint64_t before = t->rcv_next;
    while (t->got[t->rcv_next % TCP_RING]) {
        t->got[t->rcv_next % TCP_RING] = false;
        t->rcv_next++;
    }
    if (measure)
        t->delivered_bytes += (t->rcv_next - before) * TCP_MSS;
    t->unacked += (uint32_t)(t->rcv_next - before);
    bool out_of_order = seg != before;
    if (t->unacked >= 2 || (burst_end && t->unacked > 0) || out_of_order) {
        t->unacked = 0;
        *ack_count = t->rcv_next;
        return true;
    }
    return false;
}

const uint8_t *tcp_build_ack(struct tcp_bulk *t, uint64_t ack_count, uint32_t *len)
{
    uint32_t slot = t->ack_next++ % TCP_RING;
    *len = build(t->ack_frame[slot], LAB_STA_MAC[t->sta], LAB_SRV_MAC, LAB_STA_IP[t->sta], LAB_SRV_IP, 40000, 80, 1,
                 t->isn + (uint32_t)(ack_count * TCP_MSS), 0);
    t->ack_len[slot] = *len;
    return t->ack_frame[slot];
}

void tcp_server_ack(struct tcp_bulk *t, uint64_t ack_count)
{
    if (ack_count > t->acked_seg)
        t->acked_seg = ack_count;
}
