/*
 * sta_agent.c — adwiser-sta-agent, the STA-side aggregation agent (SPEC §3.7;
 * 001 §4): runs on a station, timestamps every unicast IP packet its WLAN
 * interface receives (kernel receive timestamps, SO_TIMESTAMPNS, as 001 §4
 * does on a handset without MAC timestamps), finds the A-MPDU boundaries with
 * the logistic-regression classifier (frame_boundary.c) and every period
 * reports the pair's aggregation level to the controller:
 *
 *   XADD adwiser:appliance:<id>:tm:sta MAXLEN ~ 20000 *
 *        pair <ap/sta> mpdus <mean packets per A-MPDU> frames <A-MPDUs> mpdus_ok <packets>
 *
 * (controller/REDIS.md; the aggregation loop takes μ̃_N from these instead of
 * the appliance's ACK-burst estimate). An interval with no A-MPDU closed
 * writes nothing. At exit (SIGTERM/SIGINT or the end of --duration) the
 * A-MPDU still open is closed and the last, partial period reported like the
 * others, so the entries and --stats count every packet and A-MPDU seen.
 * Redis being unreachable never stops the agent: it retries at the next
 * period and counts what it could not write.
 *
 * This file is the capture and the loop; the command line is agent_options.c,
 * the accounting sta_periods.c, the Redis side tm_sta_writer.c.
 *
 * `--log FILE` writes one line per packet, "<receive time, Unix ns> <1 if
 * first of an A-MPDU, else 0>": the training data of
 * testbed/runner/sta_frames.py, labelled there from the emulator's ground
 * truth.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ack_model_json.h"
#include "agent_options.h"
#include "redis_addr.h"
#include "sta_periods.h"
#include "tm_sta_writer.h"

#define HEADER_BYTES 64                /* what is read of each frame: the Ethernet type is all it needs */
#define RCVBUF_BYTES (8 << 20)         /* a period's packets at a few hundred Mbit/s while Redis is written */
/* An A-MPDU still open after this long without a packet is over (the transfer paused): far above any gap inside
 * one (an MPDU's airtime, a driver poll), far below a report period. */
#define IDLE_CLOSE_NS 5000000ull
/* The socket is read every 2 ms, not woken for each packet: the kernel stamped each one as it arrived, so reading
 * late costs no accuracy, and a wake-up per packet (tens of thousands a second) would take CPU from the STA (in
 * the testbed, from the emulator and TCP stacks on the same two cores). The receive buffer holds far more. */
#define READ_INTERVAL_NS 2000000ull

/* What is not an A-MPDU's packet (those are counted in struct sta_periods). */
struct counters {
    uint64_t not_ip, not_host;
    uint64_t socket_drops;                   /* frames the kernel dropped at a full receive buffer: uncounted */
};

/* Adds the frames the kernel dropped since the last call (PACKET_STATISTICS resets on read). */
static void count_socket_drops(int fd, struct counters *n)
{
    struct tpacket_stats st;
    socklen_t len = sizeof(st);
    if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0)
        n->socket_drops += st.tp_drops;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static uint64_t ts_ns(struct timespec ts) { return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec; }

static uint64_t clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return ts_ns(ts);
}

/* A raw socket on the interface with kernel receive timestamps. */
static int open_socket(const char *iface)
{
    unsigned idx = if_nametoindex(iface);
    if (idx == 0) {
        fprintf(stderr, "adwiser-sta-agent: --iface %s: %s\n", iface, strerror(errno));
        return -1;
    }
    /* Protocol 0 until bound: no frame of another interface is queued before bind() picks this one. */
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        fprintf(stderr, "adwiser-sta-agent: AF_PACKET socket: %s (needs root or CAP_NET_RAW)\n", strerror(errno));
        return -1;
    }
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int)idx};
    int on = 1, rcvbuf = RCVBUF_BYTES;
    if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) != 0) {
        fprintf(stderr, "adwiser-sta-agent: %s: %s\n", iface, strerror(errno));
        close(fd);
        return -1;
    }
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) != 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    return fd;
}

