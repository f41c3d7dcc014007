/*
 * wlan-emu — the real-time WLAN emulator of the ADWISER testbed (issue 3).
 *
 * Runs inside the emulator network namespace. Each AP node of the air model
 * (testbed/air) is bound to the interface that faces the appliance's port for
 * that AP, each STA node to the interface that faces the STA's namespace.
 * A unicast frame from AP k's interface addressed to a STA of AP k (MAC
 * learned from the STA's own frames, or given with mac=) is queued in the air
 * model at its arrival time; a unicast frame from a STA's interface is queued
 * uplink to its AP. The model decides in virtual microseconds (= microseconds
 * of CLOCK_MONOTONIC since start) when each MPDU reaches its receiver, and the
 * frame leaves the receiver's interface at that time: the loop sleeps in
 * ppoll() until just before the next model event (timer slack 1 µs), then
 * spins the last few µs (SPEC §7). Group-addressed frames, frames for unknown
 * MACs, runts and oversize frames bypass the air at once and are counted.
 * SIGTERM/SIGINT (or --duration) stop it: the exchanges on the air finish
 * (no new one starts), then the stats file and the ground-truth log (one JSON
 * line per PPDU) are written (see README.md). SIGUSR1
 * applies the --rss-step path changes (a link's RSS, both ways) at that instant.
 *
 * This file holds the command line, the ports and the real-time loop; the
 * parts it drives are listed in emu.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "emu.h"
#include "eth_frame.h"
#include "rss_step.h"

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t rss_step_requested;   /* SIGUSR1s not yet applied */

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        rss_step_requested++;
    else
        stop_requested = 1;
}

/* ---------------------------------------------------------------- CLI */

static void usage(FILE *f)
{
    fputs("usage: wlan-emu [--air air.json] --ap NAME=IFACE ... --sta NAME=IFACE[,mac=MAC][,ap=AP] ...\n"
          "                [--gt-log FILE] [--stats FILE] [--duration S] [--seed N] [--spin-us N] [--pidfile F]\n"
          "  --air       air model config (default: ../air/lab-2ap-2sta.json next to the binary)\n"
          "  --ap        bind AP node NAME of the config to interface IFACE (faces the appliance)\n"
          "  --sta       bind STA node NAME to IFACE (faces the STA); mac= pins its MAC (else learned),\n"
          "              ap= must match the config's association\n"
          "  --gt-log    ground-truth log, one JSON line per PPDU (alias --groundtruth)\n"
          "  --stats     JSON stats written at exit\n"
          "  --duration  stop after S seconds (default: until SIGTERM/SIGINT)\n"
          "  --seed      air model random seed (default 1)\n"
          "  --spin-us   busy-wait this long before an event instead of sleeping (default 10)\n"
          "  --rt-priority  SCHED_FIFO priority, 0 = normal scheduling (default 10)\n"
          "  --rss-step  NODE,NODE,DB: on each SIGUSR1, shift that link's RSS by DB both ways (repeatable)\n"
          "  --pidfile   write the process id here\n",
          f);
}

/* Bounds of the numeric options. A run longer than MAX_DURATION_S is a typo; a spin longer than MAX_SPIN_US
 * keeps one of the two cores busy between events instead of sleeping; SCHED_FIFO priorities end at 99. */
#define MAX_DURATION_S 1e6
#define MAX_SPIN_US 100000
#define MAX_RT_PRIORITY 99

/* A decimal integer in [0, max] and nothing else, or false with a message naming the option. Read leniently,
 * "abc" would be 0 (no spin, no real-time priority) and "-5" a spin that never sleeps. */
static bool parse_uint_option(const char *opt, const char *s, uint64_t max, uint64_t *out)
{
    char *end = (char *)s;
    unsigned long long v = 0;
    errno = 0;
    if (isdigit((unsigned char)s[0]))
        v = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v > max) {
        fprintf(stderr, "wlan-emu: %s '%s': expected an integer in [0, %llu]\n", opt, s, (unsigned long long)max);
        return false;
    }
    *out = v;
    return true;
}

/* Seconds in (0, MAX_DURATION_S], or false with a message naming the option. Read leniently, "abc", "nan" or 0
 * would be a run without a deadline. */
