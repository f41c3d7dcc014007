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
 * A batch whose conflicting pair's drain is still in the air waits for it
 * (deferral.c); a slice is kept busy to its end by refills (refill.c). What
 * a closed drain feeds into eq. (1) is adw_finish_drain, here.
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
    ps->counters_since_ns = now_ns;
    adw_fifo_init(&ps->q_data);
    adw_fifo_init(&ps->q_ack);
    adw_fifo_init(&ps->q_rt);
    adw_tsabr_init(&ps->tsabr, &pol->ts_abr_qd);
    adw_drain_reset(&ps->drain);
    adw_astar_init(&ps->astar, &pol->queue_sizing, now_ns);
    adw_pacer_init(&ps->pacer, (uint32_t)s->params.mtu_bytes + 18u, now_ns);
    adw_ack_est_init(&ps->ack);
    adw_ack_delay_init(&ps->ack_delay);
}

/*
 * A drain closed before it completed, whose batch has not been heard from (no ACK or data of a flow it waits for)
 * for a whole slice: its last ACKs are not coming, and what ended in the air is what was heard last. Once its AP
 * is done the STA's segments go at once (nobody else contends in the slice; deferral.c), so such a
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
    /* Nothing heard since the release: since a refill's (refill.c), whose data never acknowledged is as much in the
     * AP's queue or the air as a first batch's; the ACK that ended the batch before it is no news of it. */
    if (d->last_heard_ns <= d->release_ns)
        return now_ns >= d->start_ns + ps->batch_s_ns && adw_drain_awaits_only_uplink_bytes(d) ? 0 : v_ns;
    if (now_ns < d->last_heard_ns + ps->batch_s_ns)
        return v_ns;
    return d->last_heard_ns - d->start_ns;
}

