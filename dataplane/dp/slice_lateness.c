/* Histogram of event lateness; see slice_lateness.h. */
#include "slice_lateness.h"

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
    uint64_t want = (uint64_t)(q * (double)h->count);
    if (want >= h->count)
        want = h->count - 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < SLICE_LATENESS_BINS; i++) {
        seen += h->bins[i];
        if (seen > want)
            return (double)i + 0.5;   /* bin centre */
    }
    return (double)(SLICE_LATENESS_BINS - 1);
}
