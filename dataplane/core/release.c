/*
 * release.c — what happens at a slice start (SPEC §3.1-3.4, 004 §5, §6.3, §6.4):
 *   0. on a frame boundary: the finished frame is reported, a staged
 *      configuration is swapped in (never mid-frame);
 *   1. real-time first: every held real-time packet of every pair is released
 *      (004 §6.4: "releases downlink voice packets ... and then releases the
 *      batch of TCP packets"), once no conflicting downlink drain is in the
 *      air, and a batch to a conflicting pair a guard later
 *      (realtime_release.c);
 *   2. each pair of the slice closes a drain still open from its previous
 *      batch (capped: its ACKs never came in time) and releases a batch of
 *      r_i(k) packets, alternating between its ACK and data queues so the ACKs
 *      of uplink transfers are never stuck behind downlink data (ACK
 *      isolation, SPEC §3.6); a pair with nothing queued may give the slice
 *      to a backlogged pair of another slice (dynamic slicing, SPEC §3.3).
 */
#include <string.h>

#include "realtime_release.h"
#include "sched_internal.h"

void adw_swap_plan(struct adw_sched *s, uint64_t now_ns);

uint32_t adw_pair_queued(const struct adw_pair_state *ps) { return ps->q_data.len + ps->q_ack.len + ps->q_rt.len; }

void adw_pair_state_init(struct adw_sched *s, struct adw_pair_state *ps, uint16_t pair, uint64_t now_ns)
{
    const struct adw_policies *pol = &s->plan->cfg->policies;
    memset(ps, 0, sizeof(*ps));
    ps->active = true;
    ps->pair = pair;
    adw_fifo_init(&ps->q_data);
    adw_fifo_init(&ps->q_ack);
    adw_fifo_init(&ps->q_rt);
    adw_tsabr_init(&ps->tsabr, &pol->ts_abr_qd);
    adw_drain_reset(&ps->drain);
    adw_astar_init(&ps->astar, &pol->queue_sizing, now_ns);
    adw_pacer_init(&ps->pacer, (uint32_t)s->params.mtu_bytes + 18u, now_ns);
    adw_ack_est_init(&ps->ack);
}

/*
 * A drain closed before it completed, whose batch has not been heard from (no ACK or data of a flow it waits for)
 * for a whole slice: its last ACKs are not coming, and what ended in the air is what was heard last. Once its AP
 * is done the STA's segments go at once (nobody else contends in the slice; release.c, deferral), so such a
 * silence is not a drain still in the air but an ACK the STA holds or will never send: a lone segment's ACK held
 * by the receiver's delayed-ACK timer (RFC 1122 §4.2.3.2; Linux 40 ms and more), the end of a connection the STA
 * reset, an uplink sender that does not use all the ACKs released (cwnd- or application-limited). Taking the
 * close time (40 ms, the pair's next slice) as V(r) cut r by 20 packets per such drain in eq. (1) (downlink-20ms:
 * at the start and end of every transfer, r from 125-130 to 65-85 before the next one; V = 40-43 ms where the
 * ground truth had the pair's last PPDU at 3 ms). So V is the time to the last segment heard (004 §5: the drain
 * is inferred from what passes through the appliance, and that is all that passed).
 *
 * A batch of which nothing at all was heard is read by what it awaited. Downlink data never acknowledged may
 * still be in the AP's queue or the air (only its ACK is missing): V stays the close time. A batch of the
 * server's ACKs to an uplink sender awaits the STA's data (004 §5: "the time taken for the corresponding number
 * of bytes worth of TCP data packets to pass through ADWISER"), and every uplink frame of the STA's reaches the
 * appliance within a transmission: a slice with none of it means the STA put nothing on the air for the batch,
 * whose only airtime was the AP's ACKs. That is a slice left idle (principle (2): busy up to its end), not an
 * overrun, so V is 0, the time to the last thing heard, the release, as for a batch of duplicate ACKs
 * (release_slice_batch). Taking the close time fed back on itself: a sender in RTO recovery, clocked by the
 * ACKs the appliance holds, sends nothing for the few released, each such slice cut r by a x S = 20 packets to
 * r_min = 2, and its 115-181 queued ACKs then waited 2-4 s at 2 per frame, longer than its RTO (uplink-wan-20ms
 * on d177b8b: r = 2 in 40/57 % of the frames, 1928 of 3118 drains closed at 40 ms, STA2 srtt 1.57 s).
 */
