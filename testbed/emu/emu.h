/*
 * emu.h — the state of wlan-emu and what its parts share.
 *
 * wlan_emu.c reads the command line, binds the ports and runs the real-time
 * loop; intake.c takes the frames read from the interfaces into the air
 * model (or past it); delivery.c sends them out of the air at their delivery
 * time and writes the ground-truth log; emu_stats.c writes the stats file;
 * rss_step.c applies --rss-step.
 */
#ifndef EMU_H
#define EMU_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "delivery_timing.h"
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
    bool mac_pinned;             /* STA: given with mac=, never learned over */
    uint8_t mac[6];              /* STA: its MAC */
};

struct link_stats {
    uint64_t frames_in;          /* frames queued into the model */
    uint64_t bytes_in;           /* their bytes */
    uint64_t frames_out;         /* frames sent at their delivery time */
    uint64_t dropped;            /* frames the model gave up (retry limit) */
    uint64_t refused;            /* frames the model refused (queue full) */
    uint64_t tx_errors;          /* frames the model delivered whose send failed (also in emu.tx_errors) */
    uint64_t in_air;             /* frames queued into the model, not yet delivered nor given up */
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

static inline uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The air model's virtual clock: µs of CLOCK_MONOTONIC since start. */
static inline uint64_t now_us(const struct emu *e) { return (mono_ns() - e->t0_ns) / 1000; }

static inline struct link_stats *link_of(struct emu *e, int src, int dst)
{
    return &e->links[src * WLAN_MAX_NODES + dst];
}

/* Sends a frame out of node's interface now; a node without one, or a failed send, is a tx error (false). */
static inline bool send_on(struct emu *e, int node, const uint8_t *buf, size_t len)
{
    int p = e->port_of_node[node];
    if (p < 0 || packet_socket_send(e->ports[p].fd, buf, len) != 0) {
        e->tx_errors++;
        return false;
    }
    return true;
}

/* delivery.c: the air model's callbacks, with the instant the caller advances the air to (now) in advance_us. */
const struct wlan_air_callbacks *emu_callbacks(struct emu *e);
/* delivery.c, at stop: the exchanges under way run to their end in real time (no new one starts, nothing more is
 * read; a few ms), so every frame handed up has its PPDU in the ground truth. */
void emu_finish_exchanges(struct emu *e);
/* intake.c: reads up to RX_BATCH frames of a port into the air; returns how many were read. */
int emu_drain_port(struct emu *e, struct port *p);
/* emu_stats.c: writes the stats file (atomically); 0 or -1. */
int emu_write_stats(struct emu *e, const char *path, double wall_s);

#endif
