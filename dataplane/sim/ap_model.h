/*
 * ap_model.h — a synthetic AP for the simulation: a FIFO that sends the
 * packets the appliance released to it over the air one after the other,
 * each taking an exponentially distributed time of mean 1/beta (beta = the
 * pair's isolated service rate, packets per ms), so the drain time of a
 * batch of r packets has mean r/beta and variance r/beta^2, the model of
 * 004 §5 ("Effect of a"). It records how much of its airtime fell outside
 * its pair's own slice (slice overflow, SPEC §6). Its queue holds cap
 * packets (AP_QUEUE_CAP unless a test makes it smaller); a packet that
 * arrives to a full queue is tail-dropped and counted, as a real AP does.
 */
#ifndef ADW_SIM_AP_MODEL_H
#define ADW_SIM_AP_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "event_queue.h"
#include "rng.h"

#define AP_QUEUE_CAP 8192

struct ap_model {
    uint32_t index;              /* AP index (0-based; the appliance's port index + 1) */
    double beta_pkts_per_ms;     /* mean service rate */
    uint64_t seg[AP_QUEUE_CAP];  /* segment indices waiting (ring) */
    uint32_t head, n;
    uint32_t cap;                /* queue capacity, packets (<= AP_QUEUE_CAP) */
    uint64_t drops_tail;         /* packets refused because the queue was full (whole run) */
    bool busy;
    uint64_t service_start_ns;   /* start of the head packet's transmission */
    uint64_t slice_off_ns;       /* own slice: [k*frame + off, k*frame + off + len) */
    uint64_t slice_len_ns;
    uint64_t frame_ns;
    uint64_t air_ns;             /* airtime used (measured window) */
    uint64_t air_outside_ns;     /* of which outside the own slice */
};

void ap_init(struct ap_model *ap, uint32_t index, double beta, uint64_t slice_off_ns, uint64_t slice_len_ns,
             uint64_t frame_ns);
/* A released packet arrives at the AP at now. -1 if the AP queue is full: the packet is tail-dropped (counted in
 * drops_tail) and the caller must tell its sender. */
int ap_receive(struct ap_model *ap, uint64_t seg, uint64_t now_ns, struct event_queue *q, struct rng *r);
/* The head packet's transmission ended at now: returns its segment, starts the next one. Airtime counts if
 * measure is true. */
uint64_t ap_done(struct ap_model *ap, uint64_t now_ns, struct event_queue *q, struct rng *r, bool measure);

#endif
