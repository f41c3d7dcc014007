/* wan-emu: a user-space WAN between two interfaces (SPEC §5: the kernel has
 * no netem). Every frame received on one interface is sent out of the other
 * after the bottleneck rate and the one-way delay of that direction
 * (delay_line.h), so the server sees the paper's WAN (004 §6.1: 75 ms each
 * way, 200 Mbit/s each way).
 *
 * Timing: the loop sleeps in one ppoll() on both sockets and a timerfd armed
 * (TFD_TIMER_ABSTIME) at the next departure, so it wakes when a frame arrives
 * or a frame is due, whichever is first. A timerfd expires on time: ppoll's
 * own timeout gets a slack of 1/1000 of its length (1/200 when niced) for a
 * non-real-time process, which made lone frames behind a 400 ms delay leave
 * late (up to 0.2 ms; niced up to 1.8 ms, measured p50 0.36-0.68 ms). With nothing queued it blocks in ppoll() and costs no CPU.
 * SIGTERM/SIGINT end it cleanly; the counters are printed as one JSON object
 * on exit (stdout, or --stats FILE).
 */
#define _GNU_SOURCE
#include "delay_line.h"
#include "json_string.h"
#include "lateness_hist.h"
#include "packet_port.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000ull
/* Frames drained from one socket per loop turn, so neither direction starves. */
#define RX_BURST 64
/* At exit, read at most this many bursts per socket: 16384 frames, more than
 * a full receive buffer holds (the 4 MiB asked for, doubled by the kernel, at
 * >= ~550 bytes of sk_buff and shared info per frame: < 15300 frames). */
#define EXIT_DRAIN_BURSTS 256

struct direction {
    const char *label;          /* "a_to_b" or "b_to_a" */
    struct packet_port *in;     /* where frames arrive */
    struct packet_port *out;    /* where they leave */
    struct delay_line line;     /* the emulated one-way link */
    uint64_t rx_errors;         /* recv() failures, count */
    uint64_t tx_frames;         /* frames sent, count */
    uint64_t tx_bytes;          /* bytes sent, bytes */
    uint64_t tx_errors;         /* send() failures (frame lost), count */
    struct lateness_hist late;  /* departure lateness */
};

struct options {
    const char *if_a, *if_b;    /* interface names */
    double delay_ms;            /* one-way delay, ms, both directions */
    double rate_mbit;           /* bottleneck, Mbit/s, both directions; 0 = unlimited */
    uint64_t queue_bytes;       /* serialisation backlog limit, bytes; 0 = unbounded */
    uint32_t slots;             /* ring capacity per direction, frames */
    const char *stats_path;     /* where to write the exit counters; NULL = stdout */
    const char *pid_path;       /* pid file, or NULL */
    int rt_priority;            /* SCHED_FIFO priority, 0 = normal scheduling */
};

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static struct timespec ns_to_ts(uint64_t ns)
{
    return (struct timespec){.tv_sec = (time_t)(ns / NS_PER_S), .tv_nsec = (long)(ns % NS_PER_S)};
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: wan-emu --if-a IF --if-b IF [--delay-ms MS] [--rate-mbit MBIT]\n"
            "               [--queue-bytes N] [--slots N] [--stats FILE] [--pidfile FILE]\n"
            "               [--rt-priority N]\n"
            "Forwards every frame between IF-A and IF-B after a one-way delay and a rate\n"
            "limit in each direction. Defaults: delay 0, rate unlimited, queue 2000000\n"
            "bytes, 8192 slots, normal scheduling (--rt-priority N: SCHED_FIFO N, so the\n"
            "TCP endpoints sharing the CPUs do not delay departures by milliseconds).\n"
            "Counters are printed as JSON on SIGTERM/SIGINT.\n");
}

