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
 * SIGTERM/SIGINT (or --duration) stop it; the stats file and the ground-truth
 * log (one JSON line per PPDU) are written then (see README.md). SIGUSR1
 * applies the --rss-step path changes (a link's RSS, both ways) at that instant.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "delivery_timing.h"
#include "eth_frame.h"
#include "frame_store.h"
#include "packet_socket.h"
#include "wlan_air.h"

#define RX_BUF_BYTES 65536
#define RX_BATCH 128

struct port {
    int node;                    /* air model node index */
    char ifname[32];             /* interface name */
    int fd;                      /* AF_PACKET socket */
    bool has_mac;                /* STA: MAC known */
    uint8_t mac[6];              /* STA: its MAC */
};

struct link_stats {
    uint64_t frames_in;          /* frames queued into the model */
    uint64_t bytes_in;           /* their bytes */
    uint64_t frames_out;         /* frames sent at their delivery time */
    uint64_t dropped;            /* frames the model gave up (retry limit) */
    uint64_t refused;            /* frames the model refused (queue full) */
    struct delivery_timing timing; /* lateness of frames_out, at send completion */
    struct delivery_timing wakeup; /* lateness of the loop reaching the delivery event */
    struct delivery_timing intake; /* kernel arrival on the interface -> read and queued into the air */
};

struct emu {
    wlan_air_t *air;
    const struct wlan_air_config *cfg;
    struct port ports[WLAN_MAX_NODES];
    int n_ports;
    int port_of_node[WLAN_MAX_NODES]; /* index into ports, -1 if unbound */
    struct frame_store store;
    struct link_stats *links;    /* [src * WLAN_MAX_NODES + dst] */
    uint64_t t0_ns;              /* CLOCK_MONOTONIC at start (ns) */
    uint64_t t0_unix_ns;         /* CLOCK_REALTIME at that instant (ns): puts start_us on the Unix clock of other logs */
    uint64_t bypass_group;       /* broadcast/multicast forwarded at once */
    uint64_t bypass_unknown;     /* unicast to an unknown MAC, flooded at once */
    uint64_t bypass_malformed;   /* runts forwarded at once */
    uint64_t bypass_oversize;    /* frames above a slot, forwarded at once */
    uint64_t no_slot;            /* frames dropped: frame store full */
    uint64_t tx_errors;          /* sends that failed */
    uint64_t rx_errors;          /* receive errors */
    FILE *gt;                    /* ground-truth log, NULL if none */
    uint64_t gt_records;         /* PPDUs logged */
    uint8_t *rxbuf;              /* receive buffer */
    uint64_t advance_us;         /* the instant the current wlan_air_advance() runs to (µs) */
};

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t rss_step_requested;   /* SIGUSR1s not yet applied */

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        rss_step_requested++;
    else
        stop_requested = 1;
}

/* A path change applied on SIGUSR1 (--rss-step): an obstacle or a STA moving changes the link's RSS mid-run
 * (issue 9's MCS step), at the instant the test harness chooses, on the virtual clock. */
struct rss_step {
    int a, b;          /* air-model nodes of the link */
    double delta_db;   /* RSS change, both ways (dB) */
};

#define MAX_RSS_STEPS 8

static int parse_rss_step(const wlan_air_t *air, const char *spec, struct rss_step *out, char *err, size_t errlen)
{
    char a[64], b[64];
    double d;
    char tail;
    if (sscanf(spec, "%63[^,],%63[^,],%lf%c", a, b, &d, &tail) != 3) {
        snprintf(err, errlen, "'%s': expected NODE,NODE,DELTA_DB", spec);
        return -1;
    }
    out->a = wlan_air_node_index(air, a);
    out->b = wlan_air_node_index(air, b);
    if (out->a < 0 || out->b < 0 || out->a == out->b) {
        snprintf(err, errlen, "'%s': '%s' and '%s' must be two nodes of the air config", spec, a, b);
        return -1;
    }
    if (!(d >= -60.0 && d <= 60.0)) {
        snprintf(err, errlen, "'%s': DELTA_DB must be within [-60, 60] dB", spec);
        return -1;
    }
    out->delta_db = d;
    return 0;
}

