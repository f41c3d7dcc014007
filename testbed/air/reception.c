/*
 * reception.c — what a receiver of the air model decodes.
 *
 * Each MPDU of a data PPDU is decided once the OFDM symbol carrying its last
 * bit has arrived, from the SINR over its own span (interference from every
 * overlapping transmission, the noise floor) through the per-MCS PER curve
 * of radio.c; a PPDU whose preamble the receiver missed, or that it could
 * not hear because it was transmitting (half duplex), is lost whole.
 * BlockAcks, RTS and CTS are decided the same way at their legacy rate.
 * Decoded MPDUs are handed up in sequence order (txq.c).
 */
#include "air_state.h"
#include "radio.h"

/* The HT MCS with the modulation and coding of a non-HT rate (same
 * sensitivity, Table 17-18 vs 19-23, and the same required SNR). */
static uint32_t legacy_equivalent_mcs(uint32_t rate)
{
    switch (rate) {
    case 6: case 9: return 0;
    case 12: return 1;
    case 18: return 2;
    case 24: return 3;
    case 36: return 4;
    case 48: return 5;
    default: return 6;
    }
}


/* Interference (mW) at node rx during [from, to) from transmissions other than self. */
static double interference_mw(const struct wlan_air *a, int self, int rx, double from, double to, bool *overlap)
{
    const struct tx *me = &a->hist[self];
    double i_mw = 0;
    for (int i = 0; i < TX_HISTORY; i++) {
        const struct tx *t = &a->hist[i];
        if (i == self || !t->used || t->node == rx || t->node == me->node)
            continue;
        if ((double)t->start_us < to && (double)t->end_us > from) {
            i_mw += t->rss_mw[rx];
            if (overlap && t->rss_dbm[rx] >= a->c.noise_floor_dbm)
                *overlap = true;
        }
    }
    return i_mw;
}

static bool rx_transmitted_during(const struct wlan_air *a, int self)
{
    const struct tx *me = &a->hist[self];
    for (int i = 0; i < TX_HISTORY; i++) {
        const struct tx *t = &a->hist[i];
        if (i != self && t->used && t->node == me->rx && t->start_us < me->end_us && t->end_us > me->start_us)
            return true;
    }
    return false;
}

struct release_ctx {
    struct wlan_air *a;
    int src, dst, ac;
};

static void release_cb(void *ctx, const struct mpdu *m, bool delivered)
{
    struct release_ctx *r = ctx;
    struct wlan_air *a = r->a;
    struct wlan_delivery d = {.id = m->id, .len_bytes = m->len_bytes, .src = (uint8_t)r->src,
                              .dst = (uint8_t)r->dst, .ac = (uint8_t)r->ac,
                              .enqueue_us = m->enqueue_us, .deliver_us = a->now_us};
    if (!delivered) {
        if (a->cb && a->cb->dropped)
            a->cb->dropped(a->cb->ctx, &d);
        return;
    }
    struct wlan_link_counters *k = &a->ctr[r->src][r->dst];
    k->delivered++;
    k->delivered_bytes += m->len_bytes;
    if (a->cb && a->cb->deliver)
        a->cb->deliver(a->cb->ctx, &d);
}

/* Hands up, in sequence order, what the receiver of (src, dst, ac) now holds in order (and reports what the
 * originator gave up on), then drops finished MPDUs from the queue. */
void air_release(struct wlan_air *a, int src, int dst, int ac)
{
    struct release_ctx r = {a, src, dst, ac};
    txq_release(&a->q[src][dst][ac], release_cb, &r);
    txq_pop_finished(&a->q[src][dst][ac]);
}

/* Whether node rx transmitted during [from, to) (half duplex: it cannot receive). */
static bool rx_busy_during(const struct wlan_air *a, int self, int rx, double from, double to)
{
    for (int i = 0; i < TX_HISTORY; i++) {
        const struct tx *t = &a->hist[i];
        if (i != self && t->used && t->node == rx && (double)t->start_us < to && (double)t->end_us > from)
            return true;
    }
    return false;
}

