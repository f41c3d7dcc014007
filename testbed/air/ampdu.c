/*
 * ampdu.c — the A-MPDU a node sends when one of its backoff entities wins
 * the medium (802.11-2016 §10.13; rate choice as Linux minstrel_ht/ath9k).
 *
 * The destination is picked round robin among the entity's non-empty
 * queues; the first sendable MPDU's retry count picks the rate of the retry
 * chain; the aggregate is bounded by the BlockAck window, the maximum
 * subframe count and length, and a duration limit at the slowest rate it may
 * be resent at. A rate-control probe goes alone. The A-MPDU then goes on the
 * air directly or behind an RTS (exchange.c).
 */
#include "air_state.h"
#include "airtime.h"

static uint32_t mpdu_bytes(const struct wlan_air *a, uint32_t eth_len)
{
    uint32_t payload = eth_len > a->c.eth_header_bytes ? eth_len - a->c.eth_header_bytes : 0;
    return payload + a->c.mac_overhead_bytes;
}

/* Chooses the destination (round robin) and builds the A-MPDU for an entity. */
void air_start_data(struct wlan_air *a, int n, int ac, uint64_t now)
{
    struct entity *e = &a->nodes[n].e[ac];
    int dst = -1;
    for (uint32_t k = 0; k < a->c.n_nodes; k++) {
        uint32_t d = (e->rr + k) % a->c.n_nodes;
        if (a->q[n][d][ac].pending > 0) {
            dst = (int)d;
            e->rr = d + 1;
            break;
        }
    }
    if (dst < 0)
        return;
    struct txq *q = &a->q[n][dst][ac];
    struct minstrel *rc = &a->rc[n][dst];
    /* First sendable sequence number: its tries pick the retry-chain entry
     * (rate, and RTS/CTS on fallback entries). */
    uint64_t first = q->head_seq;
    while (first < q->head_seq + q->count) {
        uint8_t s = txq_at(q, first)->state;
        if (s == MPDU_NEW || s == MPDU_RETX)
            break;
        first++;
    }
    struct mpdu *fm = txq_at(q, first);
    uint32_t mcs = minstrel_rate_for_attempt(rc, fm->retries);
    uint32_t max_n = a->c.max_ampdu_subframes;
    uint64_t limit = q->head_seq + a->c.ba_window; /* the BlockAck window's end */
    int sample = minstrel_sample_rate(rc, air_rnd(a));
    if (sample >= 0) {
        /* minstrel_ht picks its probes among the frames entering the driver (minstrel_ht_get_rate), never
         * among retransmissions, and sends them unaggregated: the probe is the first NEW MPDU inside the
         * BlockAck window, ahead of retransmissions if there are any (the receiver reorders). Sampling
         * only when the head was NEW stopped it on a lossy link, where the head is nearly always a
         * retransmission, and left the link at the one rate with statistics (1 SS MCS7 at -70 dBm, about
         * 20 % of MPDUs through, for a whole run). */
        for (uint64_t s = first; s < q->head_seq + q->count && s < limit; s++)
            if (txq_at(q, s)->state == MPDU_NEW) {
                first = s;
                fm = txq_at(q, s);
                mcs = (uint32_t)sample;
                max_n = 1;
                break;
            }
    }
    /* Like ath9k (ath_lookup_rate), the aggregate must fit the duration
     * limit at the slowest rate of the retry chain it may be resent at. */
    uint32_t slow = mcs;
    for (uint32_t at = 0; at < 6 && max_n > 1; at++) {
        uint32_t r = minstrel_rate_for_attempt(rc, at);
        if (rc->r[r].rate_mbps < rc->r[slow].rate_mbps)
            slow = r;
    }
    /* Linux minstrel_ht flags every rate-table entry after the first with
     * RTS/CTS ("for fallback rates, to increase chances of getting through");
     * ath9k then sends an RTS before the A-MPDU at those rate series only. */
    bool rts = a->c.rc_rts_on_fallback && a->c.nodes[n].role == WLAN_ROLE_AP && minstrel_chain_entry(fm->retries) > 0;
    /* The BlockAck answers at the highest basic rate not above the MCS's non-HT reference rate (§10.7.6.5.2):
     * 6 Mbit/s after a BPSK A-MPDU, twice as long as at 24 Mbit/s or more. */
    uint32_t ba_rate = airtime_response_rate_mbps(a->c.ba_rate_mbps, airtime_nonht_reference_mbps(a->c.phy, mcs));
    uint32_t ba_us = airtime_legacy_us(ba_rate, a->c.ba_bytes);
    uint32_t dur_cap = a->c.max_ppdu_us;
    /* A TXOP limit bounds the whole exchange (§10.22.2.8): RTS and CTS if any, the A-MPDU, and its BlockAck. */
    uint32_t txop = edca(a, n, ac)->txop_limit_us;
    uint32_t around = a->c.sifs_us + ba_us + (rts ? a->rts_us + a->cts_us + 2 * a->c.sifs_us : 0);
    if (txop > 0) {
        uint32_t room = txop > around ? txop - around : 0;
        if (room < dur_cap)
            dur_cap = room;
    }

    int idx;
    struct tx *t = air_new_tx(a, &idx);
    t->kind = TX_DATA;
    t->node = n;
    t->rx = dst;
    t->ac = (uint8_t)ac;
    t->mcs = mcs;
    t->ba_rate_mbps = ba_rate;
    t->ba_us = ba_us;
    t->phy_mbps = airtime_rate_mbps(a->c.phy, a->c.bandwidth_mhz, mcs, a->c.short_gi);
    uint32_t bytes = 0;
    for (uint64_t s = first; s < q->head_seq + q->count && s < limit && t->n < max_n; s++) {
        struct mpdu *m = txq_at(q, s);
        if (m->state != MPDU_NEW && m->state != MPDU_RETX)
            continue;
        uint32_t mb = mpdu_bytes(a, m->len_bytes);
        /* The previous subframe gets its padding once another follows. */
        uint32_t padded_prev = t->n ? airtime_subframe_bytes(t->sub_bytes[t->n - 1] - 4, false) : 0;
        uint32_t nb = bytes - (t->n ? t->sub_bytes[t->n - 1] : 0) + padded_prev + airtime_subframe_bytes(mb, true);
        if (t->n > 0 && (nb > a->c.max_ampdu_bytes ||
                         airtime_ppdu_us(a->c.phy, a->c.bandwidth_mhz, slow, a->c.short_gi, nb) > dur_cap))
            break;
        if (t->n)
            t->sub_bytes[t->n - 1] = padded_prev;
        t->sub_bytes[t->n] = airtime_subframe_bytes(mb, true);
        t->seq[t->n] = s;
        t->ids[t->n] = m->id;
        t->enq_us[t->n] = m->enqueue_us;
        bytes = nb;
        txq_set_state(q, s, MPDU_INFLIGHT);
        t->n++;
    }
    if (t->n == 0) {
        /* Nothing inside the BlockAck window can go (cannot happen while the
         * node waits for no exchange; kept as a guard): send nothing. */
        t->used = false;
        t->ended = t->resp_done = true;
        e->backoff = (int32_t)(air_rnd(a) * (e->cw + 1));
        e->ready_us = now + a->c.slot_us;
        return;
    }
    t->bytes = bytes;
    a->nodes[n].awaiting = true;
    e->backoff = -1;
    if (rts)
        air_start_rts(a, idx, now);
    else
        air_launch_data(a, idx, now);
}
