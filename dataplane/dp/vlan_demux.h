/*
 * Which scheduler port a received frame belongs to, from the DPDK port it
 * came in on and its 802.1Q VLAN id.  A DPDK port carries either one role
 * (the uplink, or one AP, untagged) or, as a VLAN trunk towards the APs,
 * several APs told apart by VLAN id, at most one of them untagged (see
 * dpdk_ports.h).  Pure: the loop reads the VLAN id from the frame or the
 * mbuf and strips the tag when the answer is VLAN_DEMUX_TAGGED_AP.
 */
#ifndef ADW_DP_VLAN_DEMUX_H
#define ADW_DP_VLAN_DEMUX_H

#include <stdint.h>

#include "dpdk_ports.h"

#define VLAN_DEMUX_NONE 0xffffu

enum vlan_demux_kind {
    VLAN_DEMUX_TAGGED_AP,   /* tagged with the VLAN of an AP on this trunk: its tag comes off */
    VLAN_DEMUX_PORT_ROLE,   /* untagged, the role that is untagged on this port */
    VLAN_DEMUX_UNKNOWN,     /* on a trunk, of no AP: counted (vlan_unknown), handed over unchanged */
};

struct vlan_demux {
    unsigned n_dev;                          /* DPDK ports mapped */
    int trunk[1 + DP_MAX_AP_PORTS];          /* per dev: 1 if some role on it is tagged */
    uint16_t untagged[1 + DP_MAX_AP_PORTS];  /* per dev: scheduler port of its untagged role, or NONE */
    uint16_t first_ap[1 + DP_MAX_AP_PORTS];  /* per dev: its first AP's scheduler port */
    uint16_t (*by_vid)[4096];                /* per dev: scheduler port of each VLAN id, or NONE */
};

/* Builds the table from the port map; -1 if out of memory. */
int vlan_demux_init(struct vlan_demux *t, const struct dpdk_port_map *m);
void vlan_demux_free(struct vlan_demux *t);

/* 1 if frames on dev d must be looked at for a VLAN tag. */
static inline int vlan_demux_is_trunk(const struct vlan_demux *t, unsigned d)
{
    return t->trunk[d];
}

/*
 * The scheduler port (*role) of a frame received on dev d with VLAN id vid
 * (0: untagged or priority-tagged).  A frame of no AP on a trunk goes to the
 * untagged AP if there is one, else to the port's first AP: the core sees a
 * frame of no STA of that AP and passes it uplink (a broadcast, which the
 * core floods, the loop sends uplink only, tag and all).  Inline: the DPDK loop
 * asks it for every received frame.
 */
static inline enum vlan_demux_kind vlan_demux_role(const struct vlan_demux *t, unsigned d, uint16_t vid,
                                                   uint16_t *role)
{
    vid &= 0xfff;
    if (t->trunk[d] && vid && t->by_vid[d][vid] != VLAN_DEMUX_NONE) {
        *role = t->by_vid[d][vid];
        return VLAN_DEMUX_TAGGED_AP;
    }
    if (vid == 0 && t->untagged[d] != VLAN_DEMUX_NONE) {
        *role = t->untagged[d];
        return VLAN_DEMUX_PORT_ROLE;
    }
    *role = t->untagged[d] != VLAN_DEMUX_NONE ? t->untagged[d] : t->first_ap[d];
    return VLAN_DEMUX_UNKNOWN;
}

#endif
