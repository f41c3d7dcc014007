/*
 * dynamic_slicing.c — who takes an idle slice (004 §6.3, SPEC §3.3).
 *
 * A pair whose queues are empty at its slice start (an HTTP user in think
 * time) gives the slice to the most backlogged pair of another slice that
 * the policy allows to take slices and that conflicts with none of the pairs
 * of this slice that had backlog at its start (they transmit in it: spatial reuse must
 * stay interference-free; the idle pairs do not). Backlog at the start, as adw_slice_start marked it in
 * in_slice, not the queue now: a pair listed before the idle one may have sent all it had already, and a taker
 * conflicting with it then took its slice from it (given_to: its refills refused, its air the taker's).
 *
 * And how the idle pair takes it back (SPEC §3.3: "as soon as it has backlog again"). Waiting for its next slice
 * start left its packets 40 ms and more behind the taker's refills (the lab, STA2's HTTP response arriving 1 ms
 * into the slice it gave STA1: STA1's batch drained at 25 ms, its 38-packet refill took the 15 ms left, STA2's
 * first packet went at 60 ms), the response time dynamic slicing is for (004 §6.3, Table 5). The same when no pair
 * could take the slice (none backlogged, allowed by the policy's pair list and free of conflicts): the pair kept
 * it, idle, and its packets arriving 1 ms in waited 39 ms for its next slice start with the air of its own slice
 * unused. So any pair idle at its slice start, the slice given away or kept, is its trigger: once it has backlog
 * again a taker gets no further refill of the slice, and the pair's batch goes as soon as no conflicting drain is
 * in the air, the taker's included (the deferred list, deferral.c: a taker conflicting with it ends its drain
 * first), sized for the slice time left the way a refill is (adw_batch_for, r scaled by the time left over S_ref),
 * and not with under ADW_REFILL_MIN_NS left, a refill's least: then it waits for its next slice start as before.
 * Through the deferred list even when nothing holds it back: it goes at the next dequeue, with the rest of the
 * burst its first packet came in, not as a batch of that one packet. Only with dynamic slicing on: without it a
 * slice's batch goes at its start (004 §5), an idle pair's next one at its next slice start. The pair list names
 * takers, not givers: a pair left out of it still gives its idle slice away (adw_slice_start) and takes it back.
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

void adw_dynslice_reclaim(struct adw_sched *s, struct adw_pair_state *ps, uint64_t now_ns)
{
    const struct adw_slice_clock *c = &s->clock;
    if (!c->started || c->slice >= s->plan->cfg->n_slices || ps->idle_slice_ns != c->slice_start_ns + 1 ||
        ps->deferred || adw_pacer_active(&ps->pacer))
        return; /* not a pair idle at the current slice's start, or its batch is waiting already */
    uint64_t slice_end = c->slice_start_ns + c->dur_ns[c->slice];
    if (now_ns + ADW_REFILL_MIN_NS > slice_end)
        return;
    ps->idle_slice_ns = 0; /* the rest of the slice is its own again: refills, an early start of the next slice */
    if (s->reclaim_slice_ns != c->slice_start_ns + 1) {
        s->reclaim_slice_ns = c->slice_start_ns + 1;
        s->reclaim_released = false;
    }
    adw_defer_reclaim(s, ps, slice_end, now_ns);
}

/* A taker had the slice from its start to the first reclaiming batch: that much of the slice's time is its own in
 * the frame report (s_ns), the rest the reclaiming pair's, so the pairs' slice times still add up to the frame. A
 * slice no pair took stayed the idle pair's whole (adw_slice_start): its slice time has the rest already. */
void adw_dynslice_release_reclaim(struct adw_sched *s, struct adw_pair_state *ps, uint64_t left_ns, uint64_t now_ns)
{
    adw_release_slice_batch(s, ps, left_ns, now_ns);
    uint16_t taker = s->given_to[s->clock.slice];
    if (taker == ADW_PAIR_NONE)
        return;
    ps->frame_s_ns += left_ns;
    if (!s->reclaim_released) {
        s->slots[s->plan->slot_of_pair[taker]].frame_s_ns -= left_ns;
        s->reclaim_released = true;
    }
}
