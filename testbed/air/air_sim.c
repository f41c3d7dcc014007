/*
 * air_sim.c — the event-driven EDCA engine of the air model (see wlan_air.h).
 *
 * State advances from one virtual instant to the next at which something
 * happens: a transmission ends (receptions are decided, MPDUs handed up),
 * a BlockAck starts SIFS after a data PPDU, an exchange completes at the
 * originator (BlockAck decoded or not: retries, rate control, CW), a NAV
 * expires, or a backoff entity reaches zero on idle medium. An A-MPDU
 * protected by RTS/CTS is built when the AP wins contention and kept in its
 * RTS; the CTS starts SIFS after the RTS, the A-MPDU SIFS after the CTS. At one instant
 * all entities that expire transmit together (so equal backoffs collide, as
 * on air), and only then do the others sense the medium busy and freeze
 * their backoff (802.11-2016 §10.22.2.4).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "airtime.h"
#include "minstrel.h"
#include "radio.h"
#include "txq.h"
#include "wlan_air.h"

#define MAX_AMPDU 256
#define TX_HISTORY 256
#define NONE UINT64_MAX

enum tx_kind { TX_DATA, TX_BA, TX_RTS, TX_CTS };

struct tx {
    bool used;                   /* slot holds a transmission */
    enum tx_kind kind;           /* data PPDU, BlockAck, RTS or CTS */
    int node, rx;                /* transmitter and addressed receiver */
    uint8_t ac;                  /* access category (data) */
    uint64_t start_us, end_us;   /* on-air interval (µs) */
    uint32_t preamble_us;        /* preamble duration (µs) */
    uint32_t mcs;                /* MCS (data; for an RTS that of the A-MPDU it protects) */
    double phy_mbps;             /* PHY rate of the data PPDU (Mbit/s) */
    double rss_dbm[WLAN_MAX_NODES]; /* received power at each node incl. fading (dBm) */
    double rss_mw[WLAN_MAX_NODES];  /* the same in mW */
    bool detected[WLAN_MAX_NODES];  /* the node detected its preamble (locked onto it at its start) */
    bool ended;                  /* end processed */
    bool preamble_lost;          /* receiver was locked elsewhere or transmitting at start */
    bool collided;               /* overlapped at the receiver */
    /* data PPDU (an RTS holds the A-MPDU it protects in the same fields) */
    uint32_t n;                  /* MPDUs */
    uint64_t seq[MAX_AMPDU];     /* their sequence numbers */
    uint64_t ids[MAX_AMPDU];     /* their frame ids */
    uint64_t enq_us[MAX_AMPDU];  /* when each entered the transmitter's queue (µs) */
    uint32_t sub_bytes[MAX_AMPDU]; /* subframe lengths (bytes) */
    uint8_t ok[MAX_AMPDU];       /* decoded at the receiver */
    uint64_t mpdu_end_us[MAX_AMPDU]; /* end of the OFDM symbol carrying each MPDU's last bit (µs) */
    uint32_t decided;            /* MPDUs whose reception is decided (in order) */
    bool lost_all;               /* preamble missed: no MPDU can be decoded */
    uint32_t bytes;              /* A-MPDU length (bytes) */
    uint64_t ba_start_us;        /* when the BlockAck starts, NONE if none */
    uint64_t resp_us;            /* when the originator learns the outcome */
    bool resp_done;              /* outcome processed */
    int ba_tx;                   /* history index of the BlockAck, -1 if none */
    bool rts_protected;          /* sent after a successful RTS/CTS exchange */
    /* RTS */
    uint32_t data_us;            /* duration of the protected data PPDU (µs) */
    uint64_t cts_start_us;       /* when the CTS starts, NONE if none */
    uint64_t data_start_us;      /* when the protected A-MPDU starts, NONE if not (yet) */
    int cts_tx;                  /* history index of the CTS, -1 if none */
    /* BlockAck, CTS */
    int data_tx;                 /* history index of the data PPDU (BlockAck) or RTS (CTS) it answers */
};

struct entity {
    int32_t backoff;             /* remaining backoff (slots), -1 = none drawn */
    uint32_t cw;                 /* current contention window (slots) */
    uint64_t ready_us;           /* earliest start after a frame arrived at an empty entity (µs) */
    uint32_t rr;                 /* round-robin pointer over destinations */
};

