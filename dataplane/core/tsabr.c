/* tsabr.c — TS-ABR-QD, 004 §5 eq. (1); see tsabr.h for the model and the production cases. */
#include "tsabr.h"

#include <math.h>

static double clampd(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

void adw_tsabr_init(struct adw_tsabr *t, const struct adw_tsabr_policy *p)
{
    t->r = p->r_init_pkts;
    t->rate_ewma = 0;
    t->outlier_side = 0;
    t->outlier_run = 0;
    t->rate_samples = 0;
}

uint32_t adw_tsabr_batch(const struct adw_tsabr *t, const struct adw_tsabr_policy *p)
{
    double r = clampd(floor(t->r + 0.5), p->r_min_pkts, p->r_max_pkts);
    return (uint32_t)r;
}

void adw_tsabr_rebound(struct adw_tsabr *t, const struct adw_tsabr_policy *p)
{
    t->r = clampd(t->r, p->r_min_pkts, p->r_max_pkts);
}

/* Tracks the drain rate of full, uncapped batches; true when a run of outliers calls for a reset. */
static bool rate_changed(struct adw_tsabr *t, const struct adw_tsabr_policy *p, double rate)
{
    if (t->rate_ewma <= 0) {
        t->rate_ewma = rate;
        t->rate_samples = 1;
        return false;
    }
    double dev = (rate - t->rate_ewma) / t->rate_ewma;
    if (fabs(dev) > p->rate_change_reset && t->rate_samples >= ADW_TSABR_RESET_WARMUP) {
        int8_t side = dev > 0 ? 1 : -1;
        t->outlier_run = side == t->outlier_side ? (uint8_t)(t->outlier_run + 1) : 1;
        t->outlier_side = side;
        if (t->outlier_run >= ADW_TSABR_RESET_RUN) {
            t->rate_ewma = rate;
            t->rate_samples = 1;
            t->outlier_run = 0;
            t->outlier_side = 0;
            return true;
        }
        return false; /* an isolated outlier does not move the average */
    }
    t->outlier_run = 0;
    t->outlier_side = 0;
    t->rate_ewma += ADW_TSABR_RATE_EWMA * (rate - t->rate_ewma);
    if (t->rate_samples < UINT16_MAX)
        t->rate_samples++;
    return false;
}

enum adw_tsabr_outcome adw_tsabr_update(struct adw_tsabr *t, const struct adw_tsabr_policy *p, uint64_t s_ns,
                                        uint64_t v_ns, uint32_t released, bool underfilled, bool capped)
{
    double s_ms = (double)s_ns / 1e6, v_ms = (double)v_ns / 1e6;
    double cap_ms = p->v_cap_factor * s_ms;
    if (v_ms > cap_ms)
        v_ms = cap_ms;
    double rate_before = t->rate_ewma;
    if (!underfilled && !capped && released > 0 && v_ms > 0 && rate_changed(t, p, released / v_ms)) {
        /* The restart at r_init is for r to follow the new rate faster than eq. (1) would; it applies only when
         * r_init lies on the side of r the new rate calls for. A faster link with r above r_init (TCP's ramp with
         * refills: 75 -> 40 packets in downlink-20ms) or a slower one with r below it (uplink ACK batches of
         * 20-30) would be moved away from its new equilibrium: eq. (1) takes the sample instead. */
        bool faster = released / v_ms > rate_before;
        if (faster ? t->r < p->r_init_pkts : t->r > p->r_init_pkts) {
            t->r = p->r_init_pkts;
            return ADW_TSABR_RESET;
        }
    }
    /* Eq. (1) with (x)^+ = max(x, 0), then the production bounds. */
    double next = fmax(0.0, t->r + p->a_pkts_per_ms * (s_ms - v_ms));
    if (underfilled && next > t->r)
        next = t->r;
    t->r = clampd(next, p->r_min_pkts, p->r_max_pkts);
    return ADW_TSABR_UPDATED;
}
