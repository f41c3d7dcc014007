/*
 * air_sim.c — the event loop and the API of the air model (see wlan_air.h).
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
 *
 * The parts of one step live in their own files (air_state.h lists them);
 * this file orders them within an instant and runs instants in time order.
 */
#include <stdlib.h>
#include <string.h>

#include "air_state.h"
#include "airtime.h"

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
            CONSIDER(air_entity_expiry(a, (int)n, ac));
    }
#undef CONSIDER
    return next < a->now_us ? a->now_us : next;
}

static void prune_live(struct wlan_air *a)
{
    int n = 0;
    for (int k = 0; k < a->n_live; k++)
        if (air_tx_is_live(&a->hist[a->live[k]]))
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
            air_decide_mpdus(a, ids[k], t);
    }
    for (int k = 0; k < nl; k++) {
        struct tx *x = &a->hist[ids[k]];
        if (!x->ended && x->end_us == t) {
            x->ended = true;
            a->nodes[x->node].transmitting = false;
            if (x->kind == TX_DATA)
                air_end_data(a, ids[k]);
            else if (x->kind == TX_RTS)
                air_end_rts(a, ids[k]);
            else if (x->kind == TX_CTS)
                air_end_cts(a, ids[k]);
        }
    }
    for (int k = 0; k < nl; k++) {
        struct tx *x = &a->hist[ids[k]];
        if (x->kind == TX_DATA && !x->resp_done && x->resp_us == t)
            air_complete_exchange(a, ids[k]);
        else if (x->kind == TX_RTS && !x->resp_done && x->resp_us == t)
            air_complete_rts(a, ids[k]);
    }
    /* Drop finished transmissions before any new one can reuse their slot. */
    prune_live(a);
    for (int k = 0; k < nl; k++) {
        struct tx *x = &a->hist[ids[k]];
        if (x->kind == TX_DATA && x->ended && x->ba_start_us == t)
            air_start_response(a, ids[k], TX_BA, x->ba_us, x->ba_rate_mbps, t);
        else if (x->kind == TX_RTS && x->cts_start_us == t)
            air_start_response(a, ids[k], TX_CTS, a->cts_us, a->c.rts_rate_mbps, t);
        else if (x->kind == TX_RTS && x->data_start_us == t)
            air_start_protected_data(a, ids[k], t);
    }
    air_update_busy(a, t);
    /* Everyone whose backoff ends now transmits now; internal collisions
     * inside a node go to the higher AC (§10.22.2.3). */
    int starters[WLAN_MAX_NODES][2], ns = 0, losers[WLAN_MAX_NODES * WLAN_AC_COUNT][2], nlose = 0;
    for (uint32_t n = 0; n < a->c.n_nodes; n++) {
        bool won = false;
        for (int ac = WLAN_AC_COUNT - 1; ac >= 0; ac--) {
            if (air_entity_expiry(a, (int)n, ac) != t)
                continue;
            int (*slot)[2] = won ? &losers[nlose++] : &starters[ns++];
            (*slot)[0] = (int)n;
            (*slot)[1] = ac;
            won = true;
        }
    }
    for (int s = 0; s < ns; s++)
        air_start_data(a, starters[s][0], starters[s][1], t);
    if (ns)
        air_update_busy(a, t);
    /* The lower-priority AC of an internal collision backs off as after an
     * external one (§10.22.2.3): CW doubled up to CWmax, a new backoff. It is
     * drawn after the freeze above, which counted the old backoff's slots. */
    for (int l = 0; l < nlose; l++)
        air_new_backoff(a, losers[l][0], losers[l][1], false);
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

void wlan_air_finish_exchanges(wlan_air_t *a) { a->no_new_tx = true; }

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
            e->backoff = idle_aifs ? 0 : (int32_t)(air_rnd(a) * (e->cw + 1));
        } else if (e->backoff == 0 && nd->busy) {
            /* A post-backoff that ran out does not give a frame arriving on a busy medium the slot right after
             * AIFS: the backoff procedure is invoked (§10.22.2.2 a). The frozen counter is exact while busy. */
            e->backoff = (int32_t)(air_rnd(a) * (e->cw + 1));
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