/* Reads every frame waiting on the socket; the unicast IP ones addressed to this host go to the accounting. */
static void drain_socket(int fd, struct sta_periods *acc, struct counters *n, FILE *log)
{
    for (;;) {
        uint8_t buf[HEADER_BYTES];
        union {
            char raw[CMSG_SPACE(sizeof(struct timespec))];
            struct cmsghdr align;
        } ctl;
        struct sockaddr_ll from;
        struct iovec iov = {buf, sizeof(buf)};
        struct msghdr msg = {.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = ctl.raw, .msg_controllen = sizeof(ctl.raw)};
        ssize_t len = recvmsg(fd, &msg, MSG_TRUNC);
        if (len < 0)
            return; /* EAGAIN: nothing more; anything else is retried at the next wake-up */
        /* The MPDUs of the AP's A-MPDUs: unicast to this STA (not its own sends, not broadcast), IPv4 or IPv6. */
        if (from.sll_pkttype != PACKET_HOST) {
            n->not_host++;
            continue;
        }
        uint16_t type = len >= 14 ? (uint16_t)(buf[12] << 8 | buf[13]) : 0;
        if (type != ETHERTYPE_IP && type != ETHERTYPE_IPV6) {
            n->not_ip++;
            continue;
        }
        uint64_t t_ns = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof(ts));
                t_ns = ts_ns(ts);
            }
        if (t_ns == 0) /* no kernel timestamp (not expected with SO_TIMESTAMPNS): the time it was read */
            t_ns = clock_ns(CLOCK_REALTIME);
        bool first = sta_periods_packet(acc, t_ns);
        if (log)
            fprintf(log, "%llu %d\n", (unsigned long long)t_ns, first ? 1 : 0);
    }
}

/* The --stats file is written as PATH.tmp, renamed to PATH when complete. */
static void stats_tmp_path(const char *path, char *tmp, size_t len)
{
    snprintf(tmp, len, "%s.tmp", path);
}

/* Writes the counters into `f` (PATH.tmp, opened at start), closes it and renames it to `path`. */
static void write_stats(FILE *f, const char *path, const struct agent_options *o, const struct sta_periods *acc,
                        const struct counters *n, const struct tm_sta_writer *w, double elapsed_s)
{
    char tmp[4096];
    stats_tmp_path(path, tmp, sizeof(tmp));
    /* jansson escapes the names: Linux allows '"' and '\\' in an interface name, and printed as they are they made
     * the file no JSON */
    json_t *doc = json_pack("{s:s, s:s, s:f, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:f}", "pair", o->pair, "iface",
                            o->iface, "elapsed_s", elapsed_s, "packets", (json_int_t)acc->pkts, "frames",
                            (json_int_t)acc->frames, "mean_ampdu",
                            acc->frames ? (double)acc->pkts / (double)acc->frames : 0.0, "reports",
                            (json_int_t)w->reports, "redis_errors", (json_int_t)w->errors, "not_ip",
                            (json_int_t)n->not_ip, "not_host", (json_int_t)n->not_host, "socket_drops",
                            (json_int_t)n->socket_drops, "cpu_s", cpu_s());
    bool ok = doc != NULL && json_dumpf(doc, f, JSON_COMPACT | JSON_REAL_PRECISION(6)) == 0 && fputc('\n', f) != EOF;
    json_decref(doc);
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) == 0)
        return;
    fprintf(stderr, "adwiser-sta-agent: --stats %s: not written: %s\n", path, strerror(errno));
    unlink(tmp);
}

