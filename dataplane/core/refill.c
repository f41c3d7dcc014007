/*
 * refill.c — a slice kept busy to its end (004 §5 design principle (2)): a drain that ends early in its slice gets
 * a refill batch for the time left, and, with policies.ts_abr_qd.early_handover, a drain that ends with too little
 * left for a refill hands the air to the next slice's pairs at once.
 */
#include "realtime_release.h"
#include "sched_internal.h"

/*
 * Refill (004 §5, design principle (2): the link must "drain out that data within the time-slice, while staying
 * busy right up to the end of the slice"). Eq. (1) drives E[V] to S, but V varies a lot from batch to batch for
 * the same r: MPDU retries and rate changes (downlink-20ms ground truth: sd of the air drain 2.8-3.1 ms at 18-19
 * ms, 18 % of AP1's MPDUs retried). With one batch per slice the slice then idles after every short drain (1.3-1.6
 * ms per slice on average, 7-8 % of the slice) and overruns after every long one (35-40 % of the drains, 2.3-3.4
 * % of the slice time outside it), and lowering E[V] to cut the overruns only idles the slice more. So a drain
 * that ends with at least ADW_REFILL_MIN_NS of its slice left, while the pair still has backlog, gets the batch
 * for that time: r scaled by the time left over S_ref, the same scaling as a batch held back by a conflicting
 * drain (adw_release_deferred). It joins the drain just ended: V runs from the first release of the slice to the
 * end of the refill's drain and is one sample of eq. (1) for the slice (r + the refill released). A refilled
 * slice ends near S, so E[V] = S is reached with a smaller r: fewer batches overrun, and the short ones no
 * longer leave the slice idle. One refill per slice: a second would be smaller than the fixed cost of a release
 * (below); and only with an A-MPDU's worth queued (ADW_EBDP_MIN_BATCH_PKTS): a refill of 1-2 segments in TCP's
 * slow start waited 40 ms for the receiver's delayed ACK (downlink-20ms, first batch after r_init), and a drain
 * open on it holds the conflicting pair's batch back (deferral.c). Requiring the scaled r to be an A-MPDU as
 * well (left >= 2.5 ms at r = 130) cut the refills by a third and raised the overflow (1.3/1.1 % -> 1.7-2.5 /
 * 0.9-1.9 % over four 3x20 s runs). Downlink data only: an uplink pair's batch is ACKs, and the STA data they
 * release is not bounded by the time left (uplink-20ms: mean V 21-22 ms, over S; utility 7.45-7.52 in three 3x20 s
 * runs with ~1,600 ACK refills against 7.53-7.56 in two with ~300). Not while real-time packets wait for a gap
 * between drains (004 §6.4: they go first), nor while a conflicting drain or the real-time guard holds the pair's
 * batches back.
 */
/* Fixed cost of a release within the slice: it reaches the AP about 0.5 ms after the drain's air end (the time
 * from the last A-MPDU to the returning TCP ACK that ends V: median 0.46 ms in the downlink-20ms ground truth),
 * and the AP sends the first packet before the rest of the batch has arrived (first A-MPDU of a batch: 1.2
 * MPDUs on average, then 18-20). Under 2 ms left a refill would be mostly that cost. */
#define ADW_REFILL_MIN_NS 2000000ull

/* The current slice is pair's: given to it, or one of its pairs' and not given away. What dynamic slicing gives
 * away is the share of the pairs idle at the slice start: another pair of the slice that sent in it keeps its own
 * (its refills were refused once given_to was set, the rest of its slice left idle). From the plan's slice mask,
 * not a scan of the slice's pairs at every drain end (2,048 per slice in `make bench`: ~1.9 % of its samples). */
static bool owns_current_slice(const struct adw_sched *s, uint16_t pair)
{
    uint16_t slice = s->clock.slice, given = s->given_to[slice];
    if (given == pair)
        return true;
    if (!(s->plan->slice_mask[pair] >> slice & 1u))
        return false;
    return given == ADW_PAIR_NONE || s->slots[s->plan->slot_of_pair[pair]].idle_slice_ns != s->clock.slice_start_ns + 1;
}

bool adw_refill_batch(struct adw_sched *s, struct adw_pair_state *ps, uint64_t now_ns)
{
    const struct adw_slice_clock *c = &s->clock;
    if (!c->started || c->slice >= s->plan->cfg->n_slices || ps->deferred || adw_pacer_active(&ps->pacer) ||
        ps->q_data.len + ps->q_ack.len == 0 || s->n_rt_pending > 0 || adw_rt_holding(s))
        return false;
    uint64_t slice_start = c->slice_start_ns, slice_end = slice_start + c->dur_ns[c->slice];
    bool this_slices = ps->drain.start_ns >= slice_start || ps->early_slice_ns == slice_start + 1;
    if (!this_slices || now_ns + ADW_REFILL_MIN_NS > slice_end || ps->refill_slice_ns == slice_start + 1)
        return false; /* a batch of an earlier slice, too little time left, or refilled already */
    if (!owns_current_slice(s, ps->pair) || adw_batch_held_back(s, ps->pair, now_ns))
        return false;
    uint64_t first_ns = ps->drain.start_ns, first_s_ns = ps->batch_s_ns;
    uint32_t first_pkts = ps->batch_pkts;
    bool first_underfilled = ps->batch_underfilled;
    if (ps->q_data.len < ADW_EBDP_MIN_BATCH_PKTS)
        return false; /* under one A-MPDU of data queued: one transmission, a lone segment's ACK may be held (above);
                         and no refill of ACKs to an uplink sender (below) */
    adw_release_batch(s, ps, slice_end - now_ns, now_ns); /* the drain is closed: nothing stale to close */
    ps->refill_slice_ns = slice_start + 1;
    s->st.batch_refills++;
    /* One batch for eq. (1): released from first_ns into the slice it was sized for (batch_s_ns). */
    ps->drain.start_ns = first_ns;
    ps->batch_s_ns = first_s_ns;
    ps->batch_pkts += first_pkts;
    ps->batch_underfilled = ps->batch_underfilled || first_underfilled;
    if (!ps->drain.open) /* nothing in the refill to wait for (no TCP data or ACKs tracked) */
        adw_finish_drain(s, ps, now_ns - first_ns, false, now_ns);
    return true;
}

