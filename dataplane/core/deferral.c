/*
 * deferral.c — a slice's batch held back while a conflicting pair's drain is still in the air (SPEC §3.1-3.2,
 * 004 §5), and released, scaled to the slice time left, once that drain ends; and a pair's back-to-back slices
 * (dynamic slicing), whose own drain from the slice before holds its next batch the same way. The reasoning and
 * the measurements behind each rule are in the comments below.
 */
#include "realtime_release.h"
#include "sched_internal.h"

/*
 * Queue drain before the next slice (004 §5: "at the end of the time-slice, all activity in the WiFi channel,
 * due to AP1-STA1, comes to an end. The next time-slice starts and packets are released to the AP2-STA2 pair").
 * E[V] = S is the equilibrium of eq. (1), so about every other batch overruns its slice. Releasing the next
 * batch to a conflicting pair (a hidden terminal) while that drain is still in the air makes both APs transmit
 * at once: their A-MPDUs collide, are retried into the next slices and the overrun feeds itself (measured on
 * the emulated lab: 0.3-0.5 s bursts of collisions, 9-26 % of air time outside the slices). So a pair whose
 * slice starts while a conflicting pair's drain is in the air waits for that drain to end, then gets a batch
 * scaled to the slice time left (the same scaling as a slice of another length, so eq. (1) sees the same drain
 * rate). "In the air" is the drain's open state, bounded by its ACKs: a drain open and acknowledged within the
 * last frame. The STA's TCP ACKs are no finer sign of the AP's activity: they stop for 10-22 ms while the AP
 * still sends, because they collide with the AP's own A-MPDUs (equal backoff) and the STA's doubled contention
 * window then loses to the AP's next ones (downlink-20ms ground truth). A drain silent for half a slice, or a
 * whole one, was taken as over three times in 20 s and the batch released into it set off 300-400 ms collision
 * bursts. Once its AP is done, the STA's ACKs go at once (nobody else contends), so a drain open a frame without
 * one lost its last ACKs; its own pair's next slice start closes it anyway. One still in the air when the
 * waiting slice ends took the whole slice: the waiting batch is skipped (slice_deferrals_expired) rather than
 * released into the next slice, where it would collide with the next batch of the same conflicting pair. A
 * fixed wait of half the slice released batches into drains still delivering (a fading link at 3 of 21 MPDUs per
 * A-MPDU): 200 ms collision bursts in which every drain capped, r fell to r_min and TCP lost its window
 * (downlink-20ms: three bursts in 20 s, 5 % of the air time outside the slices).
 * Only drains of downlink data hold the next slice back: their open state means released data not yet
 * acknowledged, i.e. still in the AP's queue or the air. An uplink drain (released ACKs) stays open until the
 * STA has sent every byte they allowed, which a cwnd- or application-limited sender may never do; holding the
 * next slice on it cost 3.2 s of 20 s in uplink-20ms (utility 7.58 without deferral, 7.16 with it).
 */
/* The later of at and the time o's drain would count as silent (open, no ACK heard for silence_ns); at itself if
 * o has no downlink drain open. UINT64_MAX stands for "none so far". o may be the slot of a pair the version in
 * force no longer has (gone_*, sched_internal.h): nothing closes its drain or is heard of it any more (its STA
 * is no pair's, or its ACKs are its new pair's), so it counts as silent a frame after its last ACK before the
 * swap, or after the swap if a removed pair's held packets went to its AP then (sched.c,
 * release_removed_pairs_held), the bound of any drain whose ACKs stopped. */
static uint64_t drain_silent_at(const struct adw_pair_state *o, uint64_t silence_ns, uint64_t at)
{
    if (!adw_drain_awaits_downlink_acks(&o->drain))
        return at;
    uint64_t quiet = o->drain.last_heard_ns + silence_ns;
    return at == UINT64_MAX || quiet > at ? quiet : at;
}

/* When the drains that hold pair's batch back would all count as silent (UINT64_MAX: none of them is open). A
 * drain is in the air at now_ns if now_ns is before that. */