void adw_finish_drain(struct adw_sched *s, struct adw_pair_state *ps, uint64_t v_ns, bool capped, uint64_t now_ns)
{
    const struct adw_policies *pol = &s->plan->cfg->policies;
    uint64_t cap = (uint64_t)(pol->ts_abr_qd.v_cap_factor * (double)ps->batch_s_ns);
    /* A drain still open at v_cap_factor * S is closed there (config.h): the pair's next batch only closes it later,
     * so one whose last ACK came in between is capped too, not a completed drain giving a rate from the capped V. */
    if (!capped && v_ns >= cap)
        capped = true;
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
    if (!capped && adw_drain_reset_unacked(&ps->drain)) {
        /* The server reset a flow of the batch after data of it no ACK had reported yet: the released RST ended the
         * flow's wait (nothing acknowledges a RST) with that data still in the AP's queue or the air, and the drain
         * ended then or at another flow's ACK that does not report it (drain.h). Ended, so the conflicting pair's
         * batch goes as before (deferral.c), but its length is no V(r): a batch whose only flow ended with the RST
         * drained "at once", V = 0 grew r by a x S (40 -> 60 in the lab) as if the AP had sent it all instantly. No
         * sample for eq. (1) or eBDP, no V in the report, as for the STA's reset above. */
        s->st.drains_completed++;
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
     * slice time per frame), since packets wait through the slices of the others. That is the slice time it had in
     * the last frame, not the plan's: a pair that dynamic slicing gives the idle pairs' slices is served in them
     * too, and stretched by its own share alone (half the lab's frame) its T_serv doubled and Q_eBDP halved, a
     * queue of T_max / 2 at the limit. The plan's share when it had none (first frame, all given away). */
    uint64_t s_frame = ps->last_frame_s_ns > 0 ? ps->last_frame_s_ns : s->plan->s_ns[ps->pair];
    if (s_frame > s->plan->frame_ns)
        s_frame = s->plan->frame_ns;
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
uint32_t adw_batch_for(const struct adw_sched *s, const struct adw_pair_state *ps, uint64_t s_ns)
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
uint32_t adw_release_batch(struct adw_sched *s, struct adw_pair_state *ps, uint64_t s_ns, uint64_t now_ns)
{
    close_stale_drain(s, ps, now_ns);
    const struct adw_tsabr_policy *tp = &s->plan->cfg->policies.ts_abr_qd;
    uint32_t r = adw_batch_for(s, ps, s_ns);
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
void adw_release_slice_batch(struct adw_sched *s, struct adw_pair_state *ps, uint64_t s_ns, uint64_t now_ns)
{
    if (adw_release_batch(s, ps, s_ns, now_ns) > 0 && !ps->drain.open && ps->drain.n_tracked > 0)
        adw_finish_drain(s, ps, 0, false, now_ns);
}

/* How early the batches of slice 0 went (the frame report's early_ns[0]) at a boundary where a new version came in
 * (SPEC §3.1: it takes effect there). next_frame_early_ns is that of the old version's slice 0, whose batches may
 * have gone early before the new version was staged (adw_start_next_slice_early declines only once one is): a
 * version that puts those pairs in another slice gives slice 0 to pairs whose batches go at its start or later (a
 * conflicting one after the early batch's drain, deferral.c), and the report said slice 0 began early all the same.
 * So it is the earliest of the new slice 0's own early batches: each opened its pair's drain when it went, and
 * nothing was released to the pair since, its slice not yet begun. */
static uint64_t slice0_early_ns_after_swap(const struct adw_sched *s, uint64_t start_ns)
{
    const struct adw_plan *p = s->plan;
    const struct adw_slice_cfg *sl = &p->cfg->slices[0];
    uint64_t early = 0;
    for (unsigned i = 0; i < sl->n_pairs; i++) {
        const struct adw_pair_state *ps = &s->slots[p->slot_of_pair[sl->pairs[i]]];
        if (ps->early_slice_ns == start_ns + 1 && start_ns - ps->drain.start_ns > early)
            early = start_ns - ps->drain.start_ns;
    }
    return early;
}

static void begin_frame(struct adw_sched *s, const struct adw_slice_event *ev, uint64_t now_ns)
{
    if (s->frame_open)
        adw_report_frame(s, ev->start_ns);
    bool swapped = s->staged != NULL;
    if (swapped) {
        adw_swap_plan(s, now_ns);
        adw_slice_clock_set_map(&s->clock, s->plan->cfg);
    }
    s->frame_open = true;
    s->frame_index = ev->frame;
    s->frame_start_ns = ev->start_ns;
    s->frame_version = s->plan->cfg->version;
    s->frame_reassignments = 0;
    s->frame_skipped_slices = 0;
    for (unsigned i = 0; i < ADW_MAX_SLICES; i++) {
        s->given_to[i] = ADW_PAIR_NONE;
        s->slice_early_ns[i] = 0;
    }
    /* its batch went in the frame before */
    s->slice_early_ns[0] = swapped ? slice0_early_ns_after_swap(s, ev->start_ns) : s->next_frame_early_ns;
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
    /* A slice already over when the loop comes to it (the host did not run the loop for longer than the slice): a
     * batch released now would go out in a later slice, on the air with that slice's pairs, which time-slicing
     * exists to prevent (004 §2). No batch; its pairs send in their next slice. Whole frames missed are skipped by
     * the clock (slice_clock.c); this is the rest of the frame the loop came back in. */
    if (ev->start_ns + sl->duration_ns <= now_ns) {
        /* A pair whose batch went early, in the slice before (adw_start_next_slice_early), had the slice: its time
         * counts, and the slice ran. Counted skipped only if a pair of it had packets waiting: a slice missed with
         * nothing to send held nothing back (the first one, anchored when the scheduler was made, is often over
         * before a backend's ports have started). */
        bool ran = false, waiting = false;
        for (unsigned i = 0; i < sl->n_pairs; i++) {
            struct adw_pair_state *ps = &s->slots[p->slot_of_pair[sl->pairs[i]]];
            if (ps->early_slice_ns == ev->start_ns + 1) {
                ps->frame_s_ns += sl->duration_ns;
                ran = true;
            }
            waiting = waiting || ps->q_data.len + ps->q_ack.len > 0;
        }
        if (!ran && waiting) {
            s->st.slices_skipped++;
            s->frame_skipped_slices |= UINT64_C(1) << ev->slice; /* which ones, for the frame report */
        }
        return;
    }
    /* Who sends in the slice is decided before any batch goes: a pair whose batch takes all it had has an empty
     * queue by the time a pair listed after it turns out idle, and still sends in the slice (dynamic_slicing.c). */
    for (unsigned i = 0; i < sl->n_pairs; i++) {
        struct adw_pair_state *ps = &s->slots[p->slot_of_pair[sl->pairs[i]]];
        bool sends = ps->q_data.len + ps->q_ack.len > 0 || ps->early_slice_ns == ev->start_ns + 1;
        s->in_slice[sl->pairs[i]] = sends ? ADW_IN_SLICE_SENDS : ADW_IN_SLICE_IDLE;
        if (!sends)
            ps->idle_slice_ns = ev->start_ns + 1;
    }
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
        /* A drain of the slice just before stays open whether or not the pair has more queued: an idle pair's
         * batch still on the air is the only record that its AP still sends, and the pair taking its slice
         * (dynamic slicing, possibly a conflicting one) must wait for it (deferral.c). */
        if (!adw_drained_in_previous_slice(s, ps, ev))
            close_stale_drain(s, ps, now_ns);
        ps->frame_s_ns += sl->duration_ns;
        if (!backlog && p->cfg->policies.dynamic_slicing.enabled) {
            /* The first idle pair of the slice picks its taker; every idle pair of it, whatever its place in the
             * list, gives its share to that taker and stays off the release path: an empty release would close its
             * drain of the slice before still on the air (the record that holds a conflicting taker back), and the
             * report shows it giving the slice away (reassigned, none of the slice's time its own). */
            if (s->given_to[ev->slice] == ADW_PAIR_NONE) {
                uint16_t taker = adw_dynslice_pick(s, ev->slice);
                if (taker != ADW_PAIR_NONE) {
                    struct adw_pair_state *ts = &s->slots[p->slot_of_pair[taker]];
                    if (!adw_drained_in_previous_slice(s, ts, ev))
                        close_stale_drain(s, ts, now_ns);
                    if (adw_batch_held_back(s, taker, now_ns))
                        adw_defer_batch(s, ts, ev, sl->duration_ns, now_ns);
                    else
                        adw_release_slice_batch(s, ts, sl->duration_ns, now_ns);
                    ts->frame_s_ns += sl->duration_ns;
                    s->given_to[ev->slice] = taker;
                    s->frame_reassignments++;
                    s->st.reassignments++;
                }
            }
            if (s->given_to[ev->slice] != ADW_PAIR_NONE) {
                ps->frame_s_ns -= sl->duration_ns;
                ps->frame_gave_slices |= UINT64_C(1) << ev->slice;
            }
            continue;
        }
        if (backlog && adw_batch_held_back(s, q, now_ns))
            adw_defer_batch(s, ps, ev, sl->duration_ns, now_ns);
        else
            adw_release_slice_batch(s, ps, sl->duration_ns, now_ns);
    }
    for (unsigned i = 0; i < sl->n_pairs; i++)
        s->in_slice[sl->pairs[i]] = 0;
    /* Real-time packets held above for a drain that the loop then closed as stale (its pair's, or a taker's, next
     * batch was due and its ACKs never came) wait for nothing: they go now and the batches they held back wait the
     * guard after them. Left to the hold's bound, the batch of the pair whose drain was closed idled half its slice
     * behind them, and the backend slept to that bound (adw_sched_next_event_ns). */
    if (adw_rt_holding(s))
        adw_rt_release_held(s, now_ns, false);
}