static uint64_t silent_drain_v(const struct adw_pair_state *ps, uint64_t v_ns, uint64_t now_ns)
{
    const struct adw_drain *d = &ps->drain;
    if (d->last_heard_ns <= d->start_ns) /* nothing heard since the release */
        return now_ns >= d->start_ns + ps->batch_s_ns && adw_drain_awaits_only_uplink_bytes(d) ? 0 : v_ns;
    if (now_ns < d->last_heard_ns + ps->batch_s_ns)
        return v_ns;
    return d->last_heard_ns - d->start_ns;
}

void adw_finish_drain(struct adw_sched *s, struct adw_pair_state *ps, uint64_t v_ns, bool capped, uint64_t now_ns)
{
    const struct adw_policies *pol = &s->plan->cfg->policies;
    uint64_t cap = (uint64_t)(pol->ts_abr_qd.v_cap_factor * (double)ps->batch_s_ns);
    if (capped && adw_drain_awaits_reset_flow(&ps->drain)) {
        /* The STA reset a connection the batch delivers to (the end of a transfer: iperf's receiver resets with
         * hundreds of packets queued). The drain stays open for the conflicting pair's sake (drain.h), and its RSTs
         * to the data still arriving keep it from counting as silent, but its length is no V(r): at every transfer
         * end in downlink-20ms two such drains closed at 40 ms cut r from 121 to 81 before the next transfer. No
         * sample for eq. (1) or eBDP, no V in the report. */
        s->st.drains_superseded += v_ns < cap;
        s->st.drains_capped += v_ns >= cap;
        s->st.drains_unmeasured++;
        return;
    }
    if (capped && silent_drain_v(ps, v_ns, now_ns) < v_ns) {
        v_ns = silent_drain_v(ps, v_ns, now_ns);
        s->st.drains_silent++;
    }
    if (capped) {
        if (v_ns >= cap) {
            s->st.drains_capped++;
            v_ns = cap;
        } else {
            s->st.drains_superseded++;
        }
    } else {
        s->st.drains_completed++;
    }
    if (v_ns > ps->batch_s_ns)
        s->st.drains_overrun++;
    ps->last_v_ns = v_ns;
    ps->frame_drains++;
    ps->frame_v_sum_ns += v_ns;
    /* r is the batch for the pair's reference slice S_ref; a batch released into a slice of another length was
     * scaled by S/S_ref, so the sample is scaled back before eq. (1): same drain rate, same equilibrium. */
    uint64_t s_ref = s->plan->s_ref_ns[ps->pair];
    double back = ps->batch_s_ns > 0 && s_ref > 0 ? (double)s_ref / (double)ps->batch_s_ns : 1.0;
    if (adw_tsabr_update(&ps->tsabr, &pol->ts_abr_qd, s_ref, (uint64_t)((double)v_ns * back),
                         (uint32_t)((double)ps->batch_pkts * back + 0.5), ps->batch_underfilled,
                         capped) == ADW_TSABR_RESET)
        s->st.tsabr_resets++;
    /* The queue must hold the next batch and one more (astar.h, adw_astar_set_floor). */
    adw_astar_set_floor(&ps->astar, &pol->queue_sizing, 2u * adw_tsabr_batch(&ps->tsabr, &pol->ts_abr_qd));
    /* eBDP service sample (003 §IV): time per packet of this time-sliced link, stretched by frame / (the pair's
     * slice time per frame), since packets wait through the slices of the others. */
    uint64_t s_frame = s->plan->s_ns[ps->pair];
    if (!capped && !ps->batch_underfilled && ps->batch_pkts >= ADW_EBDP_MIN_BATCH_PKTS && v_ns > 0 && s_frame > 0)
        adw_astar_service_sample(&ps->astar, &pol->queue_sizing,
                                 (double)v_ns / ps->batch_pkts * (double)s->plan->frame_ns / (double)s_frame);
}

static void release_node(struct adw_sched *s, struct adw_pair_state *ps, uint32_t idx, uint64_t now_ns)
{
    struct adw_node *n = adw_node_at(&s->pool, idx);
    adw_drain_note_released(&ps->drain, &n->meta, now_ns);
    ps->frame_released_pkts++;
    ps->frame_released_bytes += n->pkt.len;
    adw_fifo_push(&s->due, &s->pool, idx);
}