/*
 * Early start of the next slice, with policies.ts_abr_qd.early_handover (004 §5 design principle (2), busy up to
 * the end of the slice, carried across the handover; off by default: slices start on the clock as in 004 §5). A
 * drain that ends with under ADW_REFILL_MIN_NS of its slice left gets no refill, and the next pair's batch waits
 * for its slice start: in the downlink-20ms ground truth 2,080 of 2,950 handovers went that way, the air idle 868
 * µs on average between the STA's last ACK and the next batch at the other AP (2.9 % of the air), against 199 µs
 * for a batch that had waited for an overrun and went as soon as it drained (testbed/findings/downlink-uplink.md). So when a drain
 * of the slice's own pair ends with too little of it left for a refill, each backlogged pair of the next slice
 * that nothing holds back (no conflicting drain in the air, no real-time packet waiting) gets its batch now,
 * scaled to the time from now to that slice's end: the scaling of a batch held back by an overrun
 * (adw_release_deferred), the other way round, so eq. (1) sees the same drain rate and that slice still ends on
 * time. At its slice start the pair is skipped: its batch is out. Not across a frame boundary with a new
 * configuration staged (it applies from there), not for a paced pair, and only with the whole batch queued: an
 * underfilled batch released early leaves what arrives before the slice start to the pair's next frame, 40 ms on
 * (downlink-wan-20ms, a window-limited sender whose queue is under r: utility 6.95-7.19 in five 3 x 20 s runs
 * with underfilled early batches, against 7.16-7.30 in five without early starts). Off by default because the AP
 * of the slice before may still be retrying an MPDU whose TCP ACK already closed the drain (its BlockAck was
 * lost): AP airtime collided 1.2-1.7 % with it on in downlink-20ms against 0.2-0.6 % off, for a utility of 7.50
 * against 7.46 (testbed/findings/downlink-uplink.md).
 */
void adw_start_next_slice_early(struct adw_sched *s, const struct adw_pair_state *ended, uint64_t now_ns)
{
    const struct adw_slice_clock *c = &s->clock;
    const struct adw_plan *p = s->plan;
    uint16_t n = p->cfg->n_slices;
    if (!p->cfg->policies.ts_abr_qd.early_handover || !c->started || c->slice >= n || n < 2 || s->n_deferred > 0 ||
        s->n_rt_pending > 0 || adw_rt_holding(s))
        return;
    if (!owns_current_slice(s, ended->pair))
        return; /* the drain that ended overran from an earlier slice: this slice is another pair's */
    uint64_t next_start = c->slice_start_ns + c->dur_ns[c->slice];
    uint16_t next = (uint16_t)((c->slice + 1u) % n);
    if (now_ns >= next_start || now_ns + ADW_REFILL_MIN_NS <= next_start || (next == 0 && s->staged != NULL))
        return; /* time enough for a refill that did not go (too little queued, real-time waiting): the slice stays
                   its pair's, whose packets may still arrive (downlink-wan-20ms, a cwnd-limited sender: early
                   starts of 9 ms on average gave AP2 37 % of AP1's slice time, AP1 fell from 35 to 5-37 Mbit/s) */
    const struct adw_slice_cfg *sl = &p->cfg->slices[next];
    uint64_t s_ns = next_start + sl->duration_ns - now_ns; /* from now to the end of the next slice */
    for (unsigned i = 0; i < sl->n_pairs; i++) {
        uint16_t q = sl->pairs[i];
        struct adw_pair_state *ps = &s->slots[p->slot_of_pair[q]];
        bool in_this_slice = s->given_to[c->slice] == q || (p->slice_mask[q] >> c->slice & 1u);
        if (in_this_slice || ps->early_slice_ns == next_start + 1 || ps->deferred || ps->drain.open ||
            adw_pacer_active(&ps->pacer) || ps->q_data.len < ADW_EBDP_MIN_BATCH_PKTS ||
            ps->q_data.len + ps->q_ack.len < adw_batch_for(s, ps, s_ns) || adw_batch_held_back(s, q, now_ns))
            continue;
        adw_release_slice_batch(s, ps, s_ns, now_ns);
        ps->early_slice_ns = next_start + 1;
        s->st.early_slice_starts++;
        s->st.early_slice_ns += next_start - now_ns;
        uint64_t *early = next == 0 ? &s->next_frame_early_ns : &s->slice_early_ns[next]; /* for the frame report */
        if (next_start - now_ns > *early)
            *early = next_start - now_ns;
    }
}
