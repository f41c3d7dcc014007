/*
 * dynamic_slicing.c — who takes an idle slice (004 §6.3, SPEC §3.3).
 *
 * A pair whose queues are empty at its slice start (an HTTP user in think
 * time) gives the slice to the most backlogged pair of another slice that
 * the policy allows to take slices and that conflicts with none of the pairs
 * of this slice that had backlog at its start (they transmit in it: spatial reuse must
 * stay interference-free; the idle pairs do not). Backlog at the start, as adw_slice_start marked it in
 * in_slice, not the queue now: a pair listed before the idle one may have sent all it had already, and a taker
 * conflicting with it then took its slice from it (given_to: its refills refused, its air the taker's). The idle
 * pair takes its slice back simply by having backlog at its next slice start, as 004 §6.3 describes (a slice is
 * given away when its queue is empty at the slice's start).
 *
 * Taking back the rest of the slice mid-slice, as soon as the pair had backlog (SPEC §3.3's wording; the taker's
 * refills stopped, the pair's batch sized for the time left after the taker's drain), was built and measured on
 * 2026-11-27 and did not help the HTTP user: http-bulk, runs of 3 x 30 s, mean page response 517.5-540.8 ms
 * with it against 503.8-517.3 without, p95 601-727 against 554-567, STA2's goodput 27.2-27.9 against 27.9-28.3
 * Mbit/s (testbed/findings/dynamic-slicing.md). So the pair waits for its next slice start.
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
        for (unsigned i = 0; i < sl->n_pairs && !clash; i++)
            clash = s->in_slice[sl->pairs[i]] == ADW_IN_SLICE_SENDS && adw_plan_conflict(p, q, sl->pairs[i]);
        if (!clash) {
            best = q;
            best_backlog = backlog;
        }
    }
    return best;
}