static bool parse_seconds_option(const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !(v > 0 && v <= MAX_DURATION_S)) {
        fprintf(stderr, "wlan-emu: %s '%s': expected seconds in (0, %.0f]\n", opt, s, MAX_DURATION_S);
        return false;
    }
    *out = v;
    return true;
}

/* The IFACE of a NAME=IFACE[,...] port spec (up to the first comma), or an empty name. */
static void spec_iface(const char *spec, char *out, size_t n)
{
    const char *eq = strchr(spec, '=');
    const char *s = eq ? eq + 1 : "";
    size_t len = strcspn(s, ",");
    snprintf(out, n, "%.*s", (int)(len < n ? len : n - 1), s);
}

/* Whether no interface is given to two ports, or false with a message naming it: two sockets on one interface
 * would each read every frame it receives and forward it twice, once as each port's. */
static bool ifaces_distinct(char *const *specs, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            char a[256], b[256];
            spec_iface(specs[i], a, sizeof a);
            spec_iface(specs[j], b, sizeof b);
            if (a[0] && strcmp(a, b) == 0) {
                fprintf(stderr, "wlan-emu: interface %s is given to two ports ('%s', '%s')\n", a, specs[j], specs[i]);
                return false;
            }
        }
    return true;
}

static int bind_port(struct emu *e, const char *spec, enum wlan_role role, char *err, size_t errlen)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    char *opts = strchr(buf, ',');
    if (opts)
        *opts++ = '\0';
    char *eq = strchr(buf, '=');
    if (!eq || eq == buf || !eq[1]) {
        snprintf(err, errlen, "'%s': expected NAME=IFACE", spec);
        return -1;
    }
    *eq = '\0';
    int node = wlan_air_node_index(e->air, buf);
    if (node < 0 || e->cfg->nodes[node].role != role) {
        snprintf(err, errlen, "'%s': the air config has no %s named '%s'", spec, role == WLAN_ROLE_AP ? "AP" : "STA",
                 buf);
        return -1;
    }
    if (e->port_of_node[node] >= 0) {
        snprintf(err, errlen, "'%s': node '%s' is bound twice", spec, buf);
        return -1;
    }
    struct port *p = &e->ports[e->n_ports];
    memset(p, 0, sizeof *p);
    p->node = node;
    snprintf(p->ifname, sizeof p->ifname, "%s", eq + 1);
    for (char *o = opts ? strtok(opts, ",") : NULL; o; o = strtok(NULL, ",")) {
        if (role == WLAN_ROLE_STA && strncmp(o, "mac=", 4) == 0) {
            if (eth_parse_mac(o + 4, p->mac) != 0 || (p->mac[0] & 1)) {
                snprintf(err, errlen, "'%s': '%s' is not a unicast MAC", spec, o + 4);
                return -1;
            }
            p->has_mac = p->mac_pinned = true;
        } else if (role == WLAN_ROLE_STA && strncmp(o, "ap=", 3) == 0) {
            int ap = wlan_air_node_index(e->air, o + 3);
            if (ap != e->cfg->nodes[node].ap) {
                snprintf(err, errlen, "'%s': the air config associates %s with %s, not %s", spec, buf,
                         e->cfg->nodes[e->cfg->nodes[node].ap].name, o + 3);
                return -1;
            }
        } else {
            snprintf(err, errlen, "'%s': unknown option '%s'", spec, o);
            return -1;
        }
    }
    p->fd = packet_socket_open(p->ifname, err, errlen);
    if (p->fd < 0)
        return -1;
    e->port_of_node[node] = e->n_ports++;
    return 0;
}

