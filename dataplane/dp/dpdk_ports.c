/* Port binding and start-up for the DPDK backend; see dpdk_ports.h. */
#include "dpdk_ports.h"

#include "dp_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_mempool.h>


/* True when the port's devargs carry iface=<name> (net_af_packet, net_pcap). */
static int devargs_iface_is(uint16_t pid, const char *name)
{
    struct rte_eth_dev_info info;
    if (rte_eth_dev_info_get(pid, &info) != 0 || !info.device)
        return 0;
    const struct rte_devargs *da = rte_dev_devargs(info.device);
    if (!da || !da->args)
        return 0;
    size_t nl = strlen(name);
    for (const char *p = da->args; (p = strstr(p, "iface=")) != NULL; p += 6) {
        if ((p == da->args || p[-1] == ',') && strncmp(p + 6, name, nl) == 0
            && (p[6 + nl] == '\0' || p[6 + nl] == ','))
            return 1;
    }
    return 0;
}

static int find_port(const char *name, uint16_t *out)
{
    uint16_t pid;
    if (rte_eth_dev_get_port_by_name(name, &pid) == 0) {
        *out = pid;
        return 0;
    }
    RTE_ETH_FOREACH_DEV(pid) {
        if (devargs_iface_is(pid, name)) {
            *out = pid;
            return 0;
        }
    }
    char *end;
    unsigned long n = strtoul(name, &end, 10);
    if (name[0] != '\0' && *end == '\0' && n < RTE_MAX_ETHPORTS && rte_eth_dev_is_valid_port((uint16_t)n)) {
        *out = (uint16_t)n;
        return 0;
    }
    return -1;
}

static int bind_role(struct dpdk_port_map *m, unsigned idx, const char *role, const char *name, uint16_t vlan,
                     char *err, size_t errlen)
{
    uint16_t pid;
    if (find_port(name, &pid) != 0) {
        snprintf(err, errlen, "%s: no DPDK port named '%s' (port name, vdev iface= or port number; %u ports present)",
                 role, name, (unsigned)rte_eth_dev_count_avail());
        return -1;
    }
    int shared = 0;
    for (unsigned i = 0; i < idx; i++) {
        if (m->dpdk_port[i] != pid)
            continue;
        if (i == 0 || m->vlan[i] == vlan) {
            snprintf(err, errlen, "%s: port '%s' is already bound to %s%s", role, name, m->role[i],
                     i == 0 ? " (the uplink is never shared)" : " with the same VLAN (give each AP its own vlan)");
            return -1;
        }
        m->dev_of[idx] = m->dev_of[i];
        shared = 1;
    }
    if (!shared) {
        m->dev_of[idx] = m->n_dev;
        m->dev[m->n_dev++] = pid;
    }
    m->dpdk_port[idx] = pid;
    m->vlan[idx] = vlan;
    snprintf(m->role[idx], DP_NAME_LEN, "%s", role);
    snprintf(m->name[idx], DP_NAME_LEN, "%s", name);
    return 0;
}

int dpdk_ports_resolve(const char *const *roles, const char *const *names, const uint16_t *vlans, unsigned n,
                       struct dpdk_port_map *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof(*m));
    if (n > 1 + DP_MAX_AP_PORTS) {
        snprintf(err, errlen, "%u ports, this build drives at most %d", n, 1 + DP_MAX_AP_PORTS);
        return -1;
    }
    for (unsigned i = 0; i < n; i++)
        if (bind_role(m, i, roles[i], names[i], i == 0 ? 0 : vlans[i], err, errlen))
            return -1;
    m->n = (uint16_t)n;
    return 0;
}

int dpdk_ports_start(const struct dpdk_port_map *m, struct rte_mempool *pool, char *err, size_t errlen)
{
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof(conf));
    for (unsigned d = 0; d < m->n_dev; d++) {
        uint16_t pid = m->dev[d];
        unsigned i;
        for (i = 0; m->dpdk_port[i] != pid; i++)
            ;
        uint16_t nrx = DPDK_RX_DESC, ntx = DPDK_TX_DESC;
        int rc = rte_eth_dev_configure(pid, 1, 1, &conf);
        if (rc == 0)
            rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nrx, &ntx);
        if (rc == 0)
            rc = rte_eth_rx_queue_setup(pid, 0, nrx, (unsigned)rte_eth_dev_socket_id(pid), NULL, pool);
        if (rc == 0)
            rc = rte_eth_tx_queue_setup(pid, 0, ntx, (unsigned)rte_eth_dev_socket_id(pid), NULL);
        if (rc == 0)
            rc = rte_eth_dev_start(pid);
        if (rc != 0) {
            snprintf(err, errlen, "%s port '%s' (DPDK port %u): start failed: %s", m->role[i], m->name[i],
                     (unsigned)pid, rte_strerror(-rc));
            return -1;
        }
        /* Promiscuous: the appliance forwards frames addressed to the STAs and the servers, not to itself. */
        rte_eth_promiscuous_enable(pid);
    }
    return 0;
}

void dpdk_ports_stop(const struct dpdk_port_map *m)
{
    for (unsigned d = 0; d < m->n_dev; d++) {
        rte_eth_dev_stop(m->dev[d]);
        rte_eth_dev_close(m->dev[d]);
    }
}

void dpdk_ports_stats(const struct dpdk_port_map *m, struct dp_engine *e)
{
    for (unsigned d = 0; d < m->n_dev; d++) {
        struct rte_eth_stats st;
        if (rte_eth_stats_get(m->dev[d], &st) == 0)
            e->c.rx_missed += st.imissed + st.rx_nombuf;
    }
}
