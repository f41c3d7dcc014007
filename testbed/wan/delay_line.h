/* One direction of an emulated WAN link (SPEC §5: 75 ms each way, 200 Mbit/s).
 *
 * Model: a bottleneck of `rate_bps` feeding a propagation delay of `delay_ns`,
 * the same composition as netem's "delay + rate". A frame arriving at time t
 * starts serialising when the link is free, finishes len*8/rate later, and
 * leaves the far end `delay_ns` after that:
 *     start = max(t, link_free);  link_free = start + len*8/rate;
 * (link_free keeps the fraction of a ns that len*8/rate leaves, so that
 * rounding per frame does not make the link faster than `rate_bps`);
 *     due   = link_free + delay.
 * The bytes still waiting to be serialised at t are (link_free - t)*rate/8;
 * a frame that would push them beyond `queue_limit_bytes` is dropped at the
 * tail, as a router's bounded FIFO does (an unlimited rate has no backlog).
 * Frames leave strictly in arrival order, so `due` is non-decreasing and a
 * ring buffer suffices.
 */
#ifndef DELAY_LINE_H
#define DELAY_LINE_H

#include <stddef.h>
#include <stdint.h>

/* Largest Ethernet frame carried: 1500-byte MTU + 14 header + 4 VLAN tag. */
#define DELAY_LINE_FRAME_MAX 1518u

struct frame_slot {
    uint64_t due_ns;                     /* CLOCK_MONOTONIC ns when the frame leaves */
    uint16_t len;                        /* frame length, bytes */
    uint8_t data[DELAY_LINE_FRAME_MAX];  /* the Ethernet frame */
};

struct delay_line_counters {
    uint64_t accepted_frames;   /* frames queued, count */
    uint64_t accepted_bytes;    /* bytes queued, bytes */
    uint64_t drop_queue;        /* frames dropped: serialisation backlog over the limit, count */
    uint64_t drop_ring;         /* frames dropped: no free slot in the ring, count */
    uint64_t drop_oversize;     /* frames dropped: longer than DELAY_LINE_FRAME_MAX, count */
};

struct delay_line {
    struct frame_slot *slots;   /* ring storage, `capacity` slots */
    uint32_t capacity;          /* ring size, frames */
    uint32_t head;              /* index of the oldest frame */
    uint32_t count;             /* frames currently held */
    uint64_t rate_bps;          /* bottleneck rate, bit/s; 0 = unlimited */
    uint64_t delay_ns;          /* one-way propagation delay, ns */
    uint64_t queue_limit_bytes; /* max serialisation backlog, bytes; 0 = unbounded */
    uint64_t link_free_ns;      /* when the bottleneck finishes the last accepted frame, ns */
    uint64_t link_free_rem;     /* and the fraction of a ns after it, in units of 1/rate_bps ns */
    struct delay_line_counters ctr;
};

/* Allocates the ring; returns 0, or -1 with errno set. */
int delay_line_init(struct delay_line *dl, uint32_t capacity, uint64_t rate_bps,
                    uint64_t delay_ns, uint64_t queue_limit_bytes);
void delay_line_free(struct delay_line *dl);

/* Queues a frame that arrived at now_ns; returns 0 if accepted, -1 if dropped
 * (the cause is counted). */
int delay_line_push(struct delay_line *dl, uint64_t now_ns, const uint8_t *frame, size_t len);

/* Oldest frame, or NULL when empty. */
const struct frame_slot *delay_line_head(const struct delay_line *dl);
void delay_line_pop(struct delay_line *dl);

/* Bytes waiting for the bottleneck at now_ns. */
uint64_t delay_line_backlog_bytes(const struct delay_line *dl, uint64_t now_ns);

#endif
