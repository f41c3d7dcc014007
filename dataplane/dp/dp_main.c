/*
 * adwiser-dp: the ADWISER appliance's dataplane executable.  Starts the DPDK
 * EAL (unless --backend nfqueue or --check-config), loads and validates the configuration,
 * binds ports by role and runs the chosen backend's loop until SIGTERM,
 * then releases every held packet and exits.  CLI: see README.md.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>

#include "config_check.h"
#include "dp_engine.h"
#include "dp_topology.h"
#include "dpdk_loop.h"
#include "dpdk_ports.h"
#include "nfq_loop.h"

#define MBUF_CACHE 256u   /* per-lcore mbuf cache, packets */

/*
 * The mbuf pool.  A forwarder frees each buffer microseconds after it
 * arrived, so a FIFO ring pool hands back buffers still in cache; the
 * appliance holds a frame's worth of packets (thousands) before they
 * leave, so the ring pool cycles through cold memory and every received
 * packet is copied into a buffer that misses the cache.  A LIFO pool
 * (DPDK's "stack" mempool driver) hands back the most recently freed
 * buffer first.  An operator's --mbuf-pool-ops-name wins; without the
 * stack driver (not loaded as a plugin) the platform's default is used.
 */
static struct rte_mempool *create_mbuf_pool(unsigned n)
{
    const char *ops = rte_eal_mbuf_user_pool_ops() ? rte_mbuf_best_mempool_ops() : "stack";
    struct rte_mempool *pool = rte_pktmbuf_pool_create_by_ops("adw_mbufs", n, MBUF_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                                              (int)rte_socket_id(), ops);
    if (!pool && !rte_eal_mbuf_user_pool_ops()) {
        fprintf(stderr, "adwiser-dp: no \"stack\" mempool driver (%s); using the default pool\n", rte_strerror(rte_errno));
        pool = rte_pktmbuf_pool_create("adw_mbufs", n, MBUF_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
    }
    return pool;
}

static int run_nfqueue(struct dp_options *o, struct adw_config *cfg)
{
    char err[512];
    struct dp_engine e;
    const char *roles[1 + DP_MAX_AP_PORTS], *ifnames[1 + DP_MAX_AP_PORTS];
    uint16_t vlans[1 + DP_MAX_AP_PORTS];
    unsigned n_ports;
    if (dp_topology_port_names(o, cfg, roles, ifnames, vlans, &n_ports, err, sizeof(err)) != 0
        || dp_topology_check_ifnames(o, cfg, ifnames, vlans, n_ports, err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-dp: %s\n", err);
        return 1;
    }
    /* An AP behind a VLAN is the Linux VLAN interface <port>.<vlan> (the kernel tags and untags). */
    static char vlan_if[1 + DP_MAX_AP_PORTS][DP_NAME_LEN + 8];
    for (unsigned i = 1; i < n_ports; i++) {
        if (vlans[i]) {
            snprintf(vlan_if[i], sizeof(vlan_if[i]), "%s.%u", ifnames[i], (unsigned)vlans[i]);
            ifnames[i] = vlan_if[i];
        }
    }
    if (dp_engine_start(&e, o, cfg, n_ports, "nfqueue", nfq_clock_ns(), err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-dp: %s\n", err);
        return 1;
    }
    int rc = nfq_loop_run(&e, roles, ifnames, n_ports, o->pid_path);
    dp_engine_finish(&e);
    return rc == 0 ? 0 : 1;
}

static int run_dpdk(struct dp_options *o, struct adw_config *cfg)
{
    char err[512];
    struct dp_engine e;
    static struct dpdk_port_map m;
    const char *roles[1 + DP_MAX_AP_PORTS], *names[1 + DP_MAX_AP_PORTS];
    uint16_t vlans[1 + DP_MAX_AP_PORTS];
    unsigned n_ports;
    if (dp_topology_port_names(o, cfg, roles, names, vlans, &n_ports, err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-dp: %s\n", err);
        return 1;
    }
    if (dpdk_ports_resolve(roles, names, vlans, n_ports, &m, err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-dp: %s\n", err);
        return 1;
    }
    /* The pool less what the RX/TX rings and one burst per port can take: the budget the core's held packets share
     * with the frames waiting in the ports' TX backlogs (dpdk_loop.c lends those out of it as they wait). */
    unsigned rings = m.n_dev * (DPDK_RX_DESC + DPDK_TX_DESC + o->burst);
    if (o->total_num_mbufs < rings + 1024) {
        fprintf(stderr, "adwiser-dp: --total-num-mbufs %u leaves fewer than 1024 packets to hold beside %u in rings;"
                " give at least %u\n", o->total_num_mbufs, rings, rings + 1024);
        return 1;
    }
    o->hold_pkts = o->total_num_mbufs - rings;
    struct rte_mempool *pool = create_mbuf_pool(o->total_num_mbufs);
    if (!pool) {
        fprintf(stderr, "adwiser-dp: cannot create a pool of %u mbufs: %s (raise -m or lower --total-num-mbufs)\n",
                o->total_num_mbufs, rte_strerror(rte_errno));
        return 1;
    }
    if (dpdk_ports_start(&m, pool, err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-dp: %s\n", err);
        return 1;
    }
    dpdk_clock_init();
    if (dp_engine_start(&e, o, cfg, m.n, "dpdk", dpdk_clock_ns(), err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-dp: %s\n", err);
        dpdk_ports_stop(&m);
        return 1;
    }
    for (unsigned i = 0; i < m.n; i++)
        fprintf(stderr, "adwiser-dp: port %u (%s) = DPDK port %u '%s'%s%.0u\n", i, m.role[i],
                (unsigned)m.dpdk_port[i], m.name[i], m.vlan[i] ? " vlan " : "", (unsigned)m.vlan[i]);
    dp_write_pid_file(o->pid_path);
    int rc = dpdk_loop_run(&e, &m, pool);
    dpdk_ports_stats(&m, &e);
    dp_engine_finish(&e);
    dpdk_ports_stop(&m);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    static struct dp_options o;
    char err[512];
    int nfq = dp_options_wants_nfqueue(argc, argv);
    int check = dp_options_wants_check(argc, argv);

    if (!nfq && !check) {
        int used = rte_eal_init(argc, argv);
        if (used < 0) {
            fprintf(stderr, "adwiser-dp: EAL initialisation failed: %s\n", rte_strerror(rte_errno));
            return 1;
        }
        argc -= used;
        argv += used;
    }
    int prc = dp_options_parse(&o, argc, argv, err, sizeof(err));
    if (prc == 1)
        return 0;
    if (prc != 0) {
        fprintf(stderr, "adwiser-dp: %s (try --help)\n", err);
        return 2;
    }
    if (check && !o.check_only) {
        /* "--check-config" was an option's value: the EAL was not started, so nothing can run. */
        fprintf(stderr, "adwiser-dp: '--check-config' given as an option's value (try --help)\n");
        return 2;
    }
    if (o.check_only) {
        if (dp_config_check(&o, err, sizeof(err)) != 0) {
            fprintf(stderr, "adwiser-dp: %s\n", err);
            return 1;
        }
        printf("%s: ok\n", o.config_path);
        return 0;
    }
    struct adw_config *cfg = dp_engine_load_config(o.config_path, err, sizeof(err));
    if (!cfg) {
        fprintf(stderr, "adwiser-dp: %s: %s\n", o.config_path, err);
        return 2;
    }
    dp_engine_install_signals();
    if (o.rt_priority) {
        /* The loop sleeps when idle; what delays a slice start on a busy host is the wake-up behind other
         * tasks (CFS), which real-time scheduling removes. */
        struct sched_param sp = {.sched_priority = o.rt_priority};
        int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
        if (e != 0) {
            fprintf(stderr, "adwiser-dp: --rt-priority %d: %s\n", o.rt_priority, strerror(e));
            return 1;
        }
    }
    int rc = o.backend == DP_BACKEND_NFQUEUE ? run_nfqueue(&o, cfg) : run_dpdk(&o, cfg);
    dp_remove_pid_file(o.pid_path);
    if (!nfq && !check)
        rte_eal_cleanup();
    return rc;
}
