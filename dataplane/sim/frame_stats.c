/* frame_stats.c — see frame_stats.h. */
#include "frame_stats.h"

#include <math.h>
#include <string.h>

void frame_stats_init(struct frame_stats *f, unsigned first_steady)
{
    memset(f, 0, sizeof(*f));
    f->first_steady = first_steady;
}

void frame_stats_add(struct frame_stats *f, const struct adw_pair_report pr[2])
{
    struct frame_row row;
    for (unsigned i = 0; i < 2; i++) {
        row.r[i] = pr[i].r_pkts;
        row.v_ms[i] = pr[i].v_ns / 1e6;
        row.rel[i] = pr[i].released_pkts;
        row.limit[i] = pr[i].limit_pkts;
        if (f->n_frames >= f->first_steady) {
            struct steady_sums *st = &f->steady[i];
            st->frames++;
            st->r_sum += pr[i].r_pkts;
            st->r_sum2 += (double)pr[i].r_pkts * pr[i].r_pkts;
            st->v_sum_ns += (double)pr[i].v_sum_ns;
            st->drains += pr[i].drains;
        }
    }
    if (f->n_rows < SIM_MAX_FRAMES)
        f->rows[f->n_rows++] = row;
    f->last = row;
    f->n_frames++;
}

void frame_stats_steady(const struct frame_stats *f, unsigned i, struct steady_pair *out)
{
    const struct steady_sums *st = &f->steady[i];
    unsigned n = st->frames;
    out->frames = n;
    out->mean_r = n ? st->r_sum / n : 0;
    out->sd_r = n ? sqrt(fmax(0, st->r_sum2 / n - out->mean_r * out->mean_r)) : 0;
    out->mean_v_ms = st->drains ? st->v_sum_ns / (double)st->drains / 1e6 : 0;
}
