/*
 * minstrel.h — Minstrel-HT-like rate control for one link.
 *
 * Like Linux minstrel_ht (net/mac80211/rc80211_minstrel_ht.c): every update
 * interval the per-MCS MPDU delivery ratio of the interval is folded into an
 * EWMA probability; the expected throughput of an MCS is
 * rate * min(prob, prob_cap), zero below 10 %. The link sends at the best
 * throughput MCS (max_tp), falls back to the second best (max_tp2) and then
 * to the most reliable (max_prob) for retransmission attempts, and sends a
 * fraction of PPDUs as single-MPDU probes at another MCS (sampling): rates
 * that could beat max_tp, and now and then a slower one, so that the
 * fallback entries have statistics to fall back on when the link degrades.
 */
#ifndef MINSTREL_H
#define MINSTREL_H

#include <stdbool.h>
#include <stdint.h>

#include "wlan_air.h"

struct minstrel_rate {
    double rate_mbps;            /* nominal PHY rate (Mbit/s) */
    double prob;                 /* EWMA MPDU success probability (0..1) */
    bool has_stats;              /* prob has been updated at least once */
    uint32_t attempts;           /* MPDU attempts in this interval */
    uint32_t success;            /* MPDUs delivered in this interval */
    uint64_t total_attempts;     /* MPDU attempts since start */
    uint32_t sample_skipped;     /* statistics updates since the rate was last attempted */
};

struct minstrel {
    uint32_t n_mcs;              /* rates in the set */
    struct minstrel_rate r[WLAN_MAX_MCS];
    uint32_t max_tp;             /* best expected throughput MCS */
    uint32_t max_tp2;            /* second best throughput MCS */
    uint32_t max_prob;           /* highest probability MCS */
    uint64_t next_update_us;     /* virtual time of the next statistics update (µs) */
    uint32_t update_interval_us; /* statistics period (µs) */
    double ewma_weight;          /* weight of the old probability (0..1) */
    double prob_cap;             /* probability cap in throughput estimates (0..1) */
    double sample_ratio;         /* fraction of PPDUs used as probes (0..1) */
};

#define MINSTREL_SLOW_SAMPLE_SKIPPED 20  /* minstrel_ht: mrs->sample_skipped < 20 keeps a slower rate unsampled */

void minstrel_init(struct minstrel *m, const struct wlan_air_config *c, uint64_t now_us);
/* Entry of the retry chain (rate table) an attempt uses: 0 for attempts
 * 0..1 (max_tp), 1 for 2..3 (max_tp2), 2 after (max_prob); the model counts
 * attempts by the tries of the A-MPDU's first MPDU. Entries after the first
 * are minstrel_ht's fallback rates, which it sends with RTS/CTS. */
uint32_t minstrel_chain_entry(uint32_t attempt);
/* MCS for an attempt: the rate of its chain entry. */
uint32_t minstrel_rate_for_attempt(const struct minstrel *m, uint32_t attempt);
/* A probe MCS to sample given a uniform draw u in [0,1); -1 if none worth sampling. Candidates are the
 * rates whose nominal rate is above max_tp's expected throughput, and, as minstrel_ht's
 * minstrel_get_sample_rate lets "lower rates get sampled only occasionally", a slower rate once it has
 * gone MINSTREL_SLOW_SAMPLE_SKIPPED updates without attempts, unless it is over 3 times slower than
 * max_prob (minstrel_ht does not sample those at all). */
int minstrel_sample_rate(const struct minstrel *m, double u);
void minstrel_report(struct minstrel *m, uint32_t mcs, uint32_t attempts, uint32_t success, uint64_t now_us);
/* Folds interval statistics into the EWMA when the interval has elapsed. */
void minstrel_update(struct minstrel *m, uint64_t now_us);
double minstrel_expected_tp(const struct minstrel *m, uint32_t mcs);

#endif
