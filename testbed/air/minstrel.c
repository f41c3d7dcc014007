/*
 * minstrel.c — Minstrel-HT-like rate control (model in minstrel.h).
 */
#include "minstrel.h"

#include "airtime.h"

void minstrel_init(struct minstrel *m, const struct wlan_air_config *c, uint64_t now_us)
{
    *m = (struct minstrel){0};
    m->n_mcs = c->n_mcs;
    for (uint32_t i = 0; i < c->n_mcs; i++)
        m->r[i].rate_mbps = airtime_rate_mbps(c->phy, c->bandwidth_mhz, i, c->short_gi);
    m->max_tp = m->max_tp2 = m->max_prob = c->rc_initial_mcs;
    m->update_interval_us = c->rc_update_interval_us;
    m->next_update_us = now_us + c->rc_update_interval_us;
    m->ewma_weight = c->rc_ewma_weight;
    m->prob_cap = c->rc_prob_cap;
    m->sample_ratio = c->rc_sample_ratio;
}

double minstrel_expected_tp(const struct minstrel *m, uint32_t mcs)
{
    const struct minstrel_rate *r = &m->r[mcs];
    if (!r->has_stats || r->prob < 0.1)
        return 0.0;
    double p = r->prob > m->prob_cap ? m->prob_cap : r->prob;
    return r->rate_mbps * p;
}

uint32_t minstrel_chain_entry(uint32_t attempt)
{
    return attempt < 2 ? 0 : attempt < 4 ? 1 : 2;
}

uint32_t minstrel_rate_for_attempt(const struct minstrel *m, uint32_t attempt)
{
    switch (minstrel_chain_entry(attempt)) {
    case 0: return m->max_tp;
    case 1: return m->max_tp2;
    default: return m->max_prob;
    }
}

int minstrel_sample_rate(const struct minstrel *m, double u)
{
    if (u >= m->sample_ratio)
        return -1;
    /* Probe uniformly among the rates that could beat the current best
     * (nominal rate above max_tp's expected throughput) and the slower ones
     * left untried for MINSTREL_SLOW_SAMPLE_SKIPPED updates, down to a third
     * of max_prob's rate (minstrel_get_sample_rate: slower rates "only
     * occasionally", none 3 times slower than max_prob). */
    double best_tp = minstrel_expected_tp(m, m->max_tp);
    double slowest = m->r[m->max_prob].rate_mbps / 3.0;
    uint32_t cand[WLAN_MAX_MCS], n = 0;
    for (uint32_t i = 0; i < m->n_mcs; i++) {
        const struct minstrel_rate *r = &m->r[i];
        if (i == m->max_tp)
            continue;
        if (r->rate_mbps > best_tp ||
            (r->sample_skipped >= MINSTREL_SLOW_SAMPLE_SKIPPED && r->rate_mbps >= slowest))
            cand[n++] = i;
    }
    if (n == 0)
        return -1;
    uint32_t k = (uint32_t)(u / m->sample_ratio * n);
    return (int)cand[k < n ? k : n - 1];
}

void minstrel_report(struct minstrel *m, uint32_t mcs, uint32_t attempts, uint32_t success, uint64_t now_us)
{
    m->r[mcs].attempts += attempts;
    m->r[mcs].success += success;
    m->r[mcs].total_attempts += attempts;
    minstrel_update(m, now_us);
}

static uint32_t next_lower_rate(const struct minstrel *m, uint32_t mcs)
{
    uint32_t best = mcs;
    double best_rate = 0;
    for (uint32_t i = 0; i < m->n_mcs; i++)
        if (m->r[i].rate_mbps < m->r[mcs].rate_mbps && m->r[i].rate_mbps > best_rate) {
            best = i;
            best_rate = m->r[i].rate_mbps;
        }
    return best;
}

void minstrel_update(struct minstrel *m, uint64_t now_us)
{
    if (now_us < m->next_update_us)
        return;
    m->next_update_us = now_us + m->update_interval_us;
    for (uint32_t i = 0; i < m->n_mcs; i++) {
        struct minstrel_rate *r = &m->r[i];
        if (r->attempts == 0) {
            if (r->sample_skipped < UINT32_MAX)
                r->sample_skipped++;
            continue;
        }
        r->sample_skipped = 0;
        double p = (double)r->success / r->attempts;
        r->prob = r->has_stats ? m->ewma_weight * r->prob + (1.0 - m->ewma_weight) * p : p;
        r->has_stats = true;
        r->attempts = r->success = 0;
    }
    uint32_t tp1 = m->max_tp, tp2 = m->max_tp2, mp = m->max_prob;
    double t1 = -1, t2 = -1, pbest = -1;
    for (uint32_t i = 0; i < m->n_mcs; i++) {
        if (!m->r[i].has_stats)
            continue;
        double t = minstrel_expected_tp(m, i);
        if (t > t1) {
            tp2 = tp1; t2 = t1;
            tp1 = i; t1 = t;
        } else if (t > t2) {
            tp2 = i; t2 = t;
        }
        /* max_prob (minstrel_ht_set_best_prob_rate): above 75 % success the
         * faster rate wins, below it the more reliable one. */
        double p = m->r[i].prob;
        bool better = pbest < 0 ||
                      (p >= 0.75 && pbest >= 0.75 ? t > minstrel_expected_tp(m, mp) : p > pbest);
        if (better) {
            mp = i; pbest = p;
        }
    }
    if (t1 > 0) {
        m->max_tp = tp1;
        m->max_tp2 = t2 > 0 ? tp2 : tp1;
        m->max_prob = mp;
    } else if (pbest >= 0) {
        /* Nothing gets through: the whole rate table steps down to the next lower nominal rate. Keeping
         * max_prob on the best of the failing rates would hold every retransmission there, and with the
         * A-MPDU's first MPDU always a retransmission, neither sampling nor the lower max_tp would ever be
         * tried (minstrel_ht's tables fall to its lowest rates when no rate has throughput). */
        m->max_tp = m->max_tp2 = m->max_prob = next_lower_rate(m, m->max_tp);
    }
}
