/*
 * sta_periods.h — adwiser-sta-agent's accounting: the packets go in, one
 * report per period comes out (what tm:sta gets), and the run's totals (what
 * --stats says) are the sums over the same periods, the last partial one
 * included. So every packet counted in the totals belongs to exactly one
 * A-MPDU counted there, and packets / frames is the mean A-MPDU the reports
 * carry (before the n_max cap and the model's scale).
 *
 * Pure: no I/O, the time is passed in (the kernel timestamps' clock).
 */
#ifndef ADW_AGENT_STA_PERIODS_H
#define ADW_AGENT_STA_PERIODS_H

#include <stdbool.h>
#include <stdint.h>

#include "frame_boundary.h"

/* One period's report: the arguments of tm_sta_writer_report. */
struct sta_report {
    double mean;                             /* packets per A-MPDU closed in the period, each capped at n_max,
                                                times the model's scale, capped at n_max (adw_ack_model_estimate) */
    uint32_t frames;                         /* A-MPDUs closed in the period */
    uint64_t pkts;                           /* packets received in the period */
};

struct sta_periods {
    struct adw_frame_est est;
    uint64_t idle_close_ns;                  /* an A-MPDU without a packet for this long is over */
    uint64_t pkts;                           /* packets received, whole run */
    uint64_t frames;                         /* A-MPDUs closed, whole run */
    uint64_t unreported_pkts;                /* packets of periods that closed no A-MPDU (no entry): the next
                                                entry carries them */
};

void sta_periods_init(struct sta_periods *p, const struct adw_ack_model *model, uint64_t idle_close_ns);
/* A packet received at t_ns; true if it starts a new A-MPDU. */
bool sta_periods_packet(struct sta_periods *p, uint64_t t_ns);
/* A period ends at now_ns: true if *r is to be written (an A-MPDU closed in it; a period that closed none writes
 * nothing, and its packets go with the next report that is written). */
bool sta_periods_end(struct sta_periods *p, uint64_t now_ns, struct sta_report *r);
/* The run ends: no packet will come, so the A-MPDU still open is closed and the partial period ends with it;
 * true if *r is to be written. */
bool sta_periods_finish(struct sta_periods *p, struct sta_report *r);

#endif
