/*
 * delivery_timing.c — delivery timing error histogram (delivery_timing.h).
 */
#include "delivery_timing.h"

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
    uint64_t rank = (uint64_t)(q * (double)(t->n - 1)) + 1, seen = 0;
    for (uint64_t i = 0; i <= DT_MAX_US; i++) {
        seen += t->bucket[i];
        if (seen >= rank)
            return i;
    }
    return DT_MAX_US;
}
