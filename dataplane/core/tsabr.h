/*
 * tsabr.h — TS-ABR-QD batch-size adaptation of one AP-STA pair (004 §5).
 *
 * At each of its slice starts the pair releases a batch of r(k) MTU packets;
 * the drain time V(r(k)) inferred from returning ACKs then updates
 *
 *     r(k+1) = max(0, r(k) + a (S - V(r(k))))            (004 §5, eq. (1))
 *
 * a Robbins-Monro iteration towards E[V(r)] = S, i.e. r -> beta S for a link
 * serving beta packets per ms; stable for 0 < a < 2 beta, with stationary
 * variance a sigma^2 beta^2 S / (2 - a/beta) when Var V(r) = sigma^2 r
 * (near r = beta S, Var r' = (1 - a/beta)^2 Var r + a^2 sigma^2 beta S; the
 * paper prints sigma^2 beta^2 S / (a/beta - 1), negative for the a < beta it
 * uses, a = 1: a misprint; test_tsabr.c checks this one by simulation).
 * Units: r in MTU packets (kept real-valued between frames), a in packets per
 * ms, S and V in ns here (converted to ms in the update).
 *
 * The production cases the paper is silent on (SPEC §3.2):
 *  - under-filled batch (the queue held fewer than r): the sample says nothing
 *    about a larger r, so r may shrink from it but never grow;
 *  - a drain that never completes (lost ACKs): the caller closes it at
 *    v_cap_factor * S and passes capped = true (V is then min(V, cap));
 *  - a drain that overruns the slice: V > S simply shrinks r (counted);
 *  - bounds: r stays in [r_min, r_max];
 *  - a sharp rate change: the drain rate released/V of full batches is
 *    tracked by an EWMA; once it holds ADW_TSABR_RESET_WARMUP samples, three
 *    consecutive samples off by more than rate_change_reset (relative) on
 *    the same side restart the EWMA at the new rate and reset r to r_init
 *    if that moves r the way the rate moved (r_init above r for a faster
 *    link, below it for a slower one); otherwise eq. (1) takes the sample.
 */
#ifndef ADW_CORE_TSABR_H
#define ADW_CORE_TSABR_H

#include <stdbool.h>
#include <stdint.h>

#include "adwiser/config.h"

#define ADW_TSABR_RATE_EWMA 0.2   /* weight of a new drain-rate sample */
#define ADW_TSABR_RESET_RUN 3     /* consecutive outliers that trigger a reset */
#define ADW_TSABR_RESET_WARMUP 8  /* rate samples before a reset may happen (r is still ramping up) */

struct adw_tsabr {
    double r;                    /* current batch size, MTU packets (real-valued) */
    double rate_ewma;            /* EWMA drain rate of full batches, packets per ms; 0 = none yet */
    int8_t outlier_side;         /* +1 / -1: side of the current run of outliers, 0 none */
    uint8_t outlier_run;         /* length of that run */
    uint16_t rate_samples;       /* samples in rate_ewma (saturates) */
};

enum adw_tsabr_outcome {
    ADW_TSABR_UPDATED = 0,
    ADW_TSABR_RESET = 1          /* r was reset to r_init on a sharp rate change */
};

void adw_tsabr_init(struct adw_tsabr *t, const struct adw_tsabr_policy *p);
/* Batch to release now: round(r) clamped to [r_min, r_max], packets. */
uint32_t adw_tsabr_batch(const struct adw_tsabr *t, const struct adw_tsabr_policy *p);
/* Clamps r into new bounds after a policy change. */
void adw_tsabr_rebound(struct adw_tsabr *t, const struct adw_tsabr_policy *p);
/* One update from a finished drain: S and V in ns, released = packets of the batch, underfilled = the queue held
 * fewer than the batch asked for, capped = V was closed at the cap (no rate sample is taken from it). */
enum adw_tsabr_outcome adw_tsabr_update(struct adw_tsabr *t, const struct adw_tsabr_policy *p, uint64_t s_ns,
                                        uint64_t v_ns, uint32_t released, bool underfilled, bool capped);

#endif
