/*
 * medium.c — what each node of the air model senses (802.11-2016 §10.22.2).
 *
 * Physical carrier sense from the received power of every frame on the air
 * (the CS threshold for a frame whose preamble the node detected, energy
 * detect otherwise), virtual carrier sense from the NAV, backoff counters
 * frozen while the medium is busy, the instant a backoff entity would
 * transmit, and, when a frame goes on the air, the power it reaches every
 * node with (RSS matrix plus fading) and which receivers lock onto its
 * preamble.
 */
#include <math.h>

#include "air_state.h"
#include "radio.h"

/* A standard normal draw (Box-Muller): the per-frame log-normal fading, in dB. */
static double gauss(struct wlan_air *a)
{
    double u1 = air_rnd(a), u2 = air_rnd(a);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

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

/* Senses the medium again at every node at now: a node whose medium turns busy freezes its backoff
 * (§10.22.2.4), one whose medium turns idle counts AIFS from now. */
void air_update_busy(struct wlan_air *a, uint64_t now)
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

/* When backoff entity (n, ac) transmits if the medium stays idle: AIFS and its remaining slots after the
 * medium went idle, not before a frame reached it; NONE with nothing to send, no backoff drawn or a busy medium. */
uint64_t air_entity_expiry(const struct wlan_air *a, int n, int ac)
{
    const struct node *nd = &a->nodes[n];
    const struct entity *e = &nd->e[ac];
    if (nd->busy || e->backoff < 0 || node_pending(a, n, ac) == 0 || a->no_new_tx)
        return NONE;
    uint64_t t = nd->idle_since_us + aifs_us(a, n, ac) + (uint64_t)e->backoff * a->c.slot_us;
    return t > e->ready_us ? t : e->ready_us;
}

/* Draws the received power at every node and applies preamble locking. */
void air_put_on_air(struct wlan_air *a, struct tx *t, int idx)
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
                uint64_t nav = t->end_us + a->c.sifs_us + t->ba_us;
                if (nav > nd->nav_until_us)
                    nd->nav_until_us = nav;
            }
        }
    }
}