static void default_air_path(char *out, size_t n)
{
    char exe[2048];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(out, n, "%s/../air/lab-2ap-2sta.json", k > 0 ? exe : ".");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"air", required_argument, 0, 'a'},      {"ap", required_argument, 0, 'A'},
        {"sta", required_argument, 0, 'S'},      {"gt-log", required_argument, 0, 'g'},
        {"groundtruth", required_argument, 0, 'g'}, {"stats", required_argument, 0, 's'},
        {"duration", required_argument, 0, 'd'}, {"seed", required_argument, 0, 'r'},
        {"spin-us", required_argument, 0, 'p'},  {"pidfile", required_argument, 0, 'P'},
        {"rt-priority", required_argument, 0, 'R'}, {"rss-step", required_argument, 0, 'X'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    char air_path[4096] = "", *gt_path = NULL, *stats_path = NULL, *pidfile = NULL;
    char *aps[WLAN_MAX_NODES], *stas[WLAN_MAX_NODES], *step_specs[MAX_RSS_STEPS];
    int n_aps = 0, n_stas = 0, n_steps = 0;
    double duration = 0;
    uint64_t seed = 1, spin_us = 10, rt_priority = 10;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': snprintf(air_path, sizeof air_path, "%s", optarg); break;
        case 'A': if (n_aps < WLAN_MAX_NODES) aps[n_aps++] = optarg; break;
        case 'S': if (n_stas < WLAN_MAX_NODES) stas[n_stas++] = optarg; break;
        case 'g': gt_path = optarg; break;
        case 's': stats_path = optarg; break;
        case 'd':
            if (!parse_seconds_option("--duration", optarg, &duration))
                return 2;
            break;
        case 'r':
            if (!parse_uint_option("--seed", optarg, UINT64_MAX, &seed))
                return 2;
            break;
        case 'p':
            if (!parse_uint_option("--spin-us", optarg, MAX_SPIN_US, &spin_us))
                return 2;
            break;
        case 'P': pidfile = optarg; break;
        case 'R':
            if (!parse_uint_option("--rt-priority", optarg, MAX_RT_PRIORITY, &rt_priority))
                return 2;
            break;
        case 'X':
            if (n_steps == MAX_RSS_STEPS) {
                fprintf(stderr, "wlan-emu: at most %d --rss-step\n", MAX_RSS_STEPS);
                return 2;
            }
            step_specs[n_steps++] = optarg;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc || n_aps == 0 || n_stas == 0) {
        usage(stderr);
        return 2;
    }
    char *port_specs[2 * WLAN_MAX_NODES];
    memcpy(port_specs, aps, (size_t)n_aps * sizeof aps[0]);
    memcpy(port_specs + n_aps, stas, (size_t)n_stas * sizeof stas[0]);
    if (!ifaces_distinct(port_specs, n_aps + n_stas))
        return 2;
    if (!air_path[0])
        default_air_path(air_path, sizeof air_path);
    struct wlan_air_config cfg;
    char err[512];
    if (wlan_air_config_load(air_path, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "wlan-emu: %s: %s\n", air_path, err);
        return 1;
    }
    static struct emu e;
    e.air = wlan_air_create(&cfg, seed);
    e.links = calloc((size_t)WLAN_MAX_NODES * WLAN_MAX_NODES, sizeof *e.links);
    e.rxbuf = malloc(RX_BUF_BYTES);
    if (!e.air || !e.links || !e.rxbuf || frame_store_init(&e.store) != 0) {
        fprintf(stderr, "wlan-emu: out of memory\n");
        return 1;
    }
    e.cfg = wlan_air_config(e.air);
    for (int i = 0; i < WLAN_MAX_NODES; i++)
        e.port_of_node[i] = -1;
    struct rss_step steps[MAX_RSS_STEPS];
    for (int i = 0; i < n_steps; i++)
        if (rss_step_parse(e.air, step_specs[i], &steps[i], err, sizeof err) != 0) {
            fprintf(stderr, "wlan-emu: --rss-step %s\n", err);
            return 1;
        }
    for (int i = 0; i < n_aps; i++)
        if (bind_port(&e, aps[i], WLAN_ROLE_AP, err, sizeof err) != 0) {
            fprintf(stderr, "wlan-emu: --ap %s\n", err);
            return 1;
        }
    for (int i = 0; i < n_stas; i++) {
        if (bind_port(&e, stas[i], WLAN_ROLE_STA, err, sizeof err) != 0) {
            fprintf(stderr, "wlan-emu: --sta %s\n", err);
            return 1;
        }
        int sta = e.ports[e.n_ports - 1].node;
        if (e.port_of_node[e.cfg->nodes[sta].ap] < 0) {
            fprintf(stderr, "wlan-emu: --sta %s: its AP %s has no --ap interface\n", stas[i],
                    e.cfg->nodes[e.cfg->nodes[sta].ap].name);
            return 1;
        }
    }
    if (gt_path && !(e.gt = fopen(gt_path, "w"))) {
        fprintf(stderr, "wlan-emu: --gt-log %s: %s\n", gt_path, strerror(errno));
        return 1;
    }
    if (pidfile) {
        FILE *pf = fopen(pidfile, "w");
        if (!pf) {
            fprintf(stderr, "wlan-emu: --pidfile %s: %s\n", pidfile, strerror(errno));
            return 1;
        }
        fprintf(pf, "%d\n", (int)getpid());
        fclose(pf);
    }
    /* Timer precision for delivery at the virtual time (SPEC §7). */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    /* On 2 shared cores the TCP endpoints would otherwise delay our wake-ups
     * by a scheduler slice (ms). The loop sleeps when idle and spins at most
     * --spin-us, so a modest SCHED_FIFO priority cannot starve the machine
     * (and the kernel's RT throttling bounds it anyway). */
    if (rt_priority > 0) {
        struct sched_param sp = {.sched_priority = (int)rt_priority};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
            fprintf(stderr, "wlan-emu: SCHED_FIFO %d not available (%s); running at normal priority\n",
                    (int)rt_priority, strerror(errno));
    }
    sigset_t block, waitmask;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGUSR1);
    sigprocmask(SIG_BLOCK, &block, &waitmask);
    sigdelset(&waitmask, SIGTERM);
    sigdelset(&waitmask, SIGINT);
    sigdelset(&waitmask, SIGUSR1);
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);

    struct pollfd pfd[WLAN_MAX_NODES];
    for (int i = 0; i < e.n_ports; i++)
        pfd[i] = (struct pollfd){.fd = e.ports[i].fd, .events = POLLIN};
    /* The Unix time of t0, read on both sides of it, so adwiser-dp's telemetry (Unix ns) and the ground truth
     * (µs since t0) can be put on one clock (testbed/runner/slice_overflow.py). */
    uint64_t rt_before = realtime_ns();
    e.t0_ns = mono_ns();
    uint64_t rt_after = realtime_ns();
    e.t0_unix_ns = rt_before + (rt_after - rt_before) / 2;
    uint64_t deadline = duration > 0 ? (uint64_t)(duration * 1e6) : UINT64_MAX;
    const struct timespec zero = {0, 0};
    fprintf(stderr, "wlan-emu: %d ports, air %s\n", e.n_ports, air_path);
    while (!stop_requested) {
        const struct wlan_air_callbacks *cb = emu_callbacks(&e);
        uint64_t now = e.advance_us;
        if (now >= deadline)
            break;
        for (; rss_step_requested > 0; rss_step_requested--)
            rss_steps_apply(e.air, steps, n_steps, now, cb);
        wlan_air_advance(e.air, now, cb);
        int got = 0;
        for (int i = 0; i < e.n_ports; i++)
            got += emu_drain_port(&e, &e.ports[i]);
        if (got)
            continue;
        uint64_t next = wlan_air_next_event_us(e.air);
        if (next > deadline)
            next = deadline;
        now = now_us(&e);
        if (next <= now)
            continue;
        uint64_t wait = next == UINT64_MAX ? 1000000 : next - now;
        if (wait > spin_us) {
            /* Sleep until just before the event, or until a frame arrives or a signal. */
            uint64_t s = wait - spin_us;
            struct timespec ts = {(time_t)(s / 1000000), (long)(s % 1000000) * 1000};
            ppoll(pfd, (nfds_t)e.n_ports, &ts, &waitmask);
            continue;
        }
        while (now_us(&e) < next && ppoll(pfd, (nfds_t)e.n_ports, &zero, NULL) == 0)
            ; /* spin the last few µs */
    }
    emu_finish_exchanges(&e);
    double wall_s = (double)(mono_ns() - e.t0_ns) / 1e9;
    int rc = 0;
    if (e.gt && fclose(e.gt) != 0) {
        fprintf(stderr, "wlan-emu: writing %s: %s\n", gt_path, strerror(errno));
        rc = 1;
    }
    if (stats_path && emu_write_stats(&e, stats_path, wall_s) != 0) {
        fprintf(stderr, "wlan-emu: writing %s failed\n", stats_path);
        rc = 1;
    }
    for (int i = 0; i < e.n_ports; i++)
        close(e.ports[i].fd);
    frame_store_free(&e.store);
    free(e.links);
    free(e.rxbuf);
    wlan_air_destroy(e.air);
    /* Ours (written above); a pid file left behind would name whatever process gets this PID next. */
    if (pidfile)
        unlink(pidfile);
    return rc;
}
