/*
 * Command-line parsing for adwiser-dp with getopt_long.  The DPDK EAL has
 * already consumed its own arguments (everything before `--`) when this runs.
 */
#include "dp_options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_CONFIG = 256, OPT_BACKEND, OPT_UPLINK, OPT_AP, OPT_TELEMETRY, OPT_REDIS,
    OPT_STATS, OPT_PIDFILE, OPT_QUEUE, OPT_BURST, OPT_MBUFS, OPT_TX_BACKLOG, OPT_RUN_MS,
    OPT_BUSY, OPT_RT, OPT_PORT, OPT_PACING, OPT_ACK_MODEL, OPT_CHECK, OPT_HELP
};

static const struct option long_opts[] = {
    {"config", required_argument, NULL, OPT_CONFIG},
    {"check-config", required_argument, NULL, OPT_CHECK},
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"uplink", required_argument, NULL, OPT_UPLINK},
    {"ap", required_argument, NULL, OPT_AP},
    {"port", required_argument, NULL, OPT_PORT},
    {"telemetry", required_argument, NULL, OPT_TELEMETRY},
    {"redis", required_argument, NULL, OPT_REDIS},
    {"stats", required_argument, NULL, OPT_STATS},
    {"pid-file", required_argument, NULL, OPT_PIDFILE},
    {"queue-num", required_argument, NULL, OPT_QUEUE},
    {"burst", required_argument, NULL, OPT_BURST},
    {"total-num-mbufs", required_argument, NULL, OPT_MBUFS},
    {"tx-backlog", required_argument, NULL, OPT_TX_BACKLOG},
    {"run-ms", required_argument, NULL, OPT_RUN_MS},
    {"busy-poll", no_argument, NULL, OPT_BUSY},
    {"rt-priority", required_argument, NULL, OPT_RT},
    {"pacing", required_argument, NULL, OPT_PACING},
    {"ack-model", required_argument, NULL, OPT_ACK_MODEL},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

void dp_options_usage(const char *prog)
{
    printf("usage: %s [EAL args] -- --config FILE.json --uplink PORT [--ap AP_ID=PORT]...\n"
           "       %s --backend nfqueue --config FILE.json --uplink IFACE [--ap AP_ID=IFACE]... [--queue-num N]\n"
           "       %s --check-config FILE.json [--ack-model FILE] [--pacing FILE] [--ap AP_ID=PORT]... [--port NAME=PORT]...\n"
           "options:\n"
           "  --config FILE        configuration document (JSON, configs/schema/adwiser-config.schema.json)\n"
           "  --check-config FILE  check FILE as a start would (and the --ack-model, --pacing, --ap, --port given),\n"
           "                       print 'FILE: ok' or the error, exit 0 or 1; no EAL, ports, Redis or hugepages\n"
           "  --backend B          dpdk (default) or nfqueue\n"
           "  --uplink PORT        wired-side port: DPDK port name, vdev iface name or port id; nfqueue: interface\n"
           "  --ap ID=PORT         AP-facing port of AP ID (default: the AP's `port` in the configuration)\n"
           "  --port NAME=PORT     the configuration's port NAME (e.g. a VLAN trunk shared by APs) is PORT\n"
           "  --telemetry FILE     per-frame and per-pair telemetry as JSON lines\n"
           "  --redis ADDR         unix:/path or host:port: config updates, heartbeat, telemetry streams\n"
           "  --stats FILE         counters and slice-start timing error as JSON, written at exit\n"
           "  --pid-file FILE      write the process id once running\n"
           "  --pacing FILE        JSON {\"ap/sta\": bit/s}: pace those pairs (until Redis says otherwise)\n"
           "  --ack-model FILE     ACK-burst classifier coefficients: per-pair aggregation estimate (agg_est)\n"
           "  --queue-num N        nfqueue: NFQUEUE number (default 0)\n"
           "  --burst N            packets per RX/TX burst (default 32)\n"
           "  --total-num-mbufs N  DPDK mbuf pool size (default 16384)\n"
           "  --tx-backlog N       frames per port waiting for a full TX ring (default 4096)\n"
           "  --run-ms MS          exit by itself after MS milliseconds (benchmarks)\n"
           "  --busy-poll          never sleep when idle (benchmarks)\n"
           "  --rt-priority N      run the loop SCHED_FIFO at priority N (1..99): slice starts on time on a loaded host\n",
           prog, prog, prog);
}

/*
 * The long option arg names as getopt_long reads it (its name exact, or a prefix of one option alone), or -1;
 * *value: what follows '=' in it, or NULL. The scans main() runs before the EAL must find what the parser will.
 */