/* A drain still open when its pair's next batch is due never completed in time: close it, capped. */
static void close_stale_drain(struct adw_sched *s, struct adw_pair_state *ps, uint64_t now_ns)
{
    if (!ps->drain.open)
        return;
    uint64_t v = now_ns - ps->drain.start_ns;
    adw_drain_abandon(&ps->drain);
    adw_finish_drain(s, ps, v, true, now_ns);
}

#define RELEASE_AHEAD 8u /* nodes of each queue requested from the cache ahead of their release */

/* r_i(k) for a slice of s_ns: r is tuned for the pair's reference slice S_ref and scaled to another length. */
static uint32_t batch_for(const struct adw_sched *s, const struct adw_pair_state *ps, uint64_t s_ns)
{
    uint32_t r = adw_tsabr_batch(&ps->tsabr, &s->plan->cfg->policies.ts_abr_qd);
    uint64_t s_ref = s->plan->s_ref_ns[ps->pair];
    if (s_ref > 0 && s_ns != s_ref) {
        double scaled = (double)r * (double)s_ns / (double)s_ref + 0.5;
        r = scaled < 1 ? 1u : scaled > 4294967295.0 ? UINT32_MAX : (uint32_t)scaled;
    }
    return r;
}

/* TS-ABR-QD batch (004 §5): r_i(k) packets at the slice start, or what there is. A drain of the pair still
 * open then is closed first (capped), so r is updated before it sizes this batch. Returns how many went. */
static uint32_t release_batch(struct adw_sched *s, struct adw_pair_state *ps, uint64_t s_ns, uint64_t now_ns)
{
    close_stale_drain(s, ps, now_ns);
    const struct adw_tsabr_policy *tp = &s->plan->cfg->policies.ts_abr_qd;
    uint32_t r = batch_for(s, ps, s_ns);
    uint32_t avail = ps->q_data.len + ps->q_ack.len;
    uint32_t n = avail < r ? avail : r;
    if (n == 0)
        return 0;
    adw_drain_begin(&ps->drain, now_ns);
    struct adw_fifo_ahead ahead_ack, ahead_data; /* the batch's nodes were queued long ago: fetched ahead */
    adw_fifo_ahead_start(&ahead_ack, &ps->q_ack, &s->pool, RELEASE_AHEAD);
    adw_fifo_ahead_start(&ahead_data, &ps->q_data, &s->pool, RELEASE_AHEAD);
    bool ack_turn = true;
    for (uint32_t i = 0; i < n; i++) {
        struct adw_fifo *q = ack_turn ? &ps->q_ack : &ps->q_data;
        if (q->len == 0)
            q = ack_turn ? &ps->q_data : &ps->q_ack;
        adw_fifo_ahead_step(q == &ps->q_ack ? &ahead_ack : &ahead_data, &s->pool);
        release_node(s, ps, adw_fifo_pop(q, &s->pool), now_ns);
        ack_turn = !ack_turn;
    }
    ps->batch_s_ns = s_ns;
    ps->batch_pkts = n;
    ps->batch_underfilled = avail < r;
    s->st.batches++;
    if (ps->batch_underfilled)
        s->st.batches_underfilled++;
    adw_drain_end_release(&ps->drain);
    adw_astar_observe(&ps->astar, now_ns, ps->q_data.len + ps->q_ack.len, adw_tsabr_batch(&ps->tsabr, tp));
    return n;
}

/*
 * The batch of a slice (not a refill, which joins the drain before it). A batch of TCP packets that leaves
 * nothing to wait for drained at once: V = 0 for eq. (1). That is a batch of the server's duplicate ACKs to an
 * uplink sender in loss recovery: they acknowledge no new byte, so no uplink bytes are awaited (drain.h). Taking
 * no sample left r where the loss had put it, r_min after the capped drains, and the STA's recovery was clocked
 * by 2 of its ~120 queued ACKs per frame: uplink-20ms at 17:43, 40 frames (1.6 s) with r = 2, no drain sample
 * and 75-155 ACKs queued, STA1 at 10-30 MPDUs per frame and then silent; iperf3 saw 2.5 s at 0 Mbit/s. Not
 * packets of no tracked flow (UDP): there is still nothing to infer V from.
 */
