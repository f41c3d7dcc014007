/*
 * delivery_timing.h — histogram of delivery timing error: how late (µs) a
 * frame leaves the emulator after the virtual time the air model gave it.
 * 1 µs buckets up to DT_MAX_US, one overflow bucket.
 */
#ifndef DELIVERY_TIMING_H
#define DELIVERY_TIMING_H

#include <stdint.h>

#define DT_MAX_US 20000

struct delivery_timing {
    uint32_t bucket[DT_MAX_US + 1]; /* [i]: frames i µs late; last = DT_MAX_US or more */
    uint64_t n;                  /* frames recorded */
    uint64_t max_us;             /* largest error (µs) */
};

void delivery_timing_add(struct delivery_timing *t, uint64_t late_us);
/* Nearest-rank q-quantile (0..1) in µs, the ceil(q n)-th smallest error (as the dataplane's percentiles); 0 when
 * empty. */
uint64_t delivery_timing_quantile(const struct delivery_timing *t, double q);

#endif
