/*
 * dynamic_slicing.c — who takes an idle slice (004 §6.3, SPEC §3.3).
 *
 * A pair whose queues are empty at its slice start (an HTTP user in think
 * time) gives the slice to the most backlogged pair of another slice that
 * the policy allows to take slices and that conflicts with none of the pairs
 * of this slice that have backlog (they transmit in it: spatial reuse must
 * stay interference-free; the idle pairs do not). The idle pair takes its slice back simply by having
 * backlog at its next slice start.
 */
#include "sched_internal.h"

uint16_t adw_dynslice_pick(struct adw_sched *s, uint16_t slice)
{
    const struct adw_plan *p = s->plan;
    const struct adw_slice_cfg *sl = &p->cfg->slices[slice];
    uint16_t best = ADW_PAIR_NONE;
    uint32_t best_backlog = 0;
    for (uint16_t q = 0; q < p->cfg->n_stas; q++) {
        if (!p->dyn_taker[q] || s->in_slice[q])
            continue;
        const struct adw_pair_state *ps = &s->slots[p->slot_of_pair[q]];
        if (adw_pacer_active(&ps->pacer))
            continue; /* a paced pair is released at its rate, never in a taken slice */
        uint32_t backlog = ps->q_data.len + ps->q_ack.len;
        if (backlog <= best_backlog)
            continue;
        bool clash = false;
        for (unsigned i = 0; i < sl->n_pairs && !clash; i++) {
            const struct adw_pair_state *other = &s->slots[p->slot_of_pair[sl->pairs[i]]];
            clash = other->q_data.len + other->q_ack.len > 0 && adw_plan_conflict(p, q, sl->pairs[i]);
        }
        if (!clash) {
            best = q;
            best_backlog = backlog;
        }
    }
    return best;
}