static uint64_t conflicting_drains_silent_at(const struct adw_sched *s, uint16_t pair, uint64_t silence_ns)
{
    const struct adw_plan *p = s->plan;
    /* The pair's own drain, still open here only if its batch went in the slice just before (adw_slice_start). */
    uint64_t at = drain_silent_at(&s->slots[p->slot_of_pair[pair]], silence_ns, UINT64_MAX);
    for (uint32_t k = p->conflict_off[pair]; k < p->conflict_off[pair + 1]; k++)
        at = drain_silent_at(&s->slots[p->slot_of_pair[p->conflict_list[k]]], silence_ns, at);
    return adw_gone_drains_silent_at(s, pair, silence_ns, at);
}

uint64_t adw_gone_drains_silent_at(const struct adw_sched *s, uint16_t pair, uint64_t silence_ns, uint64_t at)
{
    const struct adw_plan *p = s->plan;
    if (p->n_gone == 0)
        return at;
    uint16_t ap = p->cfg->stas[pair].ap;
    for (uint32_t k = p->gone_held_off[ap]; k < p->gone_held_off[ap + 1]; k++)
        at = drain_silent_at(&s->slots[p->gone_held_slot[k]], silence_ns, at);
    for (uint32_t i = p->conflict_off[pair]; i < p->conflict_off[pair + 1]; i++) {
        uint16_t b = p->cfg->stas[p->conflict_list[i]].ap;
        for (uint32_t k = p->gone_at_off[b]; k < p->gone_at_off[b + 1]; k++)
            at = drain_silent_at(&s->slots[p->gone_at_slot[k]], silence_ns, at);
    }
    return at;
}

static bool conflicting_drain_in_air(const struct adw_sched *s, uint16_t pair, uint64_t silence_ns, uint64_t now_ns)
{
    uint64_t at = conflicting_drains_silent_at(s, pair, silence_ns);
    return at != UINT64_MAX && now_ns < at;
}

/*
 * Back-to-back slices of one pair (dynamic slicing, 004 §6.3, SPEC §3.3: the backlogged pair takes the idle
 * pair's slice, so it holds every slice during think times). Its own batch of the slice just before is then
 * often still draining at the slice start. Closing that drain there (as a stale one) cut V at exactly the slice
 * length S, so eq. (1) saw r_i(k+1) = r_i(k) while the batches did not drain in S: the AP's queue grew through
 * the think times and the AP was still sending when the idle pair reclaimed its slice. Measured in http-bulk:
 * AP1 on the air through AP2-STA2's whole slice, STA2's lone TCP retransmission collided 30 times and was dropped
 * at every try, an RTO chain that made one page 21 s; pages started into AP1's backlog lost packets, STA2's
 * drains capped and r fell to r_min. So such a drain stays open and holds the pair's next batch back like a
 * conflicting drain in the air (its queue at the AP is the same air): V is measured, or capped, and r follows it.
 * A pair's slices a frame apart (no dynamic slicing) close a drain still open at the slice start as before.
 */
bool adw_drained_in_previous_slice(const struct adw_sched *s, const struct adw_pair_state *ps,
                                      const struct adw_slice_event *ev)
{
    /* The slice that ran before ev, from the clock: at a frame boundary where a new configuration came in, the
     * last slice of the new map is not the one that ran, and its length would take a drain of the frame before for
     * one of the slice before (holding the pair's batch behind its own stale drain) or the reverse. */
    uint64_t prev_ns = s->clock.prev_dur_ns;
    return ps->drain.open && ev->start_ns >= prev_ns && ps->drain.start_ns >= ev->start_ns - prev_ns;
}

uint64_t adw_drain_silence_ns(const struct adw_sched *s) { return s->plan->frame_ns; }

/* A batch of pair may not go now: a conflicting drain is on the air, or the real-time guard holds it. */
bool adw_batch_held_back(const struct adw_sched *s, uint16_t pair, uint64_t now_ns)
{
    return conflicting_drain_in_air(s, pair, adw_drain_silence_ns(s), now_ns) || now_ns < adw_rt_batch_free_at(s, pair);
}