/* Applies every --rss-step once per SIGUSR1 received, logging what the link's RSS became. */
static void apply_rss_steps(wlan_air_t *air, const struct rss_step *st, int n, uint64_t now_us)
{
    const struct wlan_air_config *c = wlan_air_config(air);
    for (int i = 0; i < n; i++) {
        if (wlan_air_shift_link_rss(air, st[i].a, st[i].b, st[i].delta_db) != 0) {
            fprintf(stderr, "wlan-emu: rss step %s<->%s %+.1f dB at %llu us refused (outside [-150, 0] dBm)\n",
                    c->nodes[st[i].a].name, c->nodes[st[i].b].name, st[i].delta_db, (unsigned long long)now_us);
            continue;
        }
        fprintf(stderr, "wlan-emu: rss step at %llu us: %s<->%s %+.1f dB, now %.1f dBm at %s, %.1f dBm at %s\n",
                (unsigned long long)now_us, c->nodes[st[i].a].name, c->nodes[st[i].b].name, st[i].delta_db,
                c->rss_dbm[st[i].b][st[i].a], c->nodes[st[i].b].name, c->rss_dbm[st[i].a][st[i].b],
                c->nodes[st[i].a].name);
    }
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_us(const struct emu *e) { return (mono_ns() - e->t0_ns) / 1000; }

static struct link_stats *link_of(struct emu *e, int src, int dst)
{
    return &e->links[src * WLAN_MAX_NODES + dst];
}

static void send_on(struct emu *e, int node, const uint8_t *buf, size_t len)
{
    int p = e->port_of_node[node];
    if (p < 0 || packet_socket_send(e->ports[p].fd, buf, len) != 0)
        e->tx_errors++;
}

/* ---------------------------------------------------------------- model callbacks */

static void on_deliver(void *ctx, const struct wlan_delivery *d)
{
    struct emu *e = ctx;
    struct frame_slot *f = frame_store_get(&e->store, d->id);
    send_on(e, d->dst, f->data, f->len);
    uint64_t t = now_us(e);
    struct link_stats *l = link_of(e, d->src, d->dst);
    l->frames_out++;
    delivery_timing_add(&l->timing, t > d->deliver_us ? t - d->deliver_us : 0);
    delivery_timing_add(&l->wakeup, e->advance_us > d->deliver_us ? e->advance_us - d->deliver_us : 0);
    frame_store_release(&e->store, d->id);
}

static void on_dropped(void *ctx, const struct wlan_delivery *d)
{
    struct emu *e = ctx;
    link_of(e, d->src, d->dst)->dropped++;
    frame_store_release(&e->store, d->id);
}

static void on_ground_truth(void *ctx, const struct wlan_gt_record *r)
{
    struct emu *e = ctx;
    if (!e->gt)
        return;
    fprintf(e->gt,
            "{\"start_us\":%llu,\"duration_us\":%u,\"src\":\"%s\",\"dst\":\"%s\",\"ac\":\"%s\",\"mcs\":%u,"
            "\"phy_mbps\":%.1f,\"mpdus\":%u,\"ok\":%u,\"bytes\":%u,\"collided\":%s,\"preamble_lost\":%s,"
            "\"ba_ok\":%s,\"rts\":%s,\"ids\":[",
            (unsigned long long)r->start_us, r->duration_us, e->cfg->nodes[r->tx].name, e->cfg->nodes[r->rx].name,
            r->ac == WLAN_AC_VO ? "VO" : "BE", r->mcs, r->phy_mbps, r->n_mpdu, r->n_ok, r->bytes,
            r->collided ? "true" : "false", r->preamble_lost ? "true" : "false", r->ba_ok ? "true" : "false",
            r->rts ? "true" : "false");
    for (uint32_t i = 0; i < r->n_mpdu; i++)
        fprintf(e->gt, "%s%llu", i ? "," : "", (unsigned long long)frame_seq(r->ids[i]));
    fputs("],\"ok_mask\":\"", e->gt);
    for (uint32_t i = 0; i < r->n_mpdu; i++)
        fputc(r->ok[i] ? '1' : '0', e->gt);
    /* Parallel to ids: when each MPDU entered the AP's queue, on start_us's clock. */
    fputs("\",\"enq_us\":[", e->gt);
    for (uint32_t i = 0; i < r->n_mpdu; i++)
        fprintf(e->gt, "%s%llu", i ? "," : "", (unsigned long long)r->enq_us[i]);
    fputs("]}\n", e->gt);
    e->gt_records++;
}

static const struct wlan_air_callbacks *callbacks(struct emu *e)
{
    /* Every caller advances the air to the current instant. */
    e->advance_us = now_us(e);
    static struct wlan_air_callbacks cb;
    cb = (struct wlan_air_callbacks){on_deliver, on_ground_truth, on_dropped, e};
    return &cb;
}

/* ---------------------------------------------------------------- forwarding */

/* Sends a frame at once to every STA port of AP node ap. */
static void flood_to_stas(struct emu *e, int ap, const uint8_t *buf, size_t len)
{
    for (int i = 0; i < e->n_ports; i++) {
        int n = e->ports[i].node;
        if (e->cfg->nodes[n].role == WLAN_ROLE_STA && e->cfg->nodes[n].ap == ap)
            send_on(e, n, buf, len);
    }
}

/* intake_us: how long the frame waited between its arrival on the interface and our read (UINT64_MAX: unknown). */
static void into_air(struct emu *e, int src, int dst, const struct eth_info *info, const uint8_t *buf,
                     size_t len, uint64_t now, uint64_t intake_us)
{
    uint64_t id = frame_store_put(&e->store, buf, (uint32_t)len, now);
    if (id == UINT64_MAX) {
        e->no_slot++;
        return;
    }
    struct wlan_frame f = {.id = id, .len_bytes = (uint32_t)len, .src = (uint8_t)src, .dst = (uint8_t)dst,
                           .ac = info->ac};
    struct link_stats *l = link_of(e, src, dst);
    if (wlan_air_enqueue(e->air, &f, now) != 0) {
        l->refused++;
        frame_store_release(&e->store, id);
        return;
    }
    l->frames_in++;
    l->bytes_in += len;
    if (intake_us != UINT64_MAX)
        delivery_timing_add(&l->intake, intake_us);
}

static void from_ap(struct emu *e, struct port *p, const uint8_t *buf, size_t len, uint64_t now, uint64_t intake_us)
{
    struct eth_info info;
    eth_classify(buf, len, &info);
    if (info.kind == ETH_MALFORMED) {
        e->bypass_malformed++;
        flood_to_stas(e, p->node, buf, len);
        return;
    }
    if (info.kind == ETH_GROUP) {
        e->bypass_group++;
        flood_to_stas(e, p->node, buf, len);
        return;
    }
    for (int i = 0; i < e->n_ports; i++) {
        struct port *s = &e->ports[i];
        if (e->cfg->nodes[s->node].role != WLAN_ROLE_STA || e->cfg->nodes[s->node].ap != p->node || !s->has_mac ||
            memcmp(s->mac, info.dst, 6) != 0)
            continue;
        if (len > FRAME_SLOT_BYTES) {
            e->bypass_oversize++;
            send_on(e, s->node, buf, len);
        } else {
            into_air(e, p->node, s->node, &info, buf, len, now, intake_us);
        }
        return;
    }
    e->bypass_unknown++;
    flood_to_stas(e, p->node, buf, len);
}

static void from_sta(struct emu *e, struct port *p, const uint8_t *buf, size_t len, uint64_t now, uint64_t intake_us)
{
    struct eth_info info;
    eth_classify(buf, len, &info);
    int ap = e->cfg->nodes[p->node].ap;
    if (info.kind == ETH_MALFORMED) {
        e->bypass_malformed++;
        send_on(e, ap, buf, len);
        return;
    }
    if (!(info.src[0] & 1)) { /* learn the STA's address from what it sends */
        memcpy(p->mac, info.src, 6);
        p->has_mac = true;
    }
    if (info.kind == ETH_GROUP) {
        e->bypass_group++;
        send_on(e, ap, buf, len);
    } else if (len > FRAME_SLOT_BYTES) {
        e->bypass_oversize++;
        send_on(e, ap, buf, len);
    } else {
        into_air(e, p->node, ap, &info, buf, len, now, intake_us);
    }
}

/* Drains up to RX_BATCH frames of a port; returns how many were read. */
static int drain_port(struct emu *e, struct port *p)
{
    int got = 0;
    while (got < RX_BATCH) {
        uint64_t arrival_ns;
        ssize_t n = packet_socket_recv(p->fd, e->rxbuf, RX_BUF_BYTES, &arrival_ns);
        if (n == 0)
            break;
        if (n < 0) {
            e->rx_errors++;
            break;
        }
        size_t len = (size_t)n > RX_BUF_BYTES ? RX_BUF_BYTES : (size_t)n;
        /* The wait before the air model sees the frame: a real AP's queue would have held it from arrival. */
        uint64_t read_ns = realtime_ns();
        uint64_t intake_us = arrival_ns == 0 ? UINT64_MAX : read_ns > arrival_ns ? (read_ns - arrival_ns) / 1000 : 0;
        /* Bring the air up to the arrival instant before queueing into it. */
        const struct wlan_air_callbacks *cb = callbacks(e);
        uint64_t now = e->advance_us;
        wlan_air_advance(e->air, now, cb);
        if (e->cfg->nodes[p->node].role == WLAN_ROLE_AP)
            from_ap(e, p, e->rxbuf, len, now, intake_us);
        else
            from_sta(e, p, e->rxbuf, len, now, intake_us);
        got++;
    }
    return got;
}

/* ---------------------------------------------------------------- output */

static json_t *timing_json(const struct delivery_timing *t)
{
    return json_pack("{s:I,s:I,s:I,s:I}", "n", (json_int_t)t->n, "p50", (json_int_t)delivery_timing_quantile(t, 0.5),
                     "p99", (json_int_t)delivery_timing_quantile(t, 0.99), "max", (json_int_t)t->max_us);
}

static int write_stats(struct emu *e, const char *path, double wall_s)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    double sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    json_t *links = json_array();
    struct delivery_timing *all = calloc(1, sizeof *all);
    for (uint32_t s = 0; s < e->cfg->n_nodes; s++)
        for (uint32_t d = 0; d < e->cfg->n_nodes; d++) {
            struct wlan_link_counters k;
            wlan_air_link_counters(e->air, (int)s, (int)d, &k);
            struct link_stats *l = link_of(e, (int)s, (int)d);
            if (k.ppdus == 0 && l->frames_in == 0 && l->refused == 0)
                continue;
            for (int i = 0; i <= DT_MAX_US; i++)
                all->bucket[i] += l->timing.bucket[i];
            all->n += l->timing.n;
            if (l->timing.max_us > all->max_us)
                all->max_us = l->timing.max_us;
            json_t *j = json_pack(
                "{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:I,s:f,s:o,s:o,s:f}",
                "src", e->cfg->nodes[s].name, "dst", e->cfg->nodes[d].name,
                "frames_in", (json_int_t)l->frames_in, "bytes_in", (json_int_t)l->bytes_in,
                "frames_out", (json_int_t)l->frames_out, "dropped", (json_int_t)l->dropped,
                "queue_drops", (json_int_t)k.queue_drops, "ppdus", (json_int_t)k.ppdus,
                "mpdus", (json_int_t)k.mpdus_tx, "mpdus_ok", (json_int_t)k.mpdus_ok,
                "retx", (json_int_t)k.mpdus_retx, "delivered", (json_int_t)k.delivered,
                "bytes", (json_int_t)k.delivered_bytes, "collided", (json_int_t)k.collided,
                "preamble_lost", (json_int_t)k.preamble_lost,
                "mean_ampdu", k.ppdus ? json_real((double)k.sum_ampdu / (double)k.ppdus) : json_null(),
                "mean_phy_mbps", k.ppdus ? json_real(k.sum_phy_mbps / (double)k.ppdus) : json_null(),
                "airtime_us", (json_int_t)k.airtime_us, "airtime_frac", wall_s > 0 ? (double)k.airtime_us / (wall_s * 1e6) : 0.0,
                "timing_error_us", timing_json(&l->timing), "wakeup_error_us", timing_json(&l->wakeup),
                "throughput_mbps", wall_s > 0 ? (double)k.delivered_bytes * 8.0 / (wall_s * 1e6) : 0.0);
            /* RTS/CTS of the APs' fallback attempts (rate_control.rts_on_fallback; 004 §4.1 counts
             * the protected share of A-MPDUs). */
            json_object_set_new(j, "intake_latency_us", timing_json(&l->intake));
            json_object_set_new(j, "rts_tx", json_integer((json_int_t)k.rts_tx));
            json_object_set_new(j, "rts_failed", json_integer((json_int_t)k.rts_failed));
            json_object_set_new(j, "ppdus_protected", json_integer((json_int_t)k.ppdus_protected));
            json_array_append_new(links, j);
        }
    json_t *root = json_pack(
        "{s:f,s:f,s:f,s:f,s:o,s:o,s:{s:I,s:I,s:I,s:I},s:I,s:I,s:I,s:I}", "wall_s", wall_s, "cpu_user_s", user,
        "cpu_sys_s", sys, "cpu_percent", wall_s > 0 ? 100.0 * (user + sys) / wall_s : 0.0, "links", links,
        "timing_error_us", timing_json(all), "bypass", "broadcast_multicast", (json_int_t)e->bypass_group,
        "unknown_destination", (json_int_t)e->bypass_unknown, "malformed", (json_int_t)e->bypass_malformed,
        "oversize", (json_int_t)e->bypass_oversize, "no_slot_drops", (json_int_t)e->no_slot,
        "tx_errors", (json_int_t)e->tx_errors, "rx_errors", (json_int_t)e->rx_errors, "groundtruth_records",
        (json_int_t)e->gt_records);
    json_object_set_new(root, "t0_unix_ns", json_integer((json_int_t)e->t0_unix_ns));
    free(all);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = json_dump_file(root, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
    json_decref(root);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    return rc;
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
            p->has_mac = true;
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
    uint64_t seed = 1, spin_us = 10;
    int rt_priority = 10;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': snprintf(air_path, sizeof air_path, "%s", optarg); break;
        case 'A': if (n_aps < WLAN_MAX_NODES) aps[n_aps++] = optarg; break;
        case 'S': if (n_stas < WLAN_MAX_NODES) stas[n_stas++] = optarg; break;
        case 'g': gt_path = optarg; break;
        case 's': stats_path = optarg; break;
        case 'd': duration = atof(optarg); break;
        case 'r': seed = strtoull(optarg, NULL, 10); break;
        case 'p': spin_us = strtoull(optarg, NULL, 10); break;
        case 'P': pidfile = optarg; break;
        case 'R': rt_priority = atoi(optarg); break;
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
    if (optind < argc || n_aps == 0 || n_stas == 0 || duration < 0) {
        usage(stderr);
        return 2;
    }
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
        if (parse_rss_step(e.air, step_specs[i], &steps[i], err, sizeof err) != 0) {
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
        struct sched_param sp = {.sched_priority = rt_priority};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
            fprintf(stderr, "wlan-emu: SCHED_FIFO %d not available (%s); running at normal priority\n",
                    rt_priority, strerror(errno));
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
        const struct wlan_air_callbacks *cb = callbacks(&e);
        uint64_t now = e.advance_us;
        if (now >= deadline)
            break;
        for (; rss_step_requested > 0; rss_step_requested--)
            apply_rss_steps(e.air, steps, n_steps, now);
        wlan_air_advance(e.air, now, cb);
        int got = 0;
        for (int i = 0; i < e.n_ports; i++)
            got += drain_port(&e, &e.ports[i]);
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
    double wall_s = (double)(mono_ns() - e.t0_ns) / 1e9;
    int rc = 0;
    if (e.gt && fclose(e.gt) != 0) {
        fprintf(stderr, "wlan-emu: writing %s: %s\n", gt_path, strerror(errno));
        rc = 1;
    }
    if (stats_path && write_stats(&e, stats_path, wall_s) != 0) {
        fprintf(stderr, "wlan-emu: writing %s failed\n", stats_path);
        rc = 1;
    }
    for (int i = 0; i < e.n_ports; i++)
        close(e.ports[i].fd);
    frame_store_free(&e.store);
    free(e.links);
    free(e.rxbuf);
    wlan_air_destroy(e.air);
    return rc;
}
