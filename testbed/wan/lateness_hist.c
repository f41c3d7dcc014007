/* Lateness histogram (see lateness_hist.h). */
#include "lateness_hist.h"

#include <math.h>

void lateness_hist_add(struct lateness_hist *h, uint64_t late_ns)
{
    uint64_t us = late_ns / 1000u;
    h->bins[us < LATENESS_HIST_BINS ? us : LATENESS_HIST_BINS - 1]++;
    h->total++;
    if (late_ns > h->max_ns)
        h->max_ns = late_ns;
}

uint64_t lateness_hist_quantile_us(const struct lateness_hist *h, double q)
{
    if (h->total == 0)
        return 0;
    /* Nearest rank: the ceil(q*n)-th smallest (at least the first), 0-based here. */
    double r = ceil(q * (double)h->total);
    uint64_t rank = r <= 1.0 ? 0 : (uint64_t)r - 1u;
    if (rank >= h->total)
        rank = h->total - 1;
    if (rank == h->total - 1)
        return h->max_ns / 1000u;   /* the largest frame is known exactly */
    uint64_t seen = 0;
    for (uint32_t i = 0; i < LATENESS_HIST_BINS - 1; i++) {
        seen += h->bins[i];
        if (seen > rank)
            return i;
    }
    /* In the last bin, below its largest frame: only "at least its lower edge" is known (a 50 ms departure read
     * as 19999 µs looked measured), as adwiser-dp's and wlan-emu's timing histograms report it. */
    return LATENESS_HIST_BINS - 1;
}