/* Decides, in order, the reception of every MPDU of data PPDU idx whose last
 * symbol has arrived by now; all interference overlapping an MPDU has
 * started by its end, so each decision uses complete information. */
void air_decide_mpdus(struct wlan_air *a, int idx, uint64_t now)
{
    struct tx *t = &a->hist[idx];
    double sig = t->rss_dbm[t->rx];
    double pre_end = (double)(t->start_us + t->preamble_us);
    if (t->decided == 0 && t->n > 0 && t->mpdu_end_us[0] <= now) {
        double i_pre = interference_mw(a, idx, t->rx, (double)t->start_us, pre_end, &t->collided);
        /* The preamble and SIGNAL fields are BPSK 1/2 (MCS0 robustness). */
        t->lost_all = t->preamble_lost || sig < a->c.cs_threshold_dbm ||
                      rx_busy_during(a, idx, t->rx, (double)t->start_us, pre_end) ||
                      radio_margin_db(&a->c, 0, sig, radio_sinr_db(sig, a->c.noise_floor_dbm, i_pre)) < 0;
    }
    struct txq *q = &a->q[t->node][t->rx][t->ac];
    uint32_t before = t->decided;
    while (t->decided < t->n && t->mpdu_end_us[t->decided] <= now) {
        uint32_t i = t->decided++;
        double s = i ? (double)t->mpdu_end_us[i - 1] : pre_end, e = (double)t->mpdu_end_us[i];
        bool ov = false;
        double i_mw = interference_mw(a, idx, t->rx, s, e, &ov);
        t->collided |= ov;
        double sinr = radio_sinr_db(sig, a->c.noise_floor_dbm, i_mw);
        double p = radio_error_prob(&a->c, radio_margin_db(&a->c, t->mcs, sig, sinr), t->sub_bytes[i]);
        t->ok[i] = !t->lost_all && !rx_busy_during(a, idx, t->rx, s, e) && air_rnd(a) >= p;
        if (t->ok[i]) {
            a->ctr[t->node][t->rx].mpdus_ok++;
            txq_at(q, t->seq[i])->rx_ok = true;
        }
    }
    if (t->decided > before)
        air_release(a, t->node, t->rx, t->ac);
}

/* Whether the originator of data PPDU data_idx decodes its BlockAck (at the legacy BlockAck rate). */
bool air_ba_received(struct wlan_air *a, int data_idx)
{
    struct tx *d = &a->hist[data_idx];
    if (d->ba_tx < 0)
        return false;
    struct tx *b = &a->hist[d->ba_tx];
    if (b->preamble_lost || rx_transmitted_during(a, d->ba_tx))
        return false;
    double i_mw = interference_mw(a, d->ba_tx, b->rx, (double)b->start_us, (double)b->end_us, NULL);
    double sig = b->rss_dbm[b->rx];
    double m = radio_margin_db(&a->c, legacy_equivalent_mcs(d->ba_rate_mbps), sig,
                               radio_sinr_db(sig, a->c.noise_floor_dbm, i_mw));
    return air_rnd(a) >= radio_error_prob(&a->c, m, a->c.ba_bytes);
}

/* Whether node n decodes control frame idx (RTS or CTS) of len_bytes at
 * the RTS/CTS rate: it locked onto its preamble, did not transmit during it,
 * and the SINR over the frame gives it through the PER curve. */
bool air_control_decoded(struct wlan_air *a, int idx, int n, uint32_t len_bytes)
{
    const struct tx *t = &a->hist[idx];
    if (!t->detected[n] || rx_busy_during(a, idx, n, (double)t->start_us, (double)t->end_us))
        return false;
    double i_mw = interference_mw(a, idx, n, (double)t->start_us, (double)t->end_us, NULL);
    double sig = t->rss_dbm[n];
    double m = radio_margin_db(&a->c, legacy_equivalent_mcs(a->c.rts_rate_mbps), sig,
                               radio_sinr_db(sig, a->c.noise_floor_dbm, i_mw));
    return air_rnd(a) >= radio_error_prob(&a->c, m, len_bytes);
}
