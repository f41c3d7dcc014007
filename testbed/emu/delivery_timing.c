/*
 * delivery_timing.c — delivery timing error histogram (delivery_timing.h).
 */
#include "delivery_timing.h"

#include <math.h>

void delivery_timing_add(struct delivery_timing *t, uint64_t late_us)
{
    t->bucket[late_us < DT_MAX_US ? late_us : DT_MAX_US]++;
    t->n++;
    if (late_us > t->max_us)
        t->max_us = late_us;
}

uint64_t delivery_timing_quantile(const struct delivery_timing *t, double q)
{
    if (t->n == 0)
        return 0;
    /* The 1e-9 keeps a product such as 0.99 * 100 that comes out a hair above 99 from taking the next rank. */
    double rank = ceil(q * (double)t->n - 1e-9);
    uint64_t want = rank < 1.0 ? 0 : (uint64_t)rank - 1;
    if (want >= t->n)
        want = t->n - 1;
    uint64_t seen = 0;
    for (uint64_t i = 0; i <= DT_MAX_US; i++) {
        seen += t->bucket[i];
        if (seen > want)
            return i;
    }
    return DT_MAX_US;
}
