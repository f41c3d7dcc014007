/*
 * exchange.c — a frame exchange of the air model, from its first frame to
 * its outcome at the originator.
 *
 * A data PPDU is answered SIFS later by a BlockAck if any MPDU got through
 * (§10.24.7.5); an RTS by a CTS, and the A-MPDU it protects follows SIFS
 * after the CTS (§10.3.2.6); third parties that decode an RTS or CTS set
 * their NAV (§10.3.2.4). When the outcome is known the originator settles
 * its MPDUs (acknowledged, retried, or dropped at the retry limit), reports
 * to rate control, resets or doubles its CW, draws a new backoff and writes
 * the ground-truth record of the PPDU.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "air_state.h"
#include "airtime.h"

/* Whether a transmission still has an event to come. */
bool air_tx_is_live(const struct tx *x)
{
    if (!x->ended)
        return true;
    if (x->kind == TX_DATA)
        return !x->resp_done || x->ba_start_us != NONE;
    if (x->kind == TX_RTS)
        return !x->resp_done || x->cts_start_us != NONE || x->data_start_us != NONE;
    return false;
}

/* A fresh history slot for a new transmission, made live; slots with events to come are never reused. */
struct tx *air_new_tx(struct wlan_air *a, int *idx)
{
    for (int tries = 0; tries < TX_HISTORY; tries++) {
        int i = (int)(a->hist_next++ % TX_HISTORY);
        struct tx *t = &a->hist[i];
        /* Keep slots still on air or awaiting their exchange's outcome. */
        if (t->used && air_tx_is_live(t))
            continue;
        /* A receiver's preamble lock (air_put_on_air) names its frame by slot: a lock left on a reused
         * slot would hold the node on an unrelated transmission (a frame to it lost as if the PLCP
         * header were missed, a frame it overhears not detected). */
        for (uint32_t n = 0; n < a->c.n_nodes; n++)
            if (a->nodes[n].lock_tx == i)
                a->nodes[n].lock_tx = -1;
        memset(t, 0, sizeof *t);
        t->used = true;
        t->ba_tx = t->data_tx = t->cts_tx = -1;
        t->ba_start_us = t->cts_start_us = t->data_start_us = NONE;
        a->live[a->n_live++] = i;
        *idx = i;
        return t;
    }
    abort(); /* more than TX_HISTORY exchanges in flight: impossible with WLAN_MAX_NODES */
}


/* Puts the A-MPDU held in hist[idx] on air at now. */
void air_launch_data(struct wlan_air *a, int idx, uint64_t now)
{
    struct tx *t = &a->hist[idx];
    t->kind = TX_DATA;
    t->start_us = now;
    t->preamble_us = airtime_preamble_us(a->c.phy, airtime_nss(a->c.phy, t->mcs));
    t->end_us = now + airtime_ppdu_us(a->c.phy, a->c.bandwidth_mhz, t->mcs, a->c.short_gi, t->bytes);
    t->resp_us = t->end_us + a->c.sifs_us + t->ba_us;
    /* Each MPDU is decoded once the symbol holding its last bit is in
     * (SERVICE field first, §19.3.11.2), so receptions are decided, and
     * MPDUs handed up, along the PPDU as a receiver does. */
    uint64_t cum = 0, ndbps = airtime_ndbps(a->c.phy, a->c.bandwidth_mhz, t->mcs);
    double tsym = a->c.short_gi ? 3.6 : 4.0;
    for (uint32_t i = 0; i < t->n; i++) {
        cum += t->sub_bytes[i];
        uint64_t nsym = (16 + 8 * cum + ndbps - 1) / ndbps;
        uint64_t e_us = now + t->preamble_us + (uint64_t)ceil((double)nsym * tsym - 1e-9);
        t->mpdu_end_us[i] = i + 1 == t->n || e_us > t->end_us ? t->end_us : e_us;
    }
    air_put_on_air(a, t, idx);
    struct wlan_link_counters *k = &a->ctr[t->node][t->rx];
    struct txq *q = &a->q[t->node][t->rx][t->ac];
    for (uint32_t i = 0; i < t->n; i++)
        if (txq_at(q, t->seq[i])->retries)
            k->mpdus_retx++;
    k->ppdus++;
    k->ppdus_protected += t->rts_protected;
    k->mpdus_tx += t->n;
    k->airtime_us += t->end_us - t->start_us;
    k->sum_ampdu += t->n;
    k->sum_phy_mbps += t->phy_mbps;
}

/* Sends an RTS at now for the A-MPDU held in hist[idx] (802.11-2016
 * §10.3.2.6): the A-MPDU follows SIFS after a CTS the AP decodes. */
