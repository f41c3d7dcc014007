/* Histogram of how late frames leave relative to their due time, in 1 µs
 * bins up to LATENESS_HIST_BINS µs (later ones land in the last bin), so the
 * emulator can report its own timing error (p50/p99/max). */
#ifndef LATENESS_HIST_H
#define LATENESS_HIST_H

#include <stdint.h>

#define LATENESS_HIST_BINS 20000u

struct lateness_hist {
    uint64_t bins[LATENESS_HIST_BINS]; /* frames per 1 µs of lateness, count */
    uint64_t total;                    /* frames recorded, count */
    uint64_t max_ns;                   /* largest lateness seen, ns */
};

void lateness_hist_add(struct lateness_hist *h, uint64_t late_ns);
/* Lateness in µs of the nearest-rank q-quantile (q in 0..1): the ceil(q*n)-th
 * smallest of the n frames; the largest is its exact value, any other in the
 * last bin LATENESS_HIST_BINS - 1 (= at least that). */
uint64_t lateness_hist_quantile_us(const struct lateness_hist *h, double q);

#endif