static int parse_double(const char *name, const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    /* Written as "not inside" so that NaN, which compares false with everything, is refused too. */
    if (errno != 0 || *end != '\0' || end == s || !(v >= min && v <= max)) {
        fprintf(stderr, "wan-emu: invalid %s '%s' (expected a number in [%g, %g])\n", name, s,
                min, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* A count: a number in [min, max] with no fractional part (truncating one
 * would change its meaning: --queue-bytes 0.5 would become 0, unbounded). */
static int parse_whole(const char *name, const char *s, double min, double max, double *out)
{
    if (parse_double(name, s, min, max, out) < 0)
        return -1;
    if (*out != floor(*out)) {
        fprintf(stderr, "wan-emu: invalid %s '%s' (expected a whole number)\n", name, s);
        return -1;
    }
    return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"if-a", required_argument, NULL, 'a'},     {"if-b", required_argument, NULL, 'b'},
        {"delay-ms", required_argument, NULL, 'd'}, {"rate-mbit", required_argument, NULL, 'r'},
        {"queue-bytes", required_argument, NULL, 'q'}, {"slots", required_argument, NULL, 's'},
        {"stats", required_argument, NULL, 'S'},    {"pidfile", required_argument, NULL, 'p'},
        {"rt-priority", required_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
    };
    *o = (struct options){.queue_bytes = 2000000, .slots = 8192};
    int c;
    double v;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'a': o->if_a = optarg; break;
        case 'b': o->if_b = optarg; break;
        case 'd':
            if (parse_double("--delay-ms", optarg, 0, 10000, &o->delay_ms) < 0)
                return -1;
            break;
        case 'r':
            if (parse_double("--rate-mbit", optarg, 0, 100000, &o->rate_mbit) < 0)
                return -1;
            /* The link counts whole bit/s: under 1 bit/s would round to 0, which means unlimited. */
            if (o->rate_mbit > 0 && o->rate_mbit < 1e-6) {
                fprintf(stderr, "wan-emu: invalid --rate-mbit '%s' (0 for unlimited, or at least 1e-06)\n",
                        optarg);
                return -1;
            }
            break;
        case 'q':
            if (parse_whole("--queue-bytes", optarg, 0, 1e9, &v) < 0)
                return -1;
            o->queue_bytes = (uint64_t)v;
            break;
        case 's':
            if (parse_whole("--slots", optarg, 1, 1 << 20, &v) < 0)
                return -1;
            o->slots = (uint32_t)v;
            break;
        case 'R':
            if (parse_whole("--rt-priority", optarg, 0, 99, &v) < 0)
                return -1;
            o->rt_priority = (int)v;
            break;
        case 'S': o->stats_path = optarg; break;
        case 'p': o->pid_path = optarg; break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "wan-emu: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (o->if_a == NULL || o->if_b == NULL) {
        fprintf(stderr, "wan-emu: --if-a and --if-b are required\n");
        usage(stderr);
        return -1;
    }
    /* Two sockets on one interface would send every frame it receives back out of it, once per direction. */
    if (strcmp(o->if_a, o->if_b) == 0) {
        fprintf(stderr, "wan-emu: --if-a and --if-b are both '%s' (expected two interfaces)\n", o->if_a);
        return -1;
    }
    return 0;
}

/* Moves up to RX_BURST frames waiting on d->in into d's delay line; returns
 * how many it read. */
static int receive_burst(struct direction *d, uint8_t *buf, size_t cap)
{
    for (int i = 0; i < RX_BURST; i++) {
        ssize_t n = packet_port_recv(d->in, buf, cap);
        if (n == 0)
            return i;
        if (n < 0) {
            d->rx_errors++;
            return i;
        }
        (void)delay_line_push(&d->line, mono_ns(), buf, (size_t)n);
    }
    return RX_BURST;
}

/* Sends every frame due by now; returns the due time of the next one, or 0. */
static uint64_t transmit_due(struct direction *d)
{
    const struct frame_slot *s;
    while ((s = delay_line_head(&d->line)) != NULL) {
        uint64_t now = mono_ns();
        if (s->due_ns > now)
            return s->due_ns;
        if (packet_port_send(d->out, s->data, s->len) == 0) {
            d->tx_frames++;
            d->tx_bytes += s->len;
        } else {
            d->tx_errors++;
        }
        lateness_hist_add(&d->late, now - s->due_ns);
        delay_line_pop(&d->line);
    }
    return 0;
}

static void print_direction(FILE *f, const struct direction *d)
{
    const struct delay_line_counters *c = &d->line.ctr;
    fprintf(f,
            "\"%s\":{\"rx_frames\":%" PRIu64 ",\"accepted_bytes\":%" PRIu64 ",\"tx_frames\":%" PRIu64
            ",\"tx_bytes\":%" PRIu64 ",\"drop_queue\":%" PRIu64 ",\"drop_ring\":%" PRIu64
            ",\"drop_oversize\":%" PRIu64 ",\"rx_dropped_kernel\":%" PRIu64 ",\"rx_errors\":%" PRIu64
            ",\"tx_errors\":%" PRIu64
            ",\"held_at_exit\":%" PRIu32 ",\"late_p50_us\":%" PRIu64 ",\"late_p99_us\":%" PRIu64
            ",\"late_max_us\":%" PRIu64 "}",
            d->label, c->accepted_frames + c->drop_queue + c->drop_ring + c->drop_oversize,
            c->accepted_bytes, d->tx_frames, d->tx_bytes, c->drop_queue, c->drop_ring,
            c->drop_oversize, packet_port_kernel_drops(d->in), d->rx_errors, d->tx_errors, d->line.count,
            lateness_hist_quantile_us(&d->late, 0.50), lateness_hist_quantile_us(&d->late, 0.99),
            d->late.max_ns / 1000u);
}

/* Writes the counters to `f` (the --stats file opened at start, or stdout) and closes a file. */
static int write_stats(FILE *f, const struct options *o, const struct direction dir[2])
{
    fputs("{\"if_a\":", f);
    json_put_string(f, o->if_a);
    fputs(",\"if_b\":", f);
    json_put_string(f, o->if_b);
    fprintf(f, ",\"delay_ms\":%g,\"rate_mbit\":%g,", o->delay_ms, o->rate_mbit);
    print_direction(f, &dir[0]);
    fputc(',', f);
    print_direction(f, &dir[1]);
    fputs("}\n", f);
    return f == stdout ? fflush(f) : fclose(f);
}

/* Arms `tfd` to expire at `due_ns` (CLOCK_MONOTONIC), or disarms it for 0. */
static int arm_timer(int tfd, uint64_t due_ns)
{
    struct itimerspec its = {.it_value = ns_to_ts(due_ns)};
    return timerfd_settime(tfd, due_ns == 0 ? 0 : TFD_TIMER_ABSTIME, &its, NULL);
}

static int run(const struct options *o, struct direction dir[2], struct packet_port ports[2])
{
    static uint8_t buf[65536];
    sigset_t blocked, during_wait;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    sigprocmask(SIG_BLOCK, &blocked, &during_wait);
    sigdelset(&during_wait, SIGTERM);
    sigdelset(&during_wait, SIGINT);

    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (tfd < 0)
        return -1;
    struct pollfd pfd[3] = {{.fd = ports[0].fd, .events = POLLIN},
                            {.fd = ports[1].fd, .events = POLLIN},
                            {.fd = tfd, .events = POLLIN}};
    uint64_t armed = 0;  /* departure the timer is set for, ns; 0 = disarmed */
    int rc = 0;
    (void)o;
    while (!stop_requested) {
        receive_burst(&dir[0], buf, sizeof(buf));
        receive_burst(&dir[1], buf, sizeof(buf));
        uint64_t next = 0;
        for (int i = 0; i < 2; i++) {
            uint64_t due = transmit_due(&dir[i]);
            if (due != 0 && (next == 0 || due < next))
                next = due;
        }
        if (next != armed) {
            if (arm_timer(tfd, next) < 0) {
                rc = -1;
                break;
            }
            armed = next;
        }
        /* Nothing held: no timer, so this blocks until a frame or a signal arrives. */
        if (ppoll(pfd, 3, NULL, &during_wait) < 0 && errno != EINTR) {
            rc = -1;
            break;
        }
        if (pfd[2].revents & POLLIN) {
            /* Reading clears the expiry; left unread it would keep ppoll returning at once. */
            uint64_t expirations;
            (void)!read(tfd, &expirations, sizeof(expirations));
            armed = 0;
        }
    }
    int saved = errno;
    close(tfd);
    /* Frames already waiting in the sockets have arrived: take them in, so that they
     * are counted (held at exit, or dropped) instead of vanishing from every counter.
     * Bounded, as the sender may still be sending. */
    for (int i = 0; i < 2; i++)
        for (int n = 0; n < EXIT_DRAIN_BURSTS && receive_burst(&dir[i], buf, sizeof(buf)) == RX_BURST; n++)
            ;
    errno = saved;
    return rc;
}

int main(int argc, char **argv)
{
    struct options o;
    if (parse_options(argc, argv, &o) < 0)
        return 2;
    /* Opened now, not at exit: a path that cannot be written is refused before the run, not found after it
     * with the run's counters lost. */
    FILE *stats = o.stats_path ? fopen(o.stats_path, "w") : stdout;
    if (stats == NULL) {
        fprintf(stderr, "wan-emu: --stats %s: %s\n", o.stats_path, strerror(errno));
        return 2;
    }
    /* Precise wake-ups (SPEC §7): whatever slack the kernel gives the loop's waits, at most 1 ns. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (o.rt_priority > 0) {
        /* The loop blocks whenever nothing is due, so a real-time priority
         * only makes departures punctual; it cannot starve the machine. */
        struct sched_param sp = {.sched_priority = o.rt_priority};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
            fprintf(stderr, "wan-emu: SCHED_FIFO %d not permitted (%s); normal scheduling\n",
                    o.rt_priority, strerror(errno));
    }

    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    static struct packet_port ports[2];
    char err[256];
    if (packet_port_open(&ports[0], o.if_a, err, sizeof(err)) < 0 ||
        packet_port_open(&ports[1], o.if_b, err, sizeof(err)) < 0) {
        fprintf(stderr, "wan-emu: %s\n", err);
        packet_port_close(&ports[0]);
        return 1;
    }
    static struct direction dir[2];
    dir[0] = (struct direction){.label = "a_to_b", .in = &ports[0], .out = &ports[1]};
    dir[1] = (struct direction){.label = "b_to_a", .in = &ports[1], .out = &ports[0]};
    uint64_t rate_bps = (uint64_t)llround(o.rate_mbit * 1e6);
    uint64_t delay_ns = (uint64_t)llround(o.delay_ms * 1e6);
    for (int i = 0; i < 2; i++) {
        if (delay_line_init(&dir[i].line, o.slots, rate_bps, delay_ns, o.queue_bytes) < 0) {
            fprintf(stderr, "wan-emu: cannot allocate %u slots: %s\n", o.slots, strerror(errno));
            return 1;
        }
    }
    if (o.pid_path != NULL) {
        FILE *pf = fopen(o.pid_path, "w");
        if (pf == NULL) {
            fprintf(stderr, "wan-emu: cannot write %s: %s\n", o.pid_path, strerror(errno));
            return 1;
        }
        fprintf(pf, "%d\n", (int)getpid());
        fclose(pf);
    }
    fprintf(stderr, "wan-emu: %s <-> %s, delay %g ms, rate %g Mbit/s, queue %" PRIu64 " bytes\n",
            o.if_a, o.if_b, o.delay_ms, o.rate_mbit, o.queue_bytes);
    int rc = run(&o, dir, ports);
    if (rc < 0)
        fprintf(stderr, "wan-emu: wait failed: %s\n", strerror(errno));
    if (write_stats(stats, &o, dir) < 0)
        rc = -1;
    for (int i = 0; i < 2; i++) {
        delay_line_free(&dir[i].line);
        packet_port_close(&ports[i]);
    }
    if (o.pid_path != NULL)
        unlink(o.pid_path);
    return rc < 0 ? 1 : 0;
}
