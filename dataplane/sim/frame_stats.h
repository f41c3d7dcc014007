/*
 * frame_stats.h — what the simulation keeps of the core's frame reports
 * (adw_sched_poll_frame): per frame and pair the batch r(k), the drain time
 * V, the packets released and the A* limit of the first SIM_MAX_FRAMES frames
 * and of the latest, for the printed table; and, summed as the frames come
 * (every one, however long the run), the steady state per pair over the
 * frames from first_steady on: mean and sd of r, mean V. The mean V is over
 * the drains, from the reports' v_sum_ns and drains (adwiser/sched.h): a
 * mean of v_ns would count a drain again in every frame where none ended and
 * miss one of two that ended in one frame, the overruns.
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
};

struct steady_sums {
    unsigned frames;
    double r_sum, r_sum2;
    double v_sum_ns;             /* drain times of the drains that ended in those frames */
    uint64_t drains;
};

struct frame_stats {
    unsigned first_steady;       /* first frame of the steady state */
    unsigned n_frames;           /* frames reported */
    unsigned n_rows;             /* of which in rows: the first SIM_MAX_FRAMES */
    struct frame_row rows[SIM_MAX_FRAMES];
    struct frame_row last;       /* the latest frame */
    struct steady_sums steady[2];
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