int main(int argc, char **argv)
{
    struct agent_options o;
    if (agent_options_parse(argc, argv, &o) != 0)
        return 2;
    struct adw_ack_model model;
    char err[512];
    if (ack_model_json_load_file(o.model, ACK_MODEL_KIND_STA_FRAME, &model, err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-sta-agent: --model %s: %s\n", o.model, err);
        return 2;
    }
    /* Looked up here, once: a reconnect from the loop below must not wait on DNS while the socket fills. */
    char redis_at[320];
    if (o.redis) {
        if (redis_addr_resolve(o.redis, redis_at, sizeof(redis_at), err, sizeof(err)) != 0) {
            fprintf(stderr, "adwiser-sta-agent: %s\n", err);
            return 1;
        }
        o.redis = redis_at;
    }
    int fd = open_socket(o.iface);
    if (fd < 0)
        return 1;
    FILE *log = NULL;
    if (o.log && (log = fopen(o.log, "w")) == NULL) {
        fprintf(stderr, "adwiser-sta-agent: --log %s: %s\n", o.log, strerror(errno));
        return 1;
    }
    if (log)
        setvbuf(log, NULL, _IOFBF, 1 << 20);
    /* Opened now, written at exit: a path that cannot be written is refused before the run, not found after it
     * with the run's counters lost. */
    char stats_tmp[4096];
    FILE *stats = NULL;
    if (o.stats) {
        stats_tmp_path(o.stats, stats_tmp, sizeof(stats_tmp));
        if ((stats = fopen(stats_tmp, "w")) == NULL) {
            fprintf(stderr, "adwiser-sta-agent: --stats %s: %s\n", o.stats, strerror(errno));
            return 1;
        }
    }
    /* The handler before the pid file: whoever reads the file may send SIGTERM at once, and the default action
     * would end the agent without its last report, --stats or the file's removal. */
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    if (o.pidfile) {
        /* Refused, not skipped: whoever waits for the file (the testbed's runner) would never see the agent. */
        FILE *pf = fopen(o.pidfile, "w");
        if (pf == NULL) {
            fprintf(stderr, "adwiser-sta-agent: --pidfile %s: %s\n", o.pidfile, strerror(errno));
            if (stats)
                unlink(stats_tmp);
            return 1;
        }
        fprintf(pf, "%d\n", (int)getpid());
        fclose(pf);
    }

    struct sta_periods acc;
    sta_periods_init(&acc, &model, IDLE_CLOSE_NS);
    struct counters n = {0};
    struct tm_sta_writer w;
    tm_sta_writer_init(&w, &o);
    uint64_t t0 = clock_ns(CLOCK_MONOTONIC), period_ns = (uint64_t)o.period_ms * 1000000u;
    uint64_t end = o.duration_s > 0 ? t0 + (uint64_t)(o.duration_s * 1e9) : UINT64_MAX;
    uint64_t next = t0 + period_ns;
    while (!stop_flag) {
        uint64_t now = clock_ns(CLOCK_MONOTONIC);
        if (now >= end)
            break;
        if (now >= next) {
            struct sta_report r;
            /* the estimator runs on the kernel timestamps' clock */
            bool any = sta_periods_end(&acc, clock_ns(CLOCK_REALTIME), &r);
            count_socket_drops(fd, &n);
            if (o.redis && any)
                tm_sta_writer_report(&w, r.mean, r.frames, r.pkts);
            next += period_ns;
            if (next <= now) /* a stall (suspended, Redis slow): the next period from now */
                next = now + period_ns;
            continue;
        }
        uint64_t wait_ns = (next < end ? next : end) - now;
        if (wait_ns > READ_INTERVAL_NS)
            wait_ns = READ_INTERVAL_NS;
        struct timespec nap = {(time_t)(wait_ns / 1000000000u), (long)(wait_ns % 1000000000u)};
        (void)nanosleep(&nap, NULL); /* a signal ends it early: stop_flag is checked next */
        drain_socket(fd, &acc, &n, log);
    }
    /* What came since the last read, then the open A-MPDU and the partial period: without them the last period's
     * packets were in --stats's packets but their A-MPDUs in no frames count and no entry. */
    drain_socket(fd, &acc, &n, log);
    struct sta_report last;
    if (sta_periods_finish(&acc, &last) && o.redis)
        tm_sta_writer_report(&w, last.mean, last.frames, last.pkts);
    tm_sta_writer_close(&w);
    if (log)
        fclose(log);
    count_socket_drops(fd, &n);
    close(fd);
    if (o.pidfile)
        unlink(o.pidfile);
    double elapsed = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
    if (stats)
        write_stats(stats, o.stats, &o, &acc, &n, &w, elapsed);
    fprintf(stderr,
            "adwiser-sta-agent: %s: %llu packets, %llu A-MPDUs, %llu reports, %llu Redis errors, %llu socket drops\n",
            o.pair, (unsigned long long)acc.pkts, (unsigned long long)acc.frames, (unsigned long long)w.reports,
            (unsigned long long)w.errors, (unsigned long long)n.socket_drops);
    return 0;
}