static int long_opt_of(const char *arg, const char **value)
{
    if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0')
        return -1;
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    *value = eq ? eq + 1 : NULL;
    int found = -1;
    for (const struct option *lo = long_opts; lo->name; lo++) {
        if (strncmp(lo->name, name, len) != 0)
            continue;
        if (strlen(lo->name) == len)
            return lo->val;
        if (found != -1)
            return -1;   /* ambiguous */
        found = lo->val;
    }
    return found;
}

int dp_options_wants_nfqueue(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *value;
        if (long_opt_of(argv[i], &value) != OPT_BACKEND)
            continue;
        if (!value)
            value = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(value, "nfqueue") == 0)
            return 1;
    }
    return 0;
}

int dp_options_wants_check(int argc, char **argv)
{
    const char *value;
    for (int i = 1; i < argc; i++)
        if (long_opt_of(argv[i], &value) == OPT_CHECK)
            return 1;
    return 0;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    if (s[0] == '\0' || s[0] == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || v > max)
        return -1;
    *out = v;
    return 0;
}

/*
 * The binding already given for name (the AP id of --ap, or the configuration port of --port), or -1. A second one
 * for the same name would leave one of them silently unused, and an error about the binding in force would quote
 * the other (dp_topology.c names a binding by the first match).
 */
static int find_ap_binding(const struct dp_options *o, const char *name, size_t len)
{
    for (unsigned i = 0; i < o->n_aps; i++)
        if (strlen(o->aps[i].ap_id) == len && memcmp(o->aps[i].ap_id, name, len) == 0)
            return (int)i;
    return -1;
}