void air_start_rts(struct wlan_air *a, int idx, uint64_t now)
{
    struct tx *t = &a->hist[idx];
    t->kind = TX_RTS;
    t->data_us = airtime_ppdu_us(a->c.phy, a->c.bandwidth_mhz, t->mcs, a->c.short_gi, t->bytes);
    t->start_us = now;
    t->end_us = now + a->rts_us;
    t->preamble_us = 20;
    t->resp_us = t->end_us + a->c.sifs_us + a->cts_us;
    a->ctr[t->node][t->rx].rts_tx++;
    air_put_on_air(a, t, idx);
}

/* The control response (TX_BA or TX_CTS) of the addressee of hist[req_idx], SIFS after that request (the A-MPDU
 * or the RTS), at the legacy rate its duration dur_us was computed for; none if the addressee is transmitting. */
void air_start_response(struct wlan_air *a, int req_idx, enum tx_kind kind, uint32_t dur_us, double rate_mbps,
                           uint64_t now)
{
    struct tx *q = &a->hist[req_idx];
    if (kind == TX_BA)
        q->ba_start_us = NONE;
    else
        q->cts_start_us = NONE;
    if (a->nodes[q->rx].transmitting)
        return;
    int idx;
    struct tx *t = air_new_tx(a, &idx);
    q = &a->hist[req_idx];
    t->kind = kind;
    t->node = q->rx;
    t->rx = q->node;
    t->start_us = now;
    t->end_us = now + dur_us;
    t->preamble_us = 20;
    t->phy_mbps = rate_mbps;
    t->data_tx = req_idx;
    if (kind == TX_BA)
        q->ba_tx = idx;
    else
        q->cts_tx = idx; /* a CTS goes SIFS after an RTS its addressee decoded with its NAV idle */
    air_put_on_air(a, t, idx);
}

/* The A-MPDU an RTS reserved the medium for, SIFS after the CTS. */
void air_start_protected_data(struct wlan_air *a, int rts_idx, uint64_t now)
{
    int idx;
    struct tx *t = air_new_tx(a, &idx);
    struct tx *r = &a->hist[rts_idx];
    t->node = r->node;
    t->rx = r->rx;
    t->ac = r->ac;
    t->mcs = r->mcs;
    t->phy_mbps = r->phy_mbps;
    t->n = r->n;
    t->bytes = r->bytes;
    t->ba_rate_mbps = r->ba_rate_mbps;
    t->ba_us = r->ba_us;
    memcpy(t->seq, r->seq, r->n * sizeof t->seq[0]);
    memcpy(t->ids, r->ids, r->n * sizeof t->ids[0]);
    memcpy(t->enq_us, r->enq_us, r->n * sizeof t->enq_us[0]);
    memcpy(t->sub_bytes, r->sub_bytes, r->n * sizeof t->sub_bytes[0]);
    t->rts_protected = true;
    /* Only now: the RTS slot stays live, hence unreused, until copied. */
    r->data_start_us = NONE;
    air_launch_data(a, idx, now);
}

/* End of a data PPDU: its last MPDUs are decided, and a BlockAck is due SIFS later if any got through. */
void air_end_data(struct wlan_air *a, int idx)
{
    air_decide_mpdus(a, idx, a->hist[idx].end_us);
    struct tx *t = &a->hist[idx];
    uint32_t n_ok = 0;
    for (uint32_t i = 0; i < t->n; i++)
        n_ok += t->ok[i];
    if (t->collided)
        a->ctr[t->node][t->rx].collided++;
    if (t->preamble_lost)
        a->ctr[t->node][t->rx].preamble_lost++;
    /* An A-MPDU with at least one good MPDU is answered by a BlockAck (§10.24.7.5). */
    if (n_ok > 0)
        t->ba_start_us = t->end_us + a->c.sifs_us;
}

/* Third parties that decode an RTS or CTS set their NAV from its Duration
 * field (§10.3.2.4) up to nav_us, the end of the exchange's BlockAck. */
static void nav_from_control(struct wlan_air *a, int idx, uint32_t len_bytes, uint64_t nav_us)
{
    const struct tx *t = &a->hist[idx];
    for (uint32_t n = 0; n < a->c.n_nodes; n++) {
        if ((int)n == t->node || (int)n == t->rx || !air_control_decoded(a, idx, (int)n, len_bytes))
            continue;
        if (nav_us > a->nodes[n].nav_until_us)
            a->nodes[n].nav_until_us = nav_us;
    }
}

/* End of an RTS: its addressee answers SIFS later if it decoded it and its
 * NAV is idle (§10.3.2.6); listeners defer to the whole exchange (RTS
 * Duration = 3 SIFS + CTS + data + BlockAck, §9.3.1.2). */
