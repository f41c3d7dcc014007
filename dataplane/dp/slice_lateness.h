/*
 * Slice-start timing error: how late the loop serviced a scheduler event
 * (a slice start is the main one) after the time adw_sched_next_event_ns
 * named for it.  A histogram with 1 µs bins up to 10 ms (one overflow bin),
 * so p50/p99 can be read without keeping samples.  Of the events in the
 * overflow bin only the largest is known exactly (max_ns): a quantile that
 * lands on it is that value, any other one there is only known to be at
 * least 10 ms and is given as 10000 µs, the bin's lower edge (the stats say
 * how many events the bin holds).
 */
#ifndef ADW_DP_SLICE_LATENESS_H
#define ADW_DP_SLICE_LATENESS_H

#include <stdint.h>

#define SLICE_LATENESS_BINS 10001u   /* bin i = [i, i+1) µs late; the last bin holds >= 10 ms */

struct slice_lateness {
    uint64_t bins[SLICE_LATENESS_BINS];  /* events per 1 µs bin of lateness */
    uint64_t count;                      /* events recorded */
    uint64_t max_ns;                     /* largest lateness seen, ns */
};

void slice_lateness_record(struct slice_lateness *h, uint64_t late_ns);

/* Events 10 ms or more late (the overflow bin). */
uint64_t slice_lateness_overflow_events(const struct slice_lateness *h);

/* Lateness in µs below which the fraction q (0..1) of events fall (nearest rank; a bin's centre, the exact
 * maximum for the largest event, 10000 = at least 10 ms in the overflow bin); 0 when empty. */
double slice_lateness_quantile_us(const struct slice_lateness *h, double q);

#endif