static void release_slice_batch(struct adw_sched *s, struct adw_pair_state *ps, uint64_t s_ns, uint64_t now_ns)
{
    if (release_batch(s, ps, s_ns, now_ns) > 0 && !ps->drain.open && ps->drain.n_tracked > 0)
        adw_finish_drain(s, ps, 0, false, now_ns);
}

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
 * o has no downlink drain open. UINT64_MAX stands for "none so far". */
static uint64_t drain_silent_at(const struct adw_pair_state *o, uint64_t silence_ns, uint64_t at)
{
    if (!o->active || !adw_drain_awaits_downlink_acks(&o->drain))
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
static bool drained_in_previous_slice(const struct adw_sched *s, const struct adw_pair_state *ps,
                                      const struct adw_slice_event *ev)
{
    const struct adw_slice_cfg *sl = s->plan->cfg->slices;
    uint16_t n = s->plan->cfg->n_slices;
    uint64_t prev_ns = sl[(ev->slice + n - 1u) % n].duration_ns;
    return ps->drain.open && ev->start_ns >= prev_ns && ps->drain.start_ns >= ev->start_ns - prev_ns;
}

static uint64_t defer_silence_ns(const struct adw_sched *s) { return s->plan->frame_ns; }

/* A batch of pair may not go now: a conflicting drain is on the air, or the real-time guard holds it. */
static bool batch_held_back(const struct adw_sched *s, uint16_t pair, uint64_t now_ns)
{
    return conflicting_drain_in_air(s, pair, defer_silence_ns(s), now_ns) || now_ns < adw_rt_batch_free_at(s, pair);
}

static void defer_batch(struct adw_sched *s, struct adw_pair_state *ps, const struct adw_slice_event *ev,
                        uint64_t duration_ns, uint64_t now_ns)
{
    ps->deferred = true;
    ps->defer_start_ns = now_ns;
    ps->defer_slice_end_ns = ev->start_ns + duration_ns;
    ps->defer_silence_ns = defer_silence_ns(s);
    s->deferred[s->n_deferred++] = (uint16_t)(ps - s->slots);
    s->st.slice_deferrals++;
    if (now_ns < adw_rt_batch_free_at(s, ps->pair))
        s->st.rt_batch_waits++;
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
        release_slice_batch(s, ps, left, now_ns);
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
        uint64_t rt = adw_rt_batch_free_at(s, ps->pair); /* and it waits for real-time packets */
        if (rt > 0 && (at == UINT64_MAX || rt > at))
            at = rt;
        if (at > ps->defer_slice_end_ns)
            at = ps->defer_slice_end_ns;
        if (at < next)
            next = at;
    }
    return next;
}

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
 * open on it holds the conflicting pair's batch back (deferral below). Requiring the scaled r to be an A-MPDU as
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

/* The current slice is pair's: given to it, or one of its pairs' and not given away. From the plan's slice mask,
 * not a scan of the slice's pairs at every drain end (2,048 per slice in `make bench`: ~1.9 % of its samples). */
static bool owns_current_slice(const struct adw_sched *s, uint16_t pair)
{
    uint16_t slice = s->clock.slice, given = s->given_to[slice];
    return given == pair || (given == ADW_PAIR_NONE && (s->plan->slice_mask[pair] >> slice & 1u));
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
    if (!owns_current_slice(s, ps->pair) || batch_held_back(s, ps->pair, now_ns))
        return false;
    uint64_t first_ns = ps->drain.start_ns, first_s_ns = ps->batch_s_ns;
    uint32_t first_pkts = ps->batch_pkts;
    bool first_underfilled = ps->batch_underfilled;
    if (ps->q_data.len < ADW_EBDP_MIN_BATCH_PKTS)
        return false; /* under one A-MPDU of data queued: one transmission, a lone segment's ACK may be held (above);
                         and no refill of ACKs to an uplink sender (below) */
    release_batch(s, ps, slice_end - now_ns, now_ns); /* the drain is closed: nothing stale to close */
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
 * for a batch that had waited for an overrun and went as soon as it drained (testbed/README.md). So when a drain
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
 * against 7.46 (testbed/README.md).
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
            ps->q_data.len + ps->q_ack.len < batch_for(s, ps, s_ns) || batch_held_back(s, q, now_ns))
            continue;
        release_slice_batch(s, ps, s_ns, now_ns);
        ps->early_slice_ns = next_start + 1;
        s->st.early_slice_starts++;
        s->st.early_slice_ns += next_start - now_ns;
        uint64_t *early = next == 0 ? &s->next_frame_early_ns : &s->slice_early_ns[next]; /* for the frame report */
        if (next_start - now_ns > *early)
            *early = next_start - now_ns;
    }
}

