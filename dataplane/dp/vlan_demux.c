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
