/*
 * realtime_release.c — when real-time packets go: at slice starts and, between them, whenever the air is
 * clear of conflicting downlink drains (004 §6.4, SPEC §3.4).
 *
 * 004 §6.4: "In each time-slice, ADWISER releases downlink voice packets to AP2, and then releases the batch
 * of TCP packets to AP1". The order of release alone does not keep them apart on the air: AP1 and AP2 cannot
 * hear each other (004 Table 2), a frame whose preamble starts while the other AP transmits is lost at its STA
 * (004 §4.1), and at a slice start AP1 is often still on the air with its previous batch (E[V] = S is the
 * equilibrium of eq. (1), so about every other batch drains into the next slice), or about to be, its new
 * batch released in the same instant as the voice. Measured on the emulated lab (voice-bulk, every slice given
 * to AP1-STA1 by dynamic slicing): 8,526 of 10,000 downlink voice frames began their first attempt while AP1
 * transmitted, ~8 attempts each, 161 lost. So:
 *
 *  - the real-time packets of a pair wait while a conflicting pair's downlink drain is open (released data not
 *    yet acknowledged: still in that AP's queue or the air; the signal the batch deferral of release.c uses),
 *    at most hold_max_fraction of the slice, so a drain whose ACKs were lost never holds voice for long;
 *  - a batch to a pair that conflicts with held real-time packets waits for them, and a batch to a pair that
 *    conflicts with real-time packets just released waits guard_us per packet after them: the AP's AC_VO
 *    channel access and one short frame exchange each (default in adwiser/config.h), so the voice is on the
 *    air before the conflicting AP has data to send.
 *
 * A pair never waits for its own real-time packets: its AP sends AC_VO ahead of its data (802.11e EDCA).
 *
 * Between slice starts, real-time packets go as soon as no conflicting downlink drain is open: on arrival, or
 * when such a drain ends (its AP has delivered the batch and idles until its next one, a guard after them).
 * The paper releases them at slice starts only, so they wait half a slice on average (004 §6.4: "10 ms of which
 * is due to half the time-slice"); the air is as clear for them in such a gap as at a slice start.
 */
#include "realtime_release.h"

/* When the drains of pairs the version before had and this one does not, that pair's real-time packets wait for,
 * count as over (UINT64_MAX: none is open). Their AP may still send the batch it was given at the swap, a
 * transmission these packets are released into like any conflicting drain's; nothing closes such a drain any more,
 * so it counts as over a frame after its last ACK, the rule deferral.c holds batches back by. */
static uint64_t gone_drains_silent_at(const struct adw_sched *s, uint16_t pair)
{
    return adw_gone_drains_silent_at(s, pair, adw_drain_silence_ns(s), UINT64_MAX);
}

static bool conflicting_downlink_drain_open(const struct adw_sched *s, uint16_t pair, uint64_t now_ns)
{
    const struct adw_plan *p = s->plan;
    for (uint32_t k = p->conflict_off[pair]; k < p->conflict_off[pair + 1]; k++) {
        const struct adw_pair_state *o = &s->slots[p->slot_of_pair[p->conflict_list[k]]];
        if (o->active && adw_drain_awaits_downlink_acks(&o->drain))
            return true;
    }
    uint64_t gone = gone_drains_silent_at(s, pair);
    return gone != UINT64_MAX && now_ns < gone;
}

/* Hands the pair's real-time packets out and starts the guard of every pair that conflicts with it.
 *
 * The guard is one voice frame exchange per packet released, not one in all: packets that waited for a drain
 * longer than the voice interval go out together (a packet pending since the previous slice and the next one),
 * and the AP sends them as separate exchanges, the second starting ~140 us after the first. With one guard for
 * both, AP1's next batch started during the second exchange: on the emulated lab (voice-bulk, 4 x 10 s) the
 * second of such a pair began its first attempt in a collision 40 times in 202 (9 took 8-30 attempts) against
 * 28 in 1,596 for a packet released alone, and the voice packet lost in the air there was the second of a pair.
 * Capped at ADW_RT_GUARD_US_MAX, so a burst of real-time packets never stalls a conflicting pair for long. */
static uint64_t guard_ns(const struct adw_plan *p, uint32_t pkts)
{
    uint64_t us = (uint64_t)p->cfg->policies.realtime.guard_us * pkts;
    return (us < ADW_RT_GUARD_US_MAX ? us : ADW_RT_GUARD_US_MAX) * 1000u;
}

static void release_pair(struct adw_sched *s, struct adw_pair_state *ps, uint64_t now_ns)
{
    const struct adw_plan *p = s->plan;
    if (ps->q_rt.len > 0) {
        uint64_t guard_until = now_ns + guard_ns(p, ps->q_rt.len);
        ps->frame_released_pkts += ps->q_rt.len;
        ps->frame_released_bytes += ps->q_rt.bytes;
        adw_fifo_splice(&s->due, &ps->q_rt, &s->pool);
        for (uint32_t k = p->conflict_off[ps->pair]; k < p->conflict_off[ps->pair + 1]; k++) {
            struct adw_pair_state *o = &s->slots[p->slot_of_pair[p->conflict_list[k]]];
            if (o->rt_guard_until_ns < guard_until)
                o->rt_guard_until_ns = guard_until;
        }
    }
    ps->rt_listed = false;
}

