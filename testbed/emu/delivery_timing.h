/*
 * delivery_timing.h — histogram of delivery timing error: how late (µs) a
 * frame leaves the emulator after the virtual time the air model gave it.
 * 1 µs buckets up to DT_MAX_US, one top bucket for DT_MAX_US or more, and
 * the exact largest error. Adding a sample is a compare and an increment
 * (the emulator's hot path); the quantiles are read once, at exit.
 */
#ifndef DELIVERY_TIMING_H
#define DELIVERY_TIMING_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define DT_MAX_US 20000

struct delivery_timing {
    uint32_t bucket[DT_MAX_US + 1]; /* [i]: frames i µs late; last = DT_MAX_US or more */
    uint64_t n;                  /* frames recorded */
    uint64_t max_us;             /* largest error (µs) */
};

void delivery_timing_add(struct delivery_timing *t, uint64_t late_us);
/* Nearest-rank q-quantile (0..1) in µs, the ceil(q n)-th smallest error (as the dataplane's percentiles); 0 when
 * empty. In the top bucket only the largest error is known (max_us): a quantile that lands on another one there
 * is returned as DT_MAX_US with *past_top set (it is DT_MAX_US or more); otherwise *past_top is false. */
uint64_t delivery_timing_quantile(const struct delivery_timing *t, double q, bool *past_top);
/* {"n","p50","p99","max"} for the stats file; a quantile past the top is the string ">=20000". */
json_t *delivery_timing_json(const struct delivery_timing *t);

#endif