void air_end_rts(struct wlan_air *a, int idx)
{
    struct tx *t = &a->hist[idx];
    uint64_t now = t->end_us;
    if (air_control_decoded(a, idx, t->rx, a->c.rts_bytes) && a->nodes[t->rx].nav_until_us <= now)
        t->cts_start_us = now + a->c.sifs_us;
    nav_from_control(a, idx, a->c.rts_bytes,
                     now + 3ull * a->c.sifs_us + a->cts_us + t->data_us + t->ba_us);
}

/* End of a CTS: its listeners, the hidden AP among them, defer to the data
 * and BlockAck that follow (CTS Duration, §9.3.1.3). */
void air_end_cts(struct wlan_air *a, int idx)
{
    const struct tx *t = &a->hist[idx];
    const struct tx *r = &a->hist[t->data_tx];
    nav_from_control(a, idx, a->c.cts_bytes, t->end_us + 2ull * a->c.sifs_us + r->data_us + r->ba_us);
}

/* Settles an exchange at its originator: BlockAck'ed MPDUs are done, the
 * others retried or dropped at the retry limit; rate control and CW follow.
 * An RTS without CTS is an exchange in which nothing got through.
 *
 * The BlockAck bitmap is the recipient's scoreboard (802.11-2016
 * §10.24.7.3): it keeps every MPDU received under the agreement, so a
 * BlockAck also acknowledges an MPDU of this A-MPDU that the recipient got
 * in an earlier PPDU whose BlockAck was lost, even if this copy failed
 * (m->rx_ok). The originator cannot tell the two apart, and neither can its
 * rate control: as ath9k reads the bitmap, such an MPDU counts as a success. */
static void finish_exchange(struct wlan_air *a, int idx, bool ba_ok)
{
    struct tx *t = &a->hist[idx];
    t->resp_done = true;
    struct txq *q = &a->q[t->node][t->rx][t->ac];
    struct wlan_link_counters *k = &a->ctr[t->node][t->rx];
    uint32_t acked = 0;
    bool discarded = false;
    for (uint32_t i = 0; i < t->n; i++) {
        struct mpdu *m = txq_at(q, t->seq[i]);
        if (ba_ok && m->rx_ok) {
            txq_set_state(q, t->seq[i], MPDU_ACKED);
            acked++;
        } else if (++m->retries >= a->c.mpdu_retry_limit) {
            txq_set_state(q, t->seq[i], MPDU_DROPPED);
            k->mpdus_dropped++;
            discarded = true;
        } else {
            txq_set_state(q, t->seq[i], MPDU_RETX);
        }
    }
    if (!ba_ok && t->kind == TX_DATA)
        k->ba_lost++;
    minstrel_report(&a->rc[t->node][t->rx], t->mcs, t->n, acked, a->now_us);
    air_release(a, t->node, t->rx, t->ac);
    struct node *nd = &a->nodes[t->node];
    /* §10.22.2.2: CW returns to CWmin after a successful exchange and when a frame reaches its retry
     * limit and is discarded; after any other failure it doubles, up to CWmax. */
    air_new_backoff(a, t->node, t->ac, ba_ok || discarded);
    nd->e[t->ac].ready_us = 0;
    nd->awaiting = false;
    if (t->kind == TX_DATA && a->cb && a->cb->ground_truth) {
        struct wlan_gt_record r = {
            .tx = (uint8_t)t->node, .rx = (uint8_t)t->rx, .ac = t->ac, .mcs = (uint8_t)t->mcs,
            .start_us = t->start_us, .duration_us = (uint32_t)(t->end_us - t->start_us),
            .n_mpdu = t->n, .bytes = t->bytes, .phy_mbps = t->phy_mbps, .collided = t->collided,
            .preamble_lost = t->preamble_lost, .ba_ok = ba_ok, .rts = t->rts_protected, .ids = t->ids, .ok = t->ok,
            .enq_us = t->enq_us};
        for (uint32_t i = 0; i < t->n; i++)
            r.n_ok += t->ok[i];
        a->cb->ground_truth(a->cb->ctx, &r);
    }
}

/* When the BlockAck would have ended: the exchange succeeds if the originator decoded it. */
void air_complete_exchange(struct wlan_air *a, int idx)
{
    finish_exchange(a, idx, air_ba_received(a, idx));
}

/* When the CTS would have ended: the A-MPDU follows SIFS later, or the
 * attempt failed (CTSTimeout, §10.3.2.6). */
void air_complete_rts(struct wlan_air *a, int idx)
{
    struct tx *t = &a->hist[idx];
    if (t->cts_tx >= 0 && air_control_decoded(a, t->cts_tx, t->node, a->c.cts_bytes)) {
        t->resp_done = true;
        t->data_start_us = a->now_us + a->c.sifs_us;
        return;
    }
    a->ctr[t->node][t->rx].rts_failed++;
    finish_exchange(a, idx, false);
}
