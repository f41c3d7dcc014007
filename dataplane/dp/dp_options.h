/*
 * Command-line options of adwiser-dp (the part after the DPDK EAL arguments,
 * or the whole command line with --backend nfqueue).  See README.md for the
 * operator's view.  Parsing only: nothing here opens a port or a file.
 */
#ifndef ADW_DP_OPTIONS_H
#define ADW_DP_OPTIONS_H

#include <stdint.h>

#define DP_MAX_AP_PORTS 512     /* APs one appliance drives (scheduler ports 1..): the core's ADW_MAX_APS */
#define DP_MAX_PORT_ALIASES 64  /* --port NAME=PORT renamings */
#define DP_NAME_LEN     64      /* bytes, AP ids and port/interface names */

enum dp_backend { DP_BACKEND_DPDK, DP_BACKEND_NFQUEUE };

/* An explicit `--ap ID=PORT` binding; without one an AP uses the config's `port`. */
struct dp_ap_binding {
    char ap_id[DP_NAME_LEN];   /* AP id of the configuration (topology.aps[].id) */
    char port[DP_NAME_LEN];    /* DPDK port name, vdev iface name or port number; nfqueue: interface name */
};

/* `--port NAME=PORT`: the configuration's port NAME is this DPDK port (or interface). */
struct dp_port_alias {
    char name[DP_NAME_LEN];    /* a `port` of topology.aps */
    char port[DP_NAME_LEN];    /* DPDK port name, vdev iface name or port number; nfqueue: interface name */
};

struct dp_options {
    enum dp_backend backend;
    const char *config_path;          /* JSON configuration document (required) */
    int check_only;                   /* --check-config: check config_path (and the files named) and exit */
    const char *uplink;               /* wired-side port (DPDK) or interface (nfqueue) */
    struct dp_ap_binding aps[DP_MAX_AP_PORTS];
    unsigned n_aps;                   /* count of explicit --ap bindings */
    struct dp_port_alias aliases[DP_MAX_PORT_ALIASES];
    unsigned n_aliases;               /* count of --port renamings */
    const char *telemetry_path;       /* JSON-lines telemetry file, NULL = none */
    const char *redis_addr;           /* "unix:/path" or "host:port", NULL = no Redis */
    const char *stats_path;           /* counters + timing error as JSON at exit, NULL = none */
    const char *pid_path;             /* pid file written after start-up, NULL = none */
    const char *pacing_path;          /* JSON {"ap/sta": bit/s} of paced pairs (SPEC §3.7), NULL = none */
    const char *ack_model_path;       /* ACK-burst classifier coefficients (configs/ack_burst_model.json), NULL = none */
    unsigned queue_num;               /* nfqueue: NFQUEUE number (iptables --queue-num) */
    unsigned burst;                   /* packets per RX/TX burst */
    unsigned total_num_mbufs;         /* DPDK mbuf pool size, packets */
    unsigned tx_backlog;              /* DPDK: frames per port waiting for a full TX ring (dpdk_tx_backlog.h) */
    unsigned hold_pkts;               /* packets the core may hold (set from the backend's buffer space; DPDK: less the
                                         frames waiting in TX backlogs, dpdk_loop.c) */
    uint64_t run_ms;                  /* stop by itself after this many ms, 0 = until SIGTERM/SIGINT */
    int busy_poll;                    /* 1 = never sleep when idle (benchmarks only) */
    int rt_priority;                  /* SCHED_FIFO priority of the loop (1..99), 0 = normal scheduling */
};

/*
 * Parses argv (argv[0] is the program name).  Returns 0, or -1 with a
 * message naming the offending option in err.  Returns 1 for --help
 * (usage already written to stdout).
 */
int dp_options_parse(struct dp_options *o, int argc, char **argv, char *err, unsigned errlen);

/* Finds --backend nfqueue anywhere in argv (decides whether the EAL is started). */
int dp_options_wants_nfqueue(int argc, char **argv);

/* Finds --check-config anywhere in argv: no EAL then (the check runs as any user, without hugepages). */
int dp_options_wants_check(int argc, char **argv);

void dp_options_usage(const char *prog);

#endif
