/*
 * The 802.1Q tag (TCI) a frame leaves with when the DPDK loop sends it to an
 * AP behind a VLAN.  The AP's wired port may map the 802.1p priority (PCP)
 * to a WMM access category, so the priority is not written as 0: a frame
 * that came tagged keeps its PCP and DEI (the loop strips its tag on
 * arrival, keeping the TCI in the mbuf); an untagged IP frame gets the PCP
 * of its DSCP's class selector (DSCP >> 3: EF, the core's real-time class,
 * is PCP 5, as the usual DSCP-to-CoS map has it); any other frame PCP 0.
 * A frame that still carries its tag (it came in on a port that is no
 * trunk, the uplink or an untagged AP) is never tagged a second time: a
 * priority tag (VLAN 0) or one of the AP's own VLAN becomes the AP's tag
 * (PCP and DEI kept); one of another VLAN leaves as it came (dpdk_loop.c).
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

/* The TCI of the 802.1Q tag after frame[0..len)'s MAC addresses, or -1 if it has none. */
static inline int vlan_pcp_frame_tci(const uint8_t *frame, uint32_t len)
{
    if (len < 18 || frame[12] != 0x81 || frame[13] != 0x00)
        return -1;
    return (int)((unsigned)frame[14] << 8 | frame[15]);
}

/* 1 if a frame whose own tag has TCI tci is another VLAN's than vid: a priority tag (VLAN 0) is no VLAN's. */
static inline int vlan_pcp_foreign(int tci, uint16_t vid)
{
    return tci > 0 && (tci & 0x0fff) != 0 && (tci & 0x0fff) != (vid & 0x0fff);
}

#endif
