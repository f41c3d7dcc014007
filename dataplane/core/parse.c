/*
 * parse.c — bounds-checked frame parser (see parse.h). Every read is preceded
 * by a length check against the end of the *valid* region: the frame for
 * Ethernet/VLAN, then the IP datagram as its own length field says (Ethernet
 * padding beyond it is ignored; a datagram longer than the frame is refused).
 */
#include "parse.h"

#include <string.h>

static uint16_t rd16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static uint32_t rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int parse_tcp_options(const uint8_t *o, uint32_t olen, struct adw_desc *d)
{
    uint32_t i = 0;
    while (i < olen) {
        uint8_t kind = o[i];
        if (kind == 0)
            break;
        if (kind == 1) {
            i++;
            continue;
        }
        if (i + 1 >= olen)
            return ADW_PARSE_MALFORMED;
        uint8_t l = o[i + 1];
        if (l < 2 || i + l > olen)
            return ADW_PARSE_MALFORMED;
        if (kind == 5) { /* SACK, RFC 2018: 2 + 8n bytes */
            if (l < 10 || (l - 2) % 8 != 0 || (l - 2) / 8 > ADW_MAX_SACK)
                return ADW_PARSE_MALFORMED;
            d->n_sack = (uint8_t)((l - 2) / 8);
            for (unsigned b = 0; b < d->n_sack; b++) {
                d->sack_left[b] = rd32(o + i + 2 + 8 * b);
                d->sack_right[b] = rd32(o + i + 6 + 8 * b);
            }
        }
        i += l;
    }
    return ADW_PARSE_OK;
}

static int parse_l4(const uint8_t *p, uint32_t l4len, uint8_t proto, struct adw_desc *d)
{
    if (d->fragment) {
        d->l4 = ADW_L4_OTHER;
        return ADW_PARSE_OK;
    }
    switch (proto) {
    case 6: { /* TCP */
        if (l4len < 20)
            return ADW_PARSE_MALFORMED;
        uint32_t doff = (uint32_t)(p[12] >> 4) * 4;
        if (doff < 20 || doff > l4len)
            return ADW_PARSE_MALFORMED;
        d->l4 = ADW_L4_TCP;
        d->sport = rd16(p);
        d->dport = rd16(p + 2);
        d->seq = rd32(p + 4);
        d->ack = rd32(p + 8);
        d->tcp_flags = p[13] & 0x3f;
        d->payload_len = l4len - doff;
        return parse_tcp_options(p + 20, doff - 20, d);
    }
    case 17: { /* UDP */
        if (l4len < 8)
            return ADW_PARSE_MALFORMED;
        uint16_t ulen = rd16(p + 4);
        if (ulen < 8 || ulen > l4len)
            return ADW_PARSE_MALFORMED;
        d->l4 = ADW_L4_UDP;
        d->sport = rd16(p);
        d->dport = rd16(p + 2);
        d->payload_len = ulen - 8u;
        return ADW_PARSE_OK;
    }
    case 1:
    case 58:
        d->l4 = ADW_L4_ICMP;
        return ADW_PARSE_OK;
    default:
        d->l4 = ADW_L4_OTHER;
        return ADW_PARSE_OK;
    }
}

static int parse_ipv4(const uint8_t *p, uint32_t avail, struct adw_desc *d)
{
    if (avail < 20 || (p[0] >> 4) != 4)
        return ADW_PARSE_MALFORMED;
    uint32_t ihl = (uint32_t)(p[0] & 0x0f) * 4;
    uint32_t tot = rd16(p + 2);
    if (ihl < 20 || tot < ihl || tot > avail)
        return ADW_PARSE_MALFORMED;
    d->l3 = ADW_L3_IPV4;
    d->dscp = p[1] >> 2;
    uint16_t frag = rd16(p + 6);
    d->fragment = (frag & 0x3fff) != 0; /* MF set or offset non-zero */
    memcpy(d->src_ip, p + 12, 4);
    memcpy(d->dst_ip, p + 16, 4);
    return parse_l4(p + ihl, tot - ihl, p[9], d);
}

static int parse_ipv6(const uint8_t *p, uint32_t avail, struct adw_desc *d)
{
    if (avail < 40 || (p[0] >> 4) != 6)
        return ADW_PARSE_MALFORMED;
    uint32_t plen = rd16(p + 4);
    uint8_t nh = p[6];
    if (plen == 0 && nh == 0)
        return ADW_PARSE_MALFORMED; /* jumbogram (RFC 2675): not carried on these links */
    if (40 + plen > avail)
        return ADW_PARSE_MALFORMED;
    d->l3 = ADW_L3_IPV6;
    d->dscp = (uint8_t)(((p[0] & 0x0f) << 4 | p[1] >> 4) >> 2);
    memcpy(d->src_ip, p + 8, 16);
    memcpy(d->dst_ip, p + 24, 16);
    const uint8_t *q = p + 40;
    uint32_t left = plen;
    for (unsigned n = 0;; n++) {
        uint32_t hl;
        switch (nh) {
        case 0:  /* hop-by-hop */
        case 43: /* routing */
        case 60: /* destination options */
            if (left < 8)
                return ADW_PARSE_MALFORMED;
            hl = 8u + (uint32_t)q[1] * 8u;
            break;
        case 44: /* fragment */
            if (left < 8)
                return ADW_PARSE_MALFORMED;
            hl = 8;
            if ((rd16(q + 2) & 0xfff9) != 0) /* offset non-zero or M set */
                d->fragment = true;
            break;
        case 51: /* AH: length in 4-byte units minus 2 */
            if (left < 8)
                return ADW_PARSE_MALFORMED;
            hl = ((uint32_t)q[1] + 2u) * 4u;
            break;
        case 59: /* no next header */
            d->l4 = ADW_L4_NONE;
            return ADW_PARSE_OK;
        default:
            return parse_l4(q, left, nh, d);
        }
        if (n >= ADW_PARSE_MAX_EXTHDR || hl > left)
            return ADW_PARSE_MALFORMED;
        nh = q[0];
        q += hl;
        left -= hl;
    }
}

int adw_parse(const uint8_t *data, uint32_t len, struct adw_desc *d)
{
    memset(d, 0, sizeof(*d));
    if (data == NULL || len < 14 || len > ADW_PARSE_MAX_FRAME)
        return ADW_PARSE_MALFORMED;
    memcpy(d->dst_mac, data, 6);
    memcpy(d->src_mac, data + 6, 6);
    uint32_t off = 12;
    uint16_t et = rd16(data + off);
    while (et == 0x8100 || et == 0x88a8 || et == 0x9100) {
        if (d->n_vlans == ADW_PARSE_MAX_VLANS || off + 6 > len)
            return ADW_PARSE_MALFORMED;
        if (d->n_vlans == 0)
            d->outer_vlan = rd16(data + off + 2) & 0x0fff;
        d->n_vlans++;
        off += 4;
        et = rd16(data + off);
    }
    off += 2;
    d->ethertype = et;
    switch (et) {
    case 0x0806:
        d->l3 = ADW_L3_ARP;
        return ADW_PARSE_OK;
    case 0x0800:
        return parse_ipv4(data + off, len - off, d);
    case 0x86dd:
        return parse_ipv6(data + off, len - off, d);
    default:
        d->l3 = ADW_L3_OTHER;
        return ADW_PARSE_OK;
    }
}
