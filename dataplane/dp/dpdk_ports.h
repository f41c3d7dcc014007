/*
 * Ports by role for the DPDK backend.  Scheduler port 0 is the uplink
 * (wired side); scheduler port k (k >= 1) faces AP k-1 of the
 * configuration's topology.aps.  Each role is bound to a DPDK port found by
 * port name ("net_af_packet0"), by the `iface=` of a vdev
 * ("--vdev=net_af_packet0,iface=ap1" answers to "ap1") or by port number.
 * APs with a `vlan` may share one DPDK port (a VLAN trunk towards the APs):
 * frames to such an AP leave tagged with its VLAN id, and frames arriving
 * tagged with it are untagged and taken as that AP's.  At most one AP of a
 * shared port is untagged; the uplink port is never shared.
 */
#ifndef ADW_DP_DPDK_PORTS_H
#define ADW_DP_DPDK_PORTS_H

#include <stddef.h>
#include <stdint.h>

#include "dp_options.h"

#define DPDK_RX_DESC 1024u   /* descriptors per RX queue */
#define DPDK_TX_DESC 1024u   /* descriptors per TX queue */

struct rte_mempool;

struct dpdk_port_map {
    uint16_t n;                                   /* roles bound: 1 + number of APs */
    uint16_t dpdk_port[1 + DP_MAX_AP_PORTS];      /* DPDK port id of scheduler port i */
    uint16_t vlan[1 + DP_MAX_AP_PORTS];           /* 802.1Q VLAN id of scheduler port i on it, 0 = untagged */
    uint16_t dev_of[1 + DP_MAX_AP_PORTS];         /* index into dev[] of scheduler port i */
    uint16_t n_dev;                               /* distinct DPDK ports used */
    uint16_t dev[1 + DP_MAX_AP_PORTS];            /* the distinct DPDK port ids, in first-use order */
    char role[1 + DP_MAX_AP_PORTS][DP_NAME_LEN];  /* "uplink" or the AP id */
    char name[1 + DP_MAX_AP_PORTS][DP_NAME_LEN];  /* the name the role was bound by */
};

/*
 * Binds scheduler port i (role roles[i], "uplink" or an AP id) to the DPDK
 * port called names[i], with VLAN vlans[i] (0 = untagged).  Refuses unknown
 * names and a port shared where the VLANs cannot tell the roles apart.
 */
int dpdk_ports_resolve(const char *const *roles, const char *const *names, const uint16_t *vlans, unsigned n,
                       struct dpdk_port_map *m, char *err, size_t errlen);

/* Configures one RX and one TX queue per port, promiscuous, and starts them. */
int dpdk_ports_start(const struct dpdk_port_map *m, struct rte_mempool *pool, char *err, size_t errlen);

void dpdk_ports_stop(const struct dpdk_port_map *m);

struct dp_engine;
/* Adds the drivers' missed-packet counts (rte_eth_stats imissed + rx_nombuf) to the engine's counters. */
void dpdk_ports_stats(const struct dpdk_port_map *m, struct dp_engine *e);

#endif
