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
    if (f->n_rows >= SIM_MAX_FRAMES)
        return;
    struct frame_row *row = &f->rows[f->n_rows++];
    for (unsigned i = 0; i < 2; i++) {
        row->r[i] = pr[i].r_pkts;
        row->v_ms[i] = pr[i].v_ns / 1e6;
        row->rel[i] = pr[i].released_pkts;
        row->limit[i] = pr[i].limit_pkts;
        row->drains[i] = pr[i].drains;
        row->v_sum_ns[i] = pr[i].v_sum_ns;
    }
}

void frame_stats_steady(const struct frame_stats *f, unsigned i, struct steady_pair *out)
{
    double sum = 0, sum2 = 0, v_sum_ns = 0;
    unsigned n = 0, drains = 0;
    for (unsigned k = f->first_steady; k < f->n_rows; k++, n++) {
        sum += f->rows[k].r[i];
        sum2 += (double)f->rows[k].r[i] * f->rows[k].r[i];
        v_sum_ns += (double)f->rows[k].v_sum_ns[i];
        drains += f->rows[k].drains[i];
    }
    out->frames = n;
    out->mean_r = n ? sum / n : 0;
    out->sd_r = n ? sqrt(fmax(0, sum2 / n - out->mean_r * out->mean_r)) : 0;
    out->mean_v_ms = drains ? v_sum_ns / drains / 1e6 : 0;
}
