/*
 * report.c — telemetry (SPEC §4): at each frame boundary the finished frame
 * and one record per pair go into a small ring the backend drains with
 * adw_sched_poll_frame (oldest first; when full the oldest is overwritten and
 * counted). The frame boundary is also the A* observation interval (ALT
 * step, 003 Algorithm 3) and the throughput EWMA's sampling point.
 */
#include <math.h>
#include <string.h>

#include "sched_internal.h"

/* gave_slices and skipped_slices have one bit per slice. */
_Static_assert(ADW_MAX_SLICES <= 64, "adw_pair_report.gave_slices and adw_frame_report.skipped_slices hold a bit "
                                     "per slice");

void adw_report_frame(struct adw_sched *s, uint64_t end_ns)
{
    const struct adw_plan *p = s->plan;
    uint32_t depth = s->params.report_frames;
    if (s->ring_count == depth) {
        s->ring_head = (s->ring_head + 1) % depth;
        s->ring_count--;
        s->st.reports_overwritten++;
    }
    struct adw_report_entry *e = &s->ring[(s->ring_head + s->ring_count) % depth];
    s->ring_count++;
    uint64_t frame_ns = end_ns > s->frame_start_ns ? end_ns - s->frame_start_ns : 1;
    e->f.frame = s->frame_index;
    e->f.ts_ns = s->frame_start_ns;
    e->f.version = s->frame_version;
    e->f.frame_ns = (uint32_t)(frame_ns > UINT32_MAX ? UINT32_MAX : frame_ns);
    e->f.reassignments = s->frame_reassignments;
    e->f.n_pairs = p->cfg->n_stas;
    e->f.n_slices = p->cfg->n_slices;
    memcpy(e->f.given_to, s->given_to, sizeof(e->f.given_to));
    memcpy(e->f.early_ns, s->slice_early_ns, sizeof(e->f.early_ns));
    e->f.skipped_slices = s->frame_skipped_slices;
    const struct adw_policies *pol = &p->cfg->policies;
    /* STAs receiving at each AP: the ACK-burst estimate's scale depends on it (adwiser/ack_model.h). */
    uint16_t receiving[ADW_MAX_APS];
    if (s->has_ack_model) {
        memset(receiving, 0, p->cfg->n_aps * sizeof(receiving[0]));
        for (uint16_t q = 0; q < p->cfg->n_stas; q++)
            receiving[p->cfg->stas[q].ap] += adw_ack_est_receiving(&s->slots[p->slot_of_pair[q]].ack, end_ns);
    }
    for (uint16_t q = 0; q < p->cfg->n_stas; q++) {
        struct adw_pair_state *ps = &s->slots[p->slot_of_pair[q]];
        adw_astar_interval(&ps->astar, &pol->queue_sizing, end_ns);
        double inst = (double)ps->frame_released_bytes * 8e9 / (double)frame_ns;
        ps->tput_bps = ps->tput_bps > 0 ? ps->tput_bps + ADW_TPUT_EWMA * (inst - ps->tput_bps) : inst;
        struct adw_pair_report *r = &e->pairs[q];
        r->pair = q;
        memcpy(r->name, p->pair_name[q], p->pair_name_len[q] + 1u);
        r->mode = adw_pacer_active(&ps->pacer) ? ADW_MODE_PACED : ADW_MODE_SLICED;
        r->gave_slices = ps->frame_gave_slices;
        r->reassigned = ps->frame_gave_slices != 0;
        r->s_ns = ps->frame_s_ns;
        r->r_pkts = adw_tsabr_batch(&ps->tsabr, &pol->ts_abr_qd);
        r->v_ns = ps->last_v_ns;
        r->drains = ps->frame_drains;
        r->v_sum_ns = ps->frame_v_sum_ns;
        r->released_pkts = ps->frame_released_pkts;
        r->released_bytes = ps->frame_released_bytes;
        r->queue_pkts = adw_pair_queued(ps);
        r->limit_pkts = ps->astar.limit;
        r->drops_tail = ps->drops_tail;
        r->drops_other = ps->drops_other;
        r->counters_since_ns = ps->counters_since_ns;
        r->tput_bps = (uint64_t)ps->tput_bps;
        r->rate_bps = (uint64_t)(ps->tsabr.rate_ewma * 1000.0 * s->params.mtu_bytes * 8.0);
        r->pace_bps = ps->pacer.rate_bps;
        r->agg_raw = adw_ack_est_take_raw(&ps->ack, &r->agg_bursts);
        r->agg_stas = s->has_ack_model ? receiving[p->cfg->stas[q].ap] : 0;
        r->agg_est = s->has_ack_model && r->agg_raw >= 0 ? adw_ack_model_estimate(&s->ack_model, r->agg_raw,
                                                                                   r->agg_stas)
                                                          : -1;
        /* the burst gap the pair's ACKs are classified with until the next report, looked up once here rather
         * than for every ACK */
        ps->ack.min_gap_ns = s->has_ack_model
            ? (uint64_t)ceil(adw_ack_model_min_gap_us(&s->ack_model, r->agg_stas) * 1000.0) : 0;
        r->acked_segs = adw_ack_est_take_acked(&ps->ack);
        r->dup_acks = ps->ack.dup_acks;
        r->retx_pkts = ps->ack.retrans;
        r->loss_frac = adw_ack_est_loss_frac(&ps->ack);
        r->ack_delay_samples = adw_ack_delay_take(&ps->ack_delay, &r->ack_delay_mean_ns, &r->ack_delay_min_ns);
        ps->frame_released_pkts = 0;
        ps->frame_released_bytes = 0;
        ps->frame_drains = 0;
        ps->frame_v_sum_ns = 0;
        ps->frame_gave_slices = 0;
        ps->last_frame_s_ns = ps->frame_s_ns;
        ps->frame_s_ns = 0;
    }
}

int adw_sched_poll_frame(struct adw_sched *s, struct adw_frame_report *f, struct adw_pair_report *pairs,
                         unsigned max_pairs)
{
    if (s->ring_count == 0)
        return 0;
    const struct adw_report_entry *e = &s->ring[s->ring_head];
    *f = e->f;
    unsigned n = e->f.n_pairs < max_pairs ? e->f.n_pairs : max_pairs;
    if (pairs != NULL && n > 0)
        memcpy(pairs, e->pairs, n * sizeof(*pairs));
    s->ring_head = (s->ring_head + 1) % s->params.report_frames;
    s->ring_count--;
    return 1;
}

void adw_sched_stats_read(const struct adw_sched *s, struct adw_stats *st)
{
    *st = s->st;
    st->pool_size = s->pool.size;
    st->pool_in_use = s->pool.in_use;
}
