/*
 * frame_stats.h — what the simulation keeps of the core's frame reports
 * (adw_sched_poll_frame): per frame and pair the batch r(k), the drain time
 * V, the packets released and the A* limit, for the printed table; and the
 * steady-state summary per pair (mean and sd of r, mean V) over the frames
 * from first_steady on. The mean V is over the drains, from the reports'
 * v_sum_ns and drains (adwiser/sched.h): a mean of v_ns would count a drain
 * again in every frame where none ended and miss one of two that ended in
 * one frame, the overruns.
 */
#ifndef ADW_SIM_FRAME_STATS_H
#define ADW_SIM_FRAME_STATS_H

#include "adwiser/sched.h"

#define SIM_MAX_FRAMES 4096

struct frame_row {
    uint32_t r[2];
    double v_ms[2];              /* the core's v_ns: the last drain that ended, repeated while none ends */
    uint32_t rel[2];
    uint32_t limit[2];
    uint32_t drains[2];          /* drains that ended in the frame */
    uint64_t v_sum_ns[2];        /* their drain times */
};

struct frame_stats {
    unsigned first_steady;       /* first frame of the steady state */
    unsigned n_rows;
    struct frame_row rows[SIM_MAX_FRAMES];
};

struct steady_pair {
    unsigned frames;             /* frames summarised */
    double mean_r, sd_r;         /* batch size r(k), packets */
    double mean_v_ms;            /* drain time V over the drains that ended in those frames, ms */
};

void frame_stats_init(struct frame_stats *f, unsigned first_steady);
/* The reports of pairs 0 and 1 for the next finished frame. */
void frame_stats_add(struct frame_stats *f, const struct adw_pair_report pr[2]);
void frame_stats_steady(const struct frame_stats *f, unsigned pair, struct steady_pair *out);

#endif
