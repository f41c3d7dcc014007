/*
 * eth_frame.h — what the emulator needs to know about an Ethernet frame:
 * its addresses, whether it is group-addressed, and the 802.11 access
 * category its IP DSCP maps to (RFC 8325 §4.3: EF (46) and CS6/CS7 to
 * AC_VO, everything else here to AC_BE).
 */
#ifndef ETH_FRAME_H
#define ETH_FRAME_H

#include <stddef.h>
#include <stdint.h>

enum eth_kind {
    ETH_UNICAST = 0,             /* individual destination address */
    ETH_GROUP = 1,               /* broadcast or multicast destination */
    ETH_MALFORMED = 2,           /* shorter than an Ethernet header */
};

struct eth_info {
    enum eth_kind kind;          /* addressing class */
    uint8_t dst[6];              /* destination MAC */
    uint8_t src[6];              /* source MAC */
    uint8_t ac;                  /* enum wlan_ac of the payload */
};

void eth_classify(const uint8_t *frame, size_t len, struct eth_info *out);
/* Parses "02:ad:00:00:01:01"; returns 0 or -1. */
int eth_parse_mac(const char *s, uint8_t mac[6]);

#endif