struct node {
    struct entity e[WLAN_AC_COUNT];
    bool transmitting;           /* radio is sending */
    bool awaiting;               /* waiting for the outcome of its exchange */
    bool busy;                   /* medium busy as this node sees it */
    uint64_t idle_since_us;      /* when the medium last became idle here (µs) */
    uint64_t nav_until_us;       /* virtual carrier sense (µs) */
    int lock_tx;                 /* history index of the PPDU the receiver is locked onto, -1 */
};

struct wlan_air {
    struct wlan_air_config c;
    uint64_t now_us;             /* virtual clock (µs) */
    uint64_t rng;                /* xorshift64* state */
    struct node nodes[WLAN_MAX_NODES];
    struct txq q[WLAN_MAX_NODES][WLAN_MAX_NODES][WLAN_AC_COUNT];
    struct minstrel rc[WLAN_MAX_NODES][WLAN_MAX_NODES];
    struct wlan_link_counters ctr[WLAN_MAX_NODES][WLAN_MAX_NODES];
    struct tx hist[TX_HISTORY];
    uint32_t hist_next;          /* next history slot */
    int live[TX_HISTORY];        /* history indices of transmissions with events still to come */
    int n_live;                  /* entries in live */
    uint32_t ba_us;              /* BlockAck duration (µs) */
    uint32_t rts_us, cts_us;     /* RTS and CTS durations (µs) */
    const struct wlan_air_callbacks *cb;
};

/* ---------------------------------------------------------------- randomness */