static int find_port_alias(const struct dp_options *o, const char *name, size_t len)
{
    for (unsigned i = 0; i < o->n_aliases; i++)
        if (strlen(o->aliases[i].name) == len && memcmp(o->aliases[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

int dp_options_parse(struct dp_options *o, int argc, char **argv, char *err, unsigned errlen)
{
    unsigned long long v;
    int backend_given = 0;
    const char *nfq_only = NULL, *dpdk_only = NULL;   /* the last option given that one backend alone reads */
    memset(o, 0, sizeof(*o));
    o->backend = DP_BACKEND_DPDK;
    o->burst = 32;
    o->total_num_mbufs = 16384;
    o->tx_backlog = 4096;
    optind = 1;
    opterr = 0;
    for (;;) {
        int c = getopt_long(argc, argv, "", long_opts, NULL);
        if (c == -1)
            break;
        switch (c) {
        case OPT_CONFIG:
        case OPT_CHECK:
            /* A check of one document next to a start with another would say nothing about either. */
            if (o->config_path && o->check_only != (c == OPT_CHECK)) {
                snprintf(err, errlen, "--check-config and --config: give one of them");
                return -1;
            }
            /* Nor would a second document of the same option: only the last would be read (and called ok). */
            if (o->config_path) {
                const char *opt = c == OPT_CHECK ? "--check-config" : "--config";
                snprintf(err, errlen, "%s %s: %s %s is already given; give one document", opt, optarg, opt,
                         o->config_path);
                return -1;
            }
            o->config_path = optarg;
            o->check_only = c == OPT_CHECK;
            break;
        case OPT_UPLINK: o->uplink = optarg; break;
        case OPT_TELEMETRY: o->telemetry_path = optarg; break;
        case OPT_REDIS: o->redis_addr = optarg; break;
        case OPT_STATS: o->stats_path = optarg; break;
        case OPT_PIDFILE: o->pid_path = optarg; break;
        case OPT_PACING: o->pacing_path = optarg; break;
        case OPT_ACK_MODEL: o->ack_model_path = optarg; break;
        case OPT_BUSY:
            o->busy_poll = 1;
            dpdk_only = "--busy-poll";
            break;
        case OPT_BACKEND:
            /* main() starts the EAL or not from the first `--backend nfqueue` (dp_options_wants_nfqueue): a later
             * --backend could only contradict it. */
            if (backend_given) {
                snprintf(err, errlen, "--backend %s: --backend is already given (%s); give one backend", optarg,
                         o->backend == DP_BACKEND_NFQUEUE ? "nfqueue" : "dpdk");
                return -1;
            }
            backend_given = 1;
            if (strcmp(optarg, "dpdk") == 0)
                o->backend = DP_BACKEND_DPDK;
            else if (strcmp(optarg, "nfqueue") == 0)
                o->backend = DP_BACKEND_NFQUEUE;
            else {
                snprintf(err, errlen, "--backend: '%s' is neither dpdk nor nfqueue", optarg);
                return -1;
            }
            break;
        case OPT_AP: {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || eq[1] == '\0' || (size_t)(eq - optarg) >= DP_NAME_LEN
                || strlen(eq + 1) >= DP_NAME_LEN) {
                snprintf(err, errlen, "--ap: '%s' is not AP_ID=PORT", optarg);
                return -1;
            }
            int prev = find_ap_binding(o, optarg, (size_t)(eq - optarg));
            if (prev >= 0) {
                snprintf(err, errlen, "--ap %s: AP '%s' is already bound by --ap %s=%s", optarg, o->aps[prev].ap_id,
                         o->aps[prev].ap_id, o->aps[prev].port);
                return -1;
            }
            if (o->n_aps == DP_MAX_AP_PORTS) {
                snprintf(err, errlen, "--ap: more than %d AP ports", DP_MAX_AP_PORTS);
                return -1;
            }
            struct dp_ap_binding *b = &o->aps[o->n_aps++];
            memcpy(b->ap_id, optarg, (size_t)(eq - optarg));
            b->ap_id[eq - optarg] = '\0';
            snprintf(b->port, sizeof(b->port), "%s", eq + 1);
            break;
        }
        case OPT_PORT: {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || eq[1] == '\0' || (size_t)(eq - optarg) >= DP_NAME_LEN
                || strlen(eq + 1) >= DP_NAME_LEN) {
                snprintf(err, errlen, "--port: '%s' is not NAME=PORT", optarg);
                return -1;
            }
            int prev = find_port_alias(o, optarg, (size_t)(eq - optarg));
            if (prev >= 0) {
                snprintf(err, errlen, "--port %s: port '%s' is already bound by --port %s=%s", optarg,
                         o->aliases[prev].name, o->aliases[prev].name, o->aliases[prev].port);
                return -1;
            }
            if (o->n_aliases == DP_MAX_PORT_ALIASES) {
                snprintf(err, errlen, "--port: more than %d renamings", DP_MAX_PORT_ALIASES);
                return -1;
            }
            struct dp_port_alias *a = &o->aliases[o->n_aliases++];
            memcpy(a->name, optarg, (size_t)(eq - optarg));
            a->name[eq - optarg] = '\0';
            snprintf(a->port, sizeof(a->port), "%s", eq + 1);
            break;
        }
        case OPT_QUEUE:
            if (parse_uint(optarg, 65535, &v)) {
                snprintf(err, errlen, "--queue-num: '%s' is not 0..65535", optarg);
                return -1;
            }
            o->queue_num = (unsigned)v;
            nfq_only = "--queue-num";
            break;
        case OPT_BURST:
            if (parse_uint(optarg, 512, &v) || v == 0) {
                snprintf(err, errlen, "--burst: '%s' is not 1..512", optarg);
                return -1;
            }
            o->burst = (unsigned)v;
            dpdk_only = "--burst";
            break;
        case OPT_MBUFS:
            if (parse_uint(optarg, 1u << 24, &v) || v < 1024) {
                snprintf(err, errlen, "--total-num-mbufs: '%s' is not 1024..16777216", optarg);
                return -1;
            }
            o->total_num_mbufs = (unsigned)v;
            dpdk_only = "--total-num-mbufs";
            break;
        case OPT_TX_BACKLOG:
            if (parse_uint(optarg, 1u << 24, &v) || v == 0) {
                snprintf(err, errlen, "--tx-backlog: '%s' is not 1..16777216", optarg);
                return -1;
            }
            o->tx_backlog = (unsigned)v;
            dpdk_only = "--tx-backlog";
            break;
        case OPT_RUN_MS:
            if (parse_uint(optarg, 86400000ull * 365, &v)) {
                snprintf(err, errlen, "--run-ms: '%s' is not a number of milliseconds", optarg);
                return -1;
            }
            o->run_ms = v;
            break;
        case OPT_RT:
            if (parse_uint(optarg, 99, &v) || v == 0) {
                snprintf(err, errlen, "--rt-priority: '%s' is not 1..99", optarg);
                return -1;
            }
            o->rt_priority = (int)v;
            break;
        case OPT_HELP:
            dp_options_usage(argv[0]);
            return 1;
        default:
            snprintf(err, errlen, "unknown or incomplete option '%s'", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    /* Given to the backend that never reads it, an option would be ignored without a word (a --queue-num for
     * the DPDK backend: the queue the iptables rule names would never be read). */
    if (o->backend == DP_BACKEND_DPDK && nfq_only) {
        snprintf(err, errlen, "%s: an option of the NFQUEUE backend, which --backend nfqueue selects", nfq_only);
        return -1;
    }
    if (o->backend == DP_BACKEND_NFQUEUE && dpdk_only) {
        snprintf(err, errlen, "%s: an option of the DPDK backend, not read by --backend nfqueue", dpdk_only);
        return -1;
    }
    if (!o->config_path) {
        snprintf(err, errlen, "--config FILE is required");
        return -1;
    }
    if (!o->uplink && !o->check_only) {
        snprintf(err, errlen, "--uplink PORT is required");
        return -1;
    }
    return 0;
}