static void begin_frame(struct adw_sched *s, const struct adw_slice_event *ev, uint64_t now_ns)
{
    if (s->frame_open)
        adw_report_frame(s, ev->start_ns);
    if (s->staged != NULL) {
        adw_swap_plan(s, now_ns);
        adw_slice_clock_set_map(&s->clock, s->plan->cfg);
    }
    s->frame_open = true;
    s->frame_index = ev->frame;
    s->frame_start_ns = ev->start_ns;
    s->frame_version = s->plan->cfg->version;
    s->frame_reassignments = 0;
    for (unsigned i = 0; i < ADW_MAX_SLICES; i++) {
        s->given_to[i] = ADW_PAIR_NONE;
        s->slice_early_ns[i] = 0;
    }
    s->slice_early_ns[0] = s->next_frame_early_ns; /* its batch went in the frame before */
    s->next_frame_early_ns = 0;
    s->st.frames++;
    s->st.frames_skipped = s->clock.frames_skipped;
}

void adw_slice_start(struct adw_sched *s, const struct adw_slice_event *ev, uint64_t now_ns)
{
    if (s->n_deferred > 0 || adw_rt_holding(s)) /* held back for a slice that is over: skipped (batches), */
        adw_release_deferred(s, now_ns, true);            /* released (real-time) */
    if (ev->frame_boundary)
        begin_frame(s, ev, now_ns);

    const struct adw_plan *p = s->plan;
    const struct adw_slice_cfg *sl = &p->cfg->slices[ev->slice];
    adw_rt_release_at_slice_start(s, ev->start_ns, sl->duration_ns, now_ns);
    for (unsigned i = 0; i < sl->n_pairs; i++)
        s->in_slice[sl->pairs[i]] = 1;
    for (unsigned i = 0; i < sl->n_pairs; i++) {
        uint16_t q = sl->pairs[i];
        struct adw_pair_state *ps = &s->slots[p->slot_of_pair[q]];
        if (adw_pacer_active(&ps->pacer))
            continue; /* paced mode (SPEC §3.7): released by its token bucket, not in batches */
        if (ps->early_slice_ns == ev->start_ns + 1) { /* its batch went early (adw_start_next_slice_early) */
            ps->frame_s_ns += sl->duration_ns;
            continue;
        }
        bool backlog = ps->q_data.len + ps->q_ack.len > 0;
        if (!backlog || !drained_in_previous_slice(s, ps, ev))
            close_stale_drain(s, ps, now_ns);
        ps->frame_s_ns += sl->duration_ns;
        if (!backlog && p->cfg->policies.dynamic_slicing.enabled && s->given_to[ev->slice] == ADW_PAIR_NONE) {
            uint16_t taker = adw_dynslice_pick(s, ev->slice);
            if (taker != ADW_PAIR_NONE) {
                struct adw_pair_state *ts = &s->slots[p->slot_of_pair[taker]];
                if (!drained_in_previous_slice(s, ts, ev))
                    close_stale_drain(s, ts, now_ns);
                if (batch_held_back(s, taker, now_ns))
                    defer_batch(s, ts, ev, sl->duration_ns, now_ns);
                else
                    release_slice_batch(s, ts, sl->duration_ns, now_ns);
                ts->frame_s_ns += sl->duration_ns;
                ps->frame_s_ns -= sl->duration_ns;
                ps->frame_reassigned = true;
                s->given_to[ev->slice] = taker;
                s->frame_reassignments++;
                s->st.reassignments++;
            }
            continue;
        }
        if (backlog && batch_held_back(s, q, now_ns))
            defer_batch(s, ps, ev, sl->duration_ns, now_ns);
        else
            release_slice_batch(s, ps, sl->duration_ns, now_ns);
    }
    for (unsigned i = 0; i < sl->n_pairs; i++)
        s->in_slice[sl->pairs[i]] = 0;
}