static double rnd(struct wlan_air *a)
{
    a->rng ^= a->rng >> 12;
    a->rng ^= a->rng << 25;
    a->rng ^= a->rng >> 27;
    return (double)((a->rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double gauss(struct wlan_air *a)
{
    double u1 = rnd(a), u2 = rnd(a);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* ---------------------------------------------------------------- helpers */

static const struct wlan_edca *edca(const struct wlan_air *a, int n, int ac)
{
    return a->c.nodes[n].role == WLAN_ROLE_AP ? &a->c.edca_ap[ac] : &a->c.edca_sta[ac];
}

static uint64_t aifs_us(const struct wlan_air *a, int n, int ac)
{
    return a->c.sifs_us + (uint64_t)edca(a, n, ac)->aifsn * a->c.slot_us;
}

static uint32_t mpdu_bytes(const struct wlan_air *a, uint32_t eth_len)
{
    uint32_t payload = eth_len > a->c.eth_header_bytes ? eth_len - a->c.eth_header_bytes : 0;
    return payload + a->c.mac_overhead_bytes;
}

static bool active_at(const struct tx *t, uint64_t now)
{
    return t->used && t->start_us <= now && now < t->end_us;
}

static uint32_t node_pending(const struct wlan_air *a, int n, int ac)
{
    uint32_t p = 0;
    for (uint32_t d = 0; d < a->c.n_nodes; d++)
        p += a->q[n][d][ac].pending;
    return p;
}

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

/* ---------------------------------------------------------------- medium state */

static bool senses_busy(const struct wlan_air *a, int n, uint64_t now)
{
    const struct node *nd = &a->nodes[n];
    if (nd->transmitting || nd->awaiting || now < nd->nav_until_us)
        return true;
    for (int k = 0; k < a->n_live; k++) {
        const struct tx *t = &a->hist[a->live[k]];
        /* A frame whose preamble the node detected holds CCA busy down to the
         * CS threshold; one it missed (it was transmitting or locked onto
         * another frame at its start) only by energy (§19.3.19.5.2). */
        if (active_at(t, now) && t->node != n &&
            t->rss_dbm[n] >= (t->detected[n] ? a->c.cs_threshold_dbm : a->c.ed_threshold_dbm))
            return true;
    }
    return false;
}

/* Freezes backoff counters of a node whose medium turns busy at now. */
static void freeze(struct wlan_air *a, int n, uint64_t now)
{
    struct node *nd = &a->nodes[n];
    for (int ac = 0; ac < WLAN_AC_COUNT; ac++) {
        struct entity *e = &nd->e[ac];
        uint64_t count_from = nd->idle_since_us + aifs_us(a, n, ac);
        if (e->backoff > 0 && now > count_from) {
            int64_t slots = (int64_t)((now - count_from) / a->c.slot_us);
            e->backoff = slots >= e->backoff ? 0 : e->backoff - (int32_t)slots;
        }
    }
}

static void update_busy(struct wlan_air *a, uint64_t now)
{
    for (uint32_t n = 0; n < a->c.n_nodes; n++) {
        struct node *nd = &a->nodes[n];
        bool b = senses_busy(a, (int)n, now);
        if (b && !nd->busy)
            freeze(a, (int)n, now);
        else if (!b && nd->busy)
            nd->idle_since_us = now;
        nd->busy = b;
    }
}

static uint64_t entity_expiry(const struct wlan_air *a, int n, int ac)
{
    const struct node *nd = &a->nodes[n];
    const struct entity *e = &nd->e[ac];
    if (nd->busy || e->backoff < 0 || node_pending(a, n, ac) == 0)
        return NONE;
    uint64_t t = nd->idle_since_us + aifs_us(a, n, ac) + (uint64_t)e->backoff * a->c.slot_us;
    return t > e->ready_us ? t : e->ready_us;
}

/* ---------------------------------------------------------------- transmissions */

/* Whether a transmission still has an event to come. */
static bool is_live(const struct tx *x)
{
    if (!x->ended)
        return true;
    if (x->kind == TX_DATA)
        return !x->resp_done || x->ba_start_us != NONE;
    if (x->kind == TX_RTS)
        return !x->resp_done || x->cts_start_us != NONE || x->data_start_us != NONE;
    return false;
}

static struct tx *new_tx(struct wlan_air *a, int *idx)
{
    for (int tries = 0; tries < TX_HISTORY; tries++) {
        int i = (int)(a->hist_next++ % TX_HISTORY);
        struct tx *t = &a->hist[i];
        /* Keep slots still on air or awaiting their exchange's outcome. */
        if (t->used && is_live(t))
            continue;
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

/* Draws the received power at every node and applies preamble locking. */
static void put_on_air(struct wlan_air *a, struct tx *t, int idx)
{
    for (uint32_t n = 0; n < a->c.n_nodes; n++) {
        if ((int)n == t->node)
            continue;
        double f = a->c.fading_sigma_db > 0 ? a->c.fading_sigma_db * gauss(a) : 0.0;
        t->rss_dbm[n] = a->c.rss_dbm[n][t->node] + f;
        t->rss_mw[n] = radio_dbm_to_mw(t->rss_dbm[n]);
    }
    struct node *src = &a->nodes[t->node];
    src->transmitting = true;
    src->lock_tx = -1;
    for (uint32_t n = 0; n < a->c.n_nodes; n++) {
        struct node *nd = &a->nodes[n];
        if ((int)n == t->node)
            continue;
        bool locked = nd->lock_tx >= 0 && active_at(&a->hist[nd->lock_tx], t->start_us);
        if ((int)n == t->rx) {
            if (nd->transmitting)
                t->preamble_lost = true;
            else if (locked && t->rss_dbm[n] < a->hist[nd->lock_tx].rss_dbm[n] + a->c.preamble_capture_db)
                t->preamble_lost = true; /* 004 §4.1: the PLCP header is missed */
            else if (t->rss_dbm[n] >= a->c.cs_threshold_dbm)
                nd->lock_tx = idx;
            t->detected[n] = nd->lock_tx == idx;
            continue;
        }
        if (nd->transmitting || t->rss_dbm[n] < a->c.cs_threshold_dbm)
            continue;
        if (!locked || t->rss_dbm[n] >= a->hist[nd->lock_tx].rss_dbm[n] + a->c.preamble_capture_db) {
            nd->lock_tx = idx;
            t->detected[n] = true;
            /* The Duration field protects the whole exchange (NAV, §10.3.2.4). */
            if (t->kind == TX_DATA) {
                uint64_t nav = t->end_us + a->c.sifs_us + a->ba_us;
                if (nav > nd->nav_until_us)
                    nd->nav_until_us = nav;
            }
        }
    }
}

/* Puts the A-MPDU held in hist[idx] on air at now. */
static void launch_data(struct wlan_air *a, int idx, uint64_t now)
{
    struct tx *t = &a->hist[idx];
    t->kind = TX_DATA;
    t->start_us = now;
    t->preamble_us = airtime_preamble_us(a->c.phy, airtime_nss(a->c.phy, t->mcs));
    t->end_us = now + airtime_ppdu_us(a->c.phy, a->c.bandwidth_mhz, t->mcs, a->c.short_gi, t->bytes);
    t->resp_us = t->end_us + a->c.sifs_us + a->ba_us;
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
    put_on_air(a, t, idx);
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
static void start_rts(struct wlan_air *a, int idx, uint64_t now)
{
    struct tx *t = &a->hist[idx];
    t->kind = TX_RTS;
    t->data_us = airtime_ppdu_us(a->c.phy, a->c.bandwidth_mhz, t->mcs, a->c.short_gi, t->bytes);
    t->start_us = now;
    t->end_us = now + a->rts_us;
    t->preamble_us = 20;
    t->resp_us = t->end_us + a->c.sifs_us + a->cts_us;
    a->ctr[t->node][t->rx].rts_tx++;
    put_on_air(a, t, idx);
}

/* Chooses the destination (round robin) and builds the A-MPDU for an entity. */
static void start_data(struct wlan_air *a, int n, int ac, uint64_t now)
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
    int sample = minstrel_sample_rate(rc, rnd(a));
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
    uint32_t dur_cap = a->c.max_ppdu_us;
    uint32_t txop = edca(a, n, ac)->txop_limit_us;
    if (txop > 0 && txop < dur_cap)
        dur_cap = txop;

    int idx;
    struct tx *t = new_tx(a, &idx);
    t->kind = TX_DATA;
    t->node = n;
    t->rx = dst;
    t->ac = (uint8_t)ac;
    t->mcs = mcs;
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
        e->backoff = (int32_t)(rnd(a) * (e->cw + 1));
        e->ready_us = now + a->c.slot_us;
        return;
    }
    t->bytes = bytes;
    a->nodes[n].awaiting = true;
    e->backoff = -1;
    /* Linux minstrel_ht flags every rate-table entry after the first with
     * RTS/CTS ("for fallback rates, to increase chances of getting through");
     * ath9k then sends an RTS before the A-MPDU at those rate series only. */
    if (a->c.rc_rts_on_fallback && a->c.nodes[n].role == WLAN_ROLE_AP && minstrel_chain_entry(fm->retries) > 0)
        start_rts(a, idx, now);
    else
        launch_data(a, idx, now);
}

/* The control response (TX_BA or TX_CTS) of the addressee of hist[req_idx], SIFS after that request (the A-MPDU
 * or the RTS), at the legacy rate its duration dur_us was computed for; none if the addressee is transmitting. */
static void start_response(struct wlan_air *a, int req_idx, enum tx_kind kind, uint32_t dur_us, double rate_mbps,
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
    struct tx *t = new_tx(a, &idx);
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
    put_on_air(a, t, idx);
}

/* The A-MPDU an RTS reserved the medium for, SIFS after the CTS. */
static void start_protected_data(struct wlan_air *a, int rts_idx, uint64_t now)
{
    int idx;
    struct tx *t = new_tx(a, &idx);
    struct tx *r = &a->hist[rts_idx];
    t->node = r->node;
    t->rx = r->rx;
    t->ac = r->ac;
    t->mcs = r->mcs;
    t->phy_mbps = r->phy_mbps;
    t->n = r->n;
    t->bytes = r->bytes;
    memcpy(t->seq, r->seq, r->n * sizeof t->seq[0]);
    memcpy(t->ids, r->ids, r->n * sizeof t->ids[0]);
    memcpy(t->enq_us, r->enq_us, r->n * sizeof t->enq_us[0]);
    memcpy(t->sub_bytes, r->sub_bytes, r->n * sizeof t->sub_bytes[0]);
    t->rts_protected = true;
    /* Only now: the RTS slot stays live, hence unreused, until copied. */
    r->data_start_us = NONE;
    launch_data(a, idx, now);
}

/* ---------------------------------------------------------------- reception */

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

static void release(struct wlan_air *a, int src, int dst, int ac)
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
static void decide_mpdus(struct wlan_air *a, int idx, uint64_t now)
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
        t->ok[i] = !t->lost_all && !rx_busy_during(a, idx, t->rx, s, e) && rnd(a) >= p;
        if (t->ok[i]) {
            a->ctr[t->node][t->rx].mpdus_ok++;
            txq_at(q, t->seq[i])->rx_ok = true;
        }
    }
    if (t->decided > before)
        release(a, t->node, t->rx, t->ac);
}

static void end_data(struct wlan_air *a, int idx)
{
    decide_mpdus(a, idx, a->hist[idx].end_us);
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

static bool ba_received(struct wlan_air *a, int data_idx)
{
    struct tx *d = &a->hist[data_idx];
    if (d->ba_tx < 0)
        return false;
    struct tx *b = &a->hist[d->ba_tx];
    if (b->preamble_lost || rx_transmitted_during(a, d->ba_tx))
        return false;
    double i_mw = interference_mw(a, d->ba_tx, b->rx, (double)b->start_us, (double)b->end_us, NULL);
    double sig = b->rss_dbm[b->rx];
    double m = radio_margin_db(&a->c, legacy_equivalent_mcs(a->c.ba_rate_mbps), sig,
                               radio_sinr_db(sig, a->c.noise_floor_dbm, i_mw));
    return rnd(a) >= radio_error_prob(&a->c, m, a->c.ba_bytes);
}

/* Whether node n decodes control frame idx (RTS or CTS) of len_bytes at
 * the RTS/CTS rate: it locked onto its preamble, did not transmit during it,
 * and the SINR over the frame gives it through the PER curve. */
static bool control_decoded(struct wlan_air *a, int idx, int n, uint32_t len_bytes)
{
    const struct tx *t = &a->hist[idx];
    if (!t->detected[n] || rx_busy_during(a, idx, n, (double)t->start_us, (double)t->end_us))
        return false;
    double i_mw = interference_mw(a, idx, n, (double)t->start_us, (double)t->end_us, NULL);
    double sig = t->rss_dbm[n];
    double m = radio_margin_db(&a->c, legacy_equivalent_mcs(a->c.rts_rate_mbps), sig,
                               radio_sinr_db(sig, a->c.noise_floor_dbm, i_mw));
    return rnd(a) >= radio_error_prob(&a->c, m, len_bytes);
}

/* Third parties that decode an RTS or CTS set their NAV from its Duration
 * field (§10.3.2.4) up to nav_us, the end of the exchange's BlockAck. */
static void nav_from_control(struct wlan_air *a, int idx, uint32_t len_bytes, uint64_t nav_us)
{
    const struct tx *t = &a->hist[idx];
    for (uint32_t n = 0; n < a->c.n_nodes; n++) {
        if ((int)n == t->node || (int)n == t->rx || !control_decoded(a, idx, (int)n, len_bytes))
            continue;
        if (nav_us > a->nodes[n].nav_until_us)
            a->nodes[n].nav_until_us = nav_us;
    }
}

/* End of an RTS: its addressee answers SIFS later if it decoded it and its
 * NAV is idle (§10.3.2.6); listeners defer to the whole exchange (RTS
 * Duration = 3 SIFS + CTS + data + BlockAck, §9.3.1.2). */
static void end_rts(struct wlan_air *a, int idx)
{
    struct tx *t = &a->hist[idx];
    uint64_t now = t->end_us;
    if (control_decoded(a, idx, t->rx, a->c.rts_bytes) && a->nodes[t->rx].nav_until_us <= now)
        t->cts_start_us = now + a->c.sifs_us;
    nav_from_control(a, idx, a->c.rts_bytes,
                     now + 3ull * a->c.sifs_us + a->cts_us + t->data_us + a->ba_us);
}

/* End of a CTS: its listeners, the hidden AP among them, defer to the data
 * and BlockAck that follow (CTS Duration, §9.3.1.3). */
static void end_cts(struct wlan_air *a, int idx)
{
    const struct tx *t = &a->hist[idx];
    const struct tx *r = &a->hist[t->data_tx];
    nav_from_control(a, idx, a->c.cts_bytes, t->end_us + 2ull * a->c.sifs_us + r->data_us + a->ba_us);
}

/* Settles an exchange at its originator: BlockAck'ed MPDUs are done, the
 * others retried or dropped at the retry limit; rate control and CW follow.
 * An RTS without CTS is an exchange in which nothing got through. */
static void finish_exchange(struct wlan_air *a, int idx, bool ba_ok)
{
    struct tx *t = &a->hist[idx];
    t->resp_done = true;
    struct txq *q = &a->q[t->node][t->rx][t->ac];
    struct wlan_link_counters *k = &a->ctr[t->node][t->rx];
    uint32_t acked = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        struct mpdu *m = txq_at(q, t->seq[i]);
        if (ba_ok && t->ok[i]) {
            txq_set_state(q, t->seq[i], MPDU_ACKED);
            acked++;
        } else if (++m->retries >= a->c.mpdu_retry_limit) {
            txq_set_state(q, t->seq[i], MPDU_DROPPED);
            k->mpdus_dropped++;
        } else {
            txq_set_state(q, t->seq[i], MPDU_RETX);
        }
    }
    if (!ba_ok && t->kind == TX_DATA)
        k->ba_lost++;
    minstrel_report(&a->rc[t->node][t->rx], t->mcs, t->n, acked, a->now_us);
    release(a, t->node, t->rx, t->ac);
    struct node *nd = &a->nodes[t->node];
    struct entity *e = &nd->e[t->ac];
    const struct wlan_edca *p = edca(a, t->node, t->ac);
    e->cw = ba_ok ? p->cw_min : (2 * e->cw + 1 > p->cw_max ? p->cw_max : 2 * e->cw + 1);
    e->backoff = (int32_t)(rnd(a) * (e->cw + 1));
    e->ready_us = 0;
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

static void complete_exchange(struct wlan_air *a, int idx)
{
    finish_exchange(a, idx, ba_received(a, idx));
}

/* When the CTS would have ended: the A-MPDU follows SIFS later, or the
 * attempt failed (CTSTimeout, §10.3.2.6). */
static void complete_rts(struct wlan_air *a, int idx)
{
    struct tx *t = &a->hist[idx];
    if (t->cts_tx >= 0 && control_decoded(a, t->cts_tx, t->node, a->c.cts_bytes)) {
        t->resp_done = true;
        t->data_start_us = a->now_us + a->c.sifs_us;
        return;
    }
    a->ctr[t->node][t->rx].rts_failed++;
    finish_exchange(a, idx, false);
}

/* ---------------------------------------------------------------- event loop */

uint64_t wlan_air_next_event_us(const wlan_air_t *a)
{
    uint64_t next = NONE;
#define CONSIDER(x) do { uint64_t _v = (x); if (_v < next) next = _v; } while (0)
    for (int k = 0; k < a->n_live; k++) {
        const struct tx *t = &a->hist[a->live[k]];
        if (!t->ended)
            CONSIDER(t->end_us);
        if (t->kind == TX_DATA && !t->ended && t->decided < t->n)
            CONSIDER(t->mpdu_end_us[t->decided]);
        if (t->kind == TX_DATA && t->ended && t->ba_start_us != NONE)
            CONSIDER(t->ba_start_us);
        if ((t->kind == TX_DATA || t->kind == TX_RTS) && !t->resp_done)
            CONSIDER(t->resp_us);
        if (t->kind == TX_RTS && t->cts_start_us != NONE)
            CONSIDER(t->cts_start_us);
        if (t->kind == TX_RTS && t->data_start_us != NONE)
            CONSIDER(t->data_start_us);
    }
    for (uint32_t n = 0; n < a->c.n_nodes; n++) {
        if (a->nodes[n].nav_until_us > a->now_us)
            CONSIDER(a->nodes[n].nav_until_us);
        for (int ac = 0; ac < WLAN_AC_COUNT; ac++)
            CONSIDER(entity_expiry(a, (int)n, ac));
    }
#undef CONSIDER
    return next < a->now_us ? a->now_us : next;
}

static void prune_live(struct wlan_air *a)
{
    int n = 0;
    for (int k = 0; k < a->n_live; k++)
        if (is_live(&a->hist[a->live[k]]))
            a->live[n++] = a->live[k];
    a->n_live = n;
}

static void step(struct wlan_air *a, uint64_t t)
{
    a->now_us = t;
    /* Snapshot: the handlers below may add transmissions (BlockAcks). */
    int ids[TX_HISTORY], nl = a->n_live;
    memcpy(ids, a->live, (size_t)nl * sizeof ids[0]);
    for (int k = 0; k < nl; k++) {
        struct tx *x = &a->hist[ids[k]];
        if (x->kind == TX_DATA && !x->ended && x->decided < x->n && x->mpdu_end_us[x->decided] == t)
            decide_mpdus(a, ids[k], t);
    }
    for (int k = 0; k < nl; k++) {
        struct tx *x = &a->hist[ids[k]];
        if (!x->ended && x->end_us == t) {
            x->ended = true;
            a->nodes[x->node].transmitting = false;
            if (x->kind == TX_DATA)
                end_data(a, ids[k]);
            else if (x->kind == TX_RTS)
                end_rts(a, ids[k]);
            else if (x->kind == TX_CTS)
                end_cts(a, ids[k]);
        }
    }
    for (int k = 0; k < nl; k++) {
        struct tx *x = &a->hist[ids[k]];
        if (x->kind == TX_DATA && !x->resp_done && x->resp_us == t)
            complete_exchange(a, ids[k]);
        else if (x->kind == TX_RTS && !x->resp_done && x->resp_us == t)
            complete_rts(a, ids[k]);
    }
    /* Drop finished transmissions before any new one can reuse their slot. */
    prune_live(a);
    for (int k = 0; k < nl; k++) {
        struct tx *x = &a->hist[ids[k]];
        if (x->kind == TX_DATA && x->ended && x->ba_start_us == t)
            start_response(a, ids[k], TX_BA, a->ba_us, a->c.ba_rate_mbps, t);
        else if (x->kind == TX_RTS && x->cts_start_us == t)
            start_response(a, ids[k], TX_CTS, a->cts_us, a->c.rts_rate_mbps, t);
        else if (x->kind == TX_RTS && x->data_start_us == t)
            start_protected_data(a, ids[k], t);
    }
    update_busy(a, t);
    /* Everyone whose backoff ends now transmits now; internal collisions
     * inside a node go to the higher AC (§10.22.2.3). */
    int starters[WLAN_MAX_NODES][2], ns = 0;
    for (uint32_t n = 0; n < a->c.n_nodes; n++)
        for (int ac = WLAN_AC_COUNT - 1; ac >= 0; ac--)
            if (entity_expiry(a, (int)n, ac) == t) {
                starters[ns][0] = (int)n;
                starters[ns][1] = ac;
                ns++;
                break;
            }
    for (int s = 0; s < ns; s++)
        start_data(a, starters[s][0], starters[s][1], t);
    if (ns)
        update_busy(a, t);
}

void wlan_air_advance(wlan_air_t *a, uint64_t now_us, const struct wlan_air_callbacks *cb)
{
    a->cb = cb;
    for (;;) {
        uint64_t t = wlan_air_next_event_us(a);
        if (t == NONE || t > now_us)
            break;
        step(a, t);
    }
    if (now_us > a->now_us)
        a->now_us = now_us;
    a->cb = NULL;
}

/* ---------------------------------------------------------------- API */

wlan_air_t *wlan_air_create(const struct wlan_air_config *cfg, uint64_t seed)
{
    wlan_air_t *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->c = *cfg;
    /* splitmix64 of the seed: well-mixed state even for small seeds. */
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    a->rng = (z ^ (z >> 31)) | 1;
    a->ba_us = airtime_legacy_us(cfg->ba_rate_mbps, cfg->ba_bytes);
    a->rts_us = airtime_legacy_us(cfg->rts_rate_mbps, cfg->rts_bytes);
    a->cts_us = airtime_legacy_us(cfg->rts_rate_mbps, cfg->cts_bytes);
    for (uint32_t n = 0; n < cfg->n_nodes; n++) {
        a->nodes[n].lock_tx = -1;
        for (int ac = 0; ac < WLAN_AC_COUNT; ac++) {
            a->nodes[n].e[ac].backoff = -1;
            a->nodes[n].e[ac].cw = edca(a, (int)n, ac)->cw_min;
        }
        for (uint32_t d = 0; d < cfg->n_nodes; d++) {
            minstrel_init(&a->rc[n][d], cfg, 0);
            for (int ac = 0; ac < WLAN_AC_COUNT; ac++)
                if (txq_init(&a->q[n][d][ac], cfg->queue_limit_pkts + cfg->ba_window) != 0) {
                    wlan_air_destroy(a);
                    return NULL;
                }
        }
    }
    return a;
}

void wlan_air_destroy(wlan_air_t *a)
{
    if (!a)
        return;
    for (int n = 0; n < WLAN_MAX_NODES; n++)
        for (int d = 0; d < WLAN_MAX_NODES; d++)
            for (int ac = 0; ac < WLAN_AC_COUNT; ac++)
                txq_free(&a->q[n][d][ac]);
    free(a);
}

int wlan_air_node_index(const wlan_air_t *a, const char *name)
{
    for (uint32_t i = 0; i < a->c.n_nodes; i++)
        if (strcmp(a->c.nodes[i].name, name) == 0)
            return (int)i;
    return -1;
}

const struct wlan_air_config *wlan_air_config(const wlan_air_t *a) { return &a->c; }

int wlan_air_shift_link_rss(wlan_air_t *a, int n1, int n2, double delta_db)
{
    if (n1 < 0 || n2 < 0 || (uint32_t)n1 >= a->c.n_nodes || (uint32_t)n2 >= a->c.n_nodes || n1 == n2)
        return -1;
    double x = a->c.rss_dbm[n1][n2] + delta_db, y = a->c.rss_dbm[n2][n1] + delta_db;
    if (!(x >= -150.0 && x <= 0.0 && y >= -150.0 && y <= 0.0))
        return -1;
    a->c.rss_dbm[n1][n2] = x;
    a->c.rss_dbm[n2][n1] = y;
    return 0;
}

static bool linked(const struct wlan_air_config *c, int s, int d)
{
    return (c->nodes[s].role == WLAN_ROLE_STA && c->nodes[s].ap == d) ||
           (c->nodes[d].role == WLAN_ROLE_STA && c->nodes[d].ap == s);
}

int wlan_air_enqueue(wlan_air_t *a, const struct wlan_frame *f, uint64_t now_us)
{
    if (f->src >= a->c.n_nodes || f->dst >= a->c.n_nodes || f->ac >= WLAN_AC_COUNT || !linked(&a->c, f->src, f->dst))
        return -1;
    if (now_us < a->now_us)
        now_us = a->now_us;
    struct txq *q = &a->q[f->src][f->dst][f->ac];
    if (q->count >= a->c.queue_limit_pkts) {
        a->ctr[f->src][f->dst].queue_drops++;
        return -1;
    }
    struct node *nd = &a->nodes[f->src];
    struct entity *e = &nd->e[f->ac];
    bool was_empty = node_pending(a, f->src, f->ac) == 0;
    txq_push(q, f->id, f->len_bytes, now_us);
    if (was_empty) {
        e->ready_us = now_us;
        if (e->backoff < 0) {
            /* Immediate access if the medium has been idle for AIFS, else a
             * fresh backoff (§10.22.2.2). */
            bool idle_aifs = !nd->busy && nd->idle_since_us + aifs_us(a, f->src, f->ac) <= now_us;
            e->backoff = idle_aifs ? 0 : (int32_t)(rnd(a) * (e->cw + 1));
        }
    }
    return 0;
}

void wlan_air_link_counters(const wlan_air_t *a, int tx, int rx, struct wlan_link_counters *out)
{
    *out = a->ctr[tx][rx];
}

uint32_t wlan_air_queued(const wlan_air_t *a, int node, int dst)
{
    uint32_t n = 0;
    for (int ac = 0; ac < WLAN_AC_COUNT; ac++)
        n += a->q[node][dst][ac].count;
    return n;
}
