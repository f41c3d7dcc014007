/* VLAN demultiplexing of received frames to scheduler ports; see vlan_demux.h. */
#include "vlan_demux.h"

#include <stdlib.h>
#include <string.h>

int vlan_demux_init(struct vlan_demux *t, const struct dpdk_port_map *m)
{
    memset(t, 0, sizeof(*t));
    t->n_dev = m->n_dev;
    t->by_vid = malloc(sizeof(*t->by_vid) * (m->n_dev ? m->n_dev : 1));
    if (!t->by_vid)
        return -1;
    for (unsigned d = 0; d < m->n_dev; d++) {
        t->untagged[d] = VLAN_DEMUX_NONE;
        for (unsigned v = 0; v < 4096; v++)
            t->by_vid[d][v] = VLAN_DEMUX_NONE;
    }
    /* Backwards, so first_ap ends as the lowest-numbered AP of each port. */
    for (uint16_t q = m->n; q-- > 0;) {
        uint16_t d = m->dev_of[q];
        if (m->vlan[q]) {
            t->trunk[d] = 1;
            t->by_vid[d][m->vlan[q]] = q;
        } else {
            t->untagged[d] = q;
        }
        if (q > 0)
            t->first_ap[d] = q;
    }
    return 0;
}

void vlan_demux_free(struct vlan_demux *t)
{
    free(t->by_vid);
    t->by_vid = NULL;
}

enum vlan_demux_kind vlan_demux_role(const struct vlan_demux *t, unsigned d, uint16_t vid, uint16_t *role)
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
