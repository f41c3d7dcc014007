/* Histogram of event lateness; see slice_lateness.h. */
#include "slice_lateness.h"

#include <math.h>

void slice_lateness_record(struct slice_lateness *h, uint64_t late_ns)
{
    uint64_t bin = late_ns / 1000u;
    if (bin >= SLICE_LATENESS_BINS)
        bin = SLICE_LATENESS_BINS - 1;
    h->bins[bin]++;
    h->count++;
    if (late_ns > h->max_ns)
        h->max_ns = late_ns;
}

double slice_lateness_quantile_us(const struct slice_lateness *h, double q)
{
    if (h->count == 0)
        return 0.0;
    /* Nearest rank: the ceil(q n)-th smallest event, so that a fraction q of them is at most the value returned
     * (floor(q n) + 1 took the next one when q n is whole: the largest of 100 events as their p99). The 1e-9 keeps
     * a product such as 0.99 * 100 that comes out a hair above 99 from taking the next rank. */
    double rank = ceil(q * (double)h->count - 1e-9);
    uint64_t want = rank < 1.0 ? 0 : (uint64_t)rank - 1;
    if (want >= h->count)
        want = h->count - 1;
    if (want == h->count - 1)
        return (double)h->max_ns / 1000.0;   /* the largest event is known exactly */
    uint64_t seen = 0;
    for (unsigned i = 0; i < SLICE_LATENESS_BINS - 1; i++) {
        seen += h->bins[i];
        if (seen > want)
            return (double)i + 0.5;   /* bin centre */
    }
    /* In the overflow bin, below its largest event: at least its lower edge is all that is known. A 50 ms event
     * reported as 10000.5 µs read as a measured figure. */
    return (double)(SLICE_LATENESS_BINS - 1);
}

uint64_t slice_lateness_overflow_events(const struct slice_lateness *h)
{
    return h->bins[SLICE_LATENESS_BINS - 1];
}