void adw_defer_batch(struct adw_sched *s, struct adw_pair_state *ps, const struct adw_slice_event *ev,
                        uint64_t duration_ns, uint64_t now_ns)
{
    ps->deferred = true;
    ps->defer_start_ns = now_ns;
    ps->defer_slice_end_ns = ev->start_ns + duration_ns;
    ps->defer_silence_ns = adw_drain_silence_ns(s);
    s->deferred[s->n_deferred++] = (uint16_t)(ps - s->slots);
    s->st.slice_deferrals++;
    if (now_ns < adw_rt_batch_free_at(s, ps->pair))
        s->st.rt_batch_waits++;
}

/* A pair entering paced mode leaves the slice batches (SPEC §3.7), so a batch of its own still held back goes with
 * them: its packets are the pacer's from now on. Released later as a batch, they went to the AP in one burst at the
 * end of the conflicting drain, whatever the pair's rate, and opened a drain on a paced pair that no slice start
 * closes, which then held a conflicting pair's real-time packets hold_max at every slice. */
void adw_cancel_deferred(struct adw_sched *s, struct adw_pair_state *ps, uint64_t now_ns)
{
    if (!ps->deferred)
        return;
    ps->deferred = false;
    s->st.slice_deferred_ns += now_ns - ps->defer_start_ns;
    uint16_t slot = (uint16_t)(ps - s->slots);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n_deferred; i++)
        if (s->deferred[i] != slot)
            s->deferred[kept++] = s->deferred[i];
    s->n_deferred = kept;
}

void adw_release_deferred(struct adw_sched *s, uint64_t now_ns, bool force)
{
    if (force) /* real-time first (004 §6.4) */
        adw_rt_release_held(s, now_ns, true);
    else
        adw_rt_release_when_clear(s, now_ns);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->n_deferred; i++) {
        struct adw_pair_state *ps = &s->slots[s->deferred[i]];
        if (!ps->deferred || !ps->active)
            continue;
        bool slice_over = now_ns >= ps->defer_slice_end_ns;
        if (!force && !slice_over &&
            (conflicting_drain_in_air(s, ps->pair, ps->defer_silence_ns, now_ns) ||
             now_ns < adw_rt_batch_free_at(s, ps->pair))) {
            s->deferred[kept++] = s->deferred[i];
            continue;
        }
        ps->deferred = false;
        s->st.slice_deferred_ns += now_ns - ps->defer_start_ns;
        if (slice_over) { /* the conflicting drain held the air for the whole slice */
            s->st.slice_deferrals_expired++;
            continue;
        }
        uint64_t left = ps->defer_slice_end_ns - now_ns;
        if (left < ADW_SLICE_MIN_NS)
            left = ADW_SLICE_MIN_NS;
        adw_release_slice_batch(s, ps, left, now_ns);
    }
    s->n_deferred = kept;
}

uint64_t adw_deferred_next_ns(const struct adw_sched *s)
{
    uint64_t next = UINT64_MAX;
    for (uint32_t i = 0; i < s->n_deferred; i++) {
        const struct adw_pair_state *ps = &s->slots[s->deferred[i]];
        if (!ps->deferred)
            continue;
        uint64_t at = conflicting_drains_silent_at(s, ps->pair, ps->defer_silence_ns);
        /* No drain open any more (one abandoned when its pair was paced, say): nothing holds the batch back, so
         * it is free now (0: adw_sched_next_event_ns makes that now_ns), as adw_release_deferred sees it. Taken
         * as "until the slice ends", the backend slept to that end and the batch was skipped as expired. */
        if (at == UINT64_MAX)
            at = 0;
        uint64_t rt = adw_rt_batch_free_at(s, ps->pair); /* and it waits for real-time packets */
        if (rt > at)
            at = rt;
        if (at > ps->defer_slice_end_ns)
            at = ps->defer_slice_end_ns;
        if (at < next)
            next = at;
    }
    return next;
}
