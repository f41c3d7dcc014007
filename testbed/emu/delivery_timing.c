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

uint64_t delivery_timing_quantile(const struct delivery_timing *t, double q, bool *past_top)
{
    *past_top = false;
    if (t->n == 0)
        return 0;
    /* The 1e-9 keeps a product such as 0.99 * 100 that comes out a hair above 99 from taking the next rank. */
    double rank = ceil(q * (double)t->n - 1e-9);
    uint64_t want = rank < 1.0 ? 0 : (uint64_t)rank - 1;
    if (want >= t->n)
        want = t->n - 1;
    uint64_t seen = 0;
    for (uint64_t i = 0; i < DT_MAX_US; i++) {
        seen += t->bucket[i];
        if (seen > want)
            return i;
    }
    /* The top bucket holds the largest errors, each DT_MAX_US or more; only the largest is known exactly. */
    if (want == t->n - 1 || t->max_us == DT_MAX_US)
        return t->max_us;
    *past_top = true;
    return DT_MAX_US;
}

static json_t *quantile_json(const struct delivery_timing *t, double q)
{
    bool past_top;
    uint64_t v = delivery_timing_quantile(t, q, &past_top);
    return past_top ? json_sprintf(">=%d", DT_MAX_US) : json_integer((json_int_t)v);
}

json_t *delivery_timing_json(const struct delivery_timing *t)
{
    return json_pack("{s:I,s:o,s:o,s:I}", "n", (json_int_t)t->n, "p50", quantile_json(t, 0.5), "p99",
                     quantile_json(t, 0.99), "max", (json_int_t)t->max_us);
}