uint64_t adw_rt_guard_until(const struct adw_plan *p, uint32_t pkts, uint64_t now_ns)
{
    return now_ns + guard_ns(p, pkts);
}

/* A removed pair's real-time packets went to its AP at the swap (sched.c, release_removed_pairs_held), and no pair of
 * the version in force conflicts with it to take the guard release_pair starts: the pairs that wait for its drain
 * (gone_*, the lists adw_gone_drains_silent_at goes by) take it. A voice packet leaves no drain to wait for (no TCP),
 * so without this the new version's first batch to a conflicting AP went in the same instant and collided with it. */
void adw_rt_guard_behind_gone_voice(struct adw_sched *s)
{
    const struct adw_plan *p = s->plan;
    for (uint16_t q = 0; q < p->cfg->n_stas; q++) {
        struct adw_pair_state *ps = &s->slots[p->slot_of_pair[q]];
        uint16_t ap = p->cfg->stas[q].ap;
        for (uint32_t k = p->gone_held_off[ap]; k < p->gone_held_off[ap + 1]; k++)
            if (ps->rt_guard_until_ns < s->slots[p->gone_held_slot[k]].rt_guard_until_ns)
                ps->rt_guard_until_ns = s->slots[p->gone_held_slot[k]].rt_guard_until_ns;
        for (uint32_t i = p->conflict_off[q]; i < p->conflict_off[q + 1]; i++) {
            uint16_t b = p->cfg->stas[p->conflict_list[i]].ap;
            for (uint32_t k = p->gone_at_off[b]; k < p->gone_at_off[b + 1]; k++)
                if (ps->rt_guard_until_ns < s->slots[p->gone_at_slot[k]].rt_guard_until_ns)
                    ps->rt_guard_until_ns = s->slots[p->gone_at_slot[k]].rt_guard_until_ns;
        }
    }
}

void adw_rt_release_at_slice_start(struct adw_sched *s, uint64_t start_ns, uint64_t duration_ns, uint64_t now_ns)
{
    uint64_t until = start_ns + (uint64_t)(s->plan->cfg->policies.realtime.hold_max_fraction * (double)duration_ns);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n_rt_pending; i++) {
        struct adw_pair_state *ps = &s->slots[s->rt_pending[i]];
        if (now_ns < until && ps->q_rt.len > 0 && conflicting_downlink_drain_open(s, ps->pair, now_ns))
            s->rt_pending[kept++] = s->rt_pending[i];
        else
            release_pair(s, ps, now_ns);
    }
    s->n_rt_pending = kept;
    s->rt_hold_until_ns = kept > 0 ? until : 0;
    s->rt_hold_start_ns = start_ns;
    if (kept > 0)
        s->st.rt_holds++;
}

void adw_rt_release_held(struct adw_sched *s, uint64_t now_ns, bool force)
{
    if (s->rt_hold_until_ns == 0)
        return;
    bool run_out = force || now_ns >= s->rt_hold_until_ns;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n_rt_pending; i++) {
        struct adw_pair_state *ps = &s->slots[s->rt_pending[i]];
        if (!run_out && conflicting_downlink_drain_open(s, ps->pair, now_ns))
            s->rt_pending[kept++] = s->rt_pending[i];
        else
            release_pair(s, ps, now_ns);
    }
    s->n_rt_pending = kept;
    if (kept > 0)
        return;
    if (run_out)
        s->st.rt_hold_timeouts++;
    s->st.rt_held_ns += now_ns - s->rt_hold_start_ns;
    s->rt_hold_until_ns = 0;
}

void adw_rt_release_when_clear(struct adw_sched *s, uint64_t now_ns)
{
    if (s->rt_hold_until_ns != 0) {
        adw_rt_release_held(s, now_ns, false);
        return;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n_rt_pending; i++) {
        struct adw_pair_state *ps = &s->slots[s->rt_pending[i]];
        if (conflicting_downlink_drain_open(s, ps->pair, now_ns)) {
            s->rt_pending[kept++] = s->rt_pending[i];
            continue;
        }
        s->st.rt_between_slices += ps->q_rt.len;
        release_pair(s, ps, now_ns);
    }
    s->n_rt_pending = kept;
}

bool adw_rt_holding(const struct adw_sched *s) { return s->rt_hold_until_ns != 0; }

uint64_t adw_rt_pending_next_ns(const struct adw_sched *s, uint64_t now_ns)
{
    uint64_t next = UINT64_MAX;
    if (s->plan->n_gone == 0)
        return next;
    for (uint32_t i = 0; i < s->n_rt_pending; i++) {
        uint64_t at = gone_drains_silent_at(s, s->slots[s->rt_pending[i]].pair);
        if (at > now_ns && at < next) /* one over already holds nothing: no wake-up for it */
            next = at;
    }
    return next;
}

uint64_t adw_rt_hold_until_ns(const struct adw_sched *s)
{
    return s->rt_hold_until_ns != 0 ? s->rt_hold_until_ns : UINT64_MAX;
}

uint64_t adw_rt_batch_free_at(const struct adw_sched *s, uint16_t pair)
{
    if (s->rt_hold_until_ns != 0)
        for (uint32_t i = 0; i < s->n_rt_pending; i++)
            if (adw_plan_conflict(s->plan, pair, s->slots[s->rt_pending[i]].pair))
                return s->rt_hold_until_ns;
    return s->slots[s->plan->slot_of_pair[pair]].rt_guard_until_ns;
}
