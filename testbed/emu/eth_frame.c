/*
 * eth_frame.c — Ethernet classification for the WLAN emulator (eth_frame.h).
 */
#include "eth_frame.h"

#include <stdio.h>
#include <string.h>

#include "wlan_air.h"

static uint8_t ac_of_dscp(uint8_t dscp)
{
    return (dscp == 46 || dscp == 48 || dscp == 56) ? WLAN_AC_VO : WLAN_AC_BE;
}

void eth_classify(const uint8_t *f, size_t len, struct eth_info *out)
{
    memset(out, 0, sizeof *out);
    out->ac = WLAN_AC_BE;
    if (len < 14) {
        out->kind = ETH_MALFORMED;
        return;
    }
    memcpy(out->dst, f, 6);
    memcpy(out->src, f + 6, 6);
    out->kind = (f[0] & 1) ? ETH_GROUP : ETH_UNICAST;
    size_t off = 12;
    uint16_t type = (uint16_t)(f[off] << 8 | f[off + 1]);
    if (type == 0x8100 && len >= 18) { /* one 802.1Q tag */
        off += 4;
        type = (uint16_t)(f[off] << 8 | f[off + 1]);
    }
    off += 2;
    if (type == 0x0800 && len >= off + 2 && (f[off] >> 4) == 4)
        out->ac = ac_of_dscp(f[off + 1] >> 2);
    else if (type == 0x86DD && len >= off + 2 && (f[off] >> 4) == 6)
        out->ac = ac_of_dscp((uint8_t)(((f[off] & 0x0f) << 4 | f[off + 1] >> 4) >> 2));
}

int eth_parse_mac(const char *s, uint8_t mac[6])
{
    unsigned b[6];
    char tail;
    if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
        return -1;
    for (int i = 0; i < 6; i++)
        mac[i] = (uint8_t)b[i];
    return 0;
}
