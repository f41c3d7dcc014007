/*
 * The 802.1Q tag (TCI) a frame leaves with when the DPDK loop sends it to an
 * AP behind a VLAN.  The AP's wired port may map the 802.1p priority (PCP)
 * to a WMM access category, so the priority is not written as 0: a frame
 * that came tagged keeps its PCP and DEI (the loop strips its tag on
 * arrival, keeping the TCI in the mbuf); an untagged IP frame gets the PCP
 * of its DSCP's class selector (DSCP >> 3: EF, the core's real-time class,
 * is PCP 5, as the usual DSCP-to-CoS map has it); any other frame PCP 0.
 * A priority-tagged frame (VLAN 0) keeps its tag in the frame, and the
 * loop writes the AP's VLAN into it rather than adding a second tag.
 * Pure: the loop hands it the frame and the TCI it arrived with.
 */
#ifndef ADW_DP_VLAN_PCP_H
#define ADW_DP_VLAN_PCP_H

#include <stdint.h>

#define VLAN_PCP_SHIFT 13
#define VLAN_PRIORITY_BITS 0xf000u   /* PCP and DEI */

/* PCP of an untagged Ethernet frame by its DSCP; 0 if it is not IPv4 or IPv6. */
static inline uint16_t vlan_pcp_of_dscp(const uint8_t *frame, uint32_t len)
{
    if (len < 16)
        return 0;
    unsigned type = (unsigned)frame[12] << 8 | frame[13], tc;
    if (type == 0x0800)
        tc = frame[15];                                        /* IPv4 TOS */
    else if (type == 0x86dd)
        tc = (unsigned)(frame[14] & 0x0f) << 4 | frame[15] >> 4;   /* IPv6 traffic class */
    else
        return 0;
    return (uint16_t)((tc >> 2) >> 3);
}

/* TCI for VLAN vid: tci_in the TCI the frame arrived with (0: untagged), frame[0..len) as it is, untagged. */
static inline uint16_t vlan_pcp_tci(uint16_t vid, uint16_t tci_in, const uint8_t *frame, uint32_t len)
{
    if (tci_in)
        return (uint16_t)((tci_in & VLAN_PRIORITY_BITS) | (vid & 0x0fffu));
    return (uint16_t)(vlan_pcp_of_dscp(frame, len) << VLAN_PCP_SHIFT | (vid & 0x0fffu));
}

/* 1 if frame[0..len) is priority-tagged: an 802.1Q tag of VLAN 0 (only a PCP and DEI) after the MAC addresses. */
static inline int vlan_pcp_priority_tagged(const uint8_t *frame, uint32_t len)
{
    return len >= 18 && frame[12] == 0x81 && frame[13] == 0x00 && (((unsigned)frame[14] << 8 | frame[15]) & 0x0fffu) == 0;
}

#endif
