/* frame_builder.c — see frame_builder.h. */
#include "frame_builder.h"

#include <string.h>

static void w16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void w32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t eth(uint8_t *buf, const uint8_t dst[6], const uint8_t src[6], uint8_t n_vlans, uint16_t et)
{
    memcpy(buf, dst, 6);
    memcpy(buf + 6, src, 6);
    uint32_t off = 12;
    for (unsigned i = 0; i < n_vlans; i++) {
        w16(buf + off, i + 1 < n_vlans ? 0x88a8 : 0x8100);
        w16(buf + off + 2, (uint16_t)(100 + i));
        off += 4;
    }
    w16(buf + off, et);
    return off + 2;
}

uint32_t fb_tcp(uint8_t *buf, uint32_t cap, const struct fb_tcp *t)
{
    uint32_t opt = t->n_sack ? 2u + 8u * t->n_sack + 2u : 0u; /* two NOPs + SACK */
    uint32_t tcp_len = 20 + opt;
    uint32_t ip_hdr = t->ip_version == 6 ? 40 : 20;
    uint32_t need = 14 + 4u * t->n_vlans + ip_hdr + tcp_len + t->payload_len;
    if (need > cap)
        return 0;
    memset(buf, 0, need);
    uint32_t off = eth(buf, t->dst_mac, t->src_mac, t->n_vlans, t->ip_version == 6 ? 0x86dd : 0x0800);
    uint8_t *ip = buf + off;
    if (t->ip_version == 6) {
        ip[0] = (uint8_t)(0x60 | (t->dscp >> 2));
        ip[1] = (uint8_t)((t->dscp & 3) << 6);
        w16(ip + 4, (uint16_t)(tcp_len + t->payload_len));
        ip[6] = 6;
        ip[7] = 64;
        memcpy(ip + 8, t->src_ip, 16);
        memcpy(ip + 24, t->dst_ip, 16);
    } else {
        ip[0] = 0x45;
        ip[1] = (uint8_t)(t->dscp << 2);
        w16(ip + 2, (uint16_t)(20 + tcp_len + t->payload_len));
        ip[8] = 64;
        ip[9] = 6;
        memcpy(ip + 12, t->src_ip, 4);
        memcpy(ip + 16, t->dst_ip, 4);
    }
    uint8_t *tcp = ip + ip_hdr;
    w16(tcp, t->sport);
    w16(tcp + 2, t->dport);
    w32(tcp + 4, t->seq);
    w32(tcp + 8, t->ack);
    tcp[12] = (uint8_t)((tcp_len / 4) << 4);
    tcp[13] = t->flags;
    w16(tcp + 14, 65535);
    if (t->n_sack) {
        uint8_t *o = tcp + 20;
        o[0] = 1;
        o[1] = 1;
        o[2] = 5;
        o[3] = (uint8_t)(2 + 8 * t->n_sack);
        for (unsigned b = 0; b < t->n_sack; b++) {
            w32(o + 4 + 8 * b, t->sack_left[b]);
            w32(o + 8 + 8 * b, t->sack_right[b]);
        }
    }
    return need;
}

uint32_t fb_udp4(uint8_t *buf, uint32_t cap, const uint8_t src_mac[6], const uint8_t dst_mac[6],
                 const uint8_t src_ip[4], const uint8_t dst_ip[4], uint8_t dscp, uint16_t sport, uint16_t dport,
                 uint32_t payload_len)
{
    uint32_t need = 14 + 20 + 8 + payload_len;
    if (need > cap)
        return 0;
    memset(buf, 0, need);
    uint32_t off = eth(buf, dst_mac, src_mac, 0, 0x0800);
    uint8_t *ip = buf + off;
    ip[0] = 0x45;
    ip[1] = (uint8_t)(dscp << 2);
    w16(ip + 2, (uint16_t)(28 + payload_len));
    ip[8] = 64;
    ip[9] = 17;
    memcpy(ip + 12, src_ip, 4);
    memcpy(ip + 16, dst_ip, 4);
    uint8_t *u = ip + 20;
    w16(u, sport);
    w16(u + 2, dport);
    w16(u + 4, (uint16_t)(8 + payload_len));
    return need;
}

uint32_t fb_arp(uint8_t *buf, uint32_t cap, const uint8_t src_mac[6])
{
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    if (cap < 42)
        return 0;
    memset(buf, 0, 42);
    uint32_t off = eth(buf, bcast, src_mac, 0, 0x0806);
    w16(buf + off, 1);
    w16(buf + off + 2, 0x0800);
    buf[off + 4] = 6;
    buf[off + 5] = 4;
    w16(buf + off + 6, 1);
    return 42;
}
