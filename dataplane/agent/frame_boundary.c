/* frame_boundary.c — A-MPDU boundaries from kernel receive timestamps (001 §4.1); see frame_boundary.h. */
#include "frame_boundary.h"

#include <string.h>

void adw_frame_est_init(struct adw_frame_est *e, const struct adw_ack_model *model)
{
    memset(e, 0, sizeof(*e));
    e->model = model;
}

static void close_frame(struct adw_frame_est *e)
{
    if (e->open_pkts == 0)
        return;
    uint32_t n = e->open_pkts;
    if (e->model->n_max > 0 && n > e->model->n_max)
        n = e->model->n_max;
    e->frames++;
    e->frame_pkts += n;
    e->open_pkts = 0;
}

bool adw_frame_est_observe(struct adw_frame_est *e, uint64_t t_ns)
{
    const struct adw_ack_model *m = e->model;
    bool first = !e->have_last;
    if (e->have_last) {
        /* Kernel timestamps of one socket are in receive order; a step back of the clock counts as no gap. */
        double dt_us = t_ns > e->last_ns ? (double)(t_ns - e->last_ns) / 1000.0 : 0.0;
        /* The window holds the last m inter-arrival times, oldest first (the feature order of ack_model.h). */
        if (e->ia_n == m->m) {
            memmove(e->ia_us, e->ia_us + 1, (size_t)(m->m - 1) * sizeof(e->ia_us[0]));
            e->ia_n--;
        }
        e->ia_us[e->ia_n++] = dt_us;
        first = e->ia_n == m->m && adw_ack_model_prob(m, e->ia_us) >= m->threshold;
    }
    e->have_last = true;
    e->last_ns = t_ns;
    if (first)
        close_frame(e);
    e->open_pkts++;
    e->pkts++;
    return first;
}

double adw_frame_est_take(struct adw_frame_est *e, uint64_t now_ns, uint64_t idle_close_ns, uint32_t *frames,
                          uint64_t *pkts)
{
    if (e->open_pkts > 0 && now_ns >= e->last_ns && now_ns - e->last_ns >= idle_close_ns)
        close_frame(e);
    *frames = e->frames;
    *pkts = e->pkts;
    double mean = e->frames > 0 ? (double)e->frame_pkts / e->frames : -1.0;
    e->frames = 0;
    e->frame_pkts = 0;
    e->pkts = 0;
    return mean;
}

void adw_frame_est_close_open(struct adw_frame_est *e)
{
    close_frame(e);
}
