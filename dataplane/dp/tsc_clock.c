/* TSC to ns at the measured rate; see tsc_clock.h. */
#include "tsc_clock.h"

int tsc_clock_calibrate(struct tsc_clock *c, uint64_t tsc_a, uint64_t ns_a, uint64_t tsc_b, uint64_t ns_b)
{
    if (tsc_b <= tsc_a || ns_b <= ns_a)
        return -1;
    c->tsc0 = tsc_a;
    c->mult = (uint64_t)(((unsigned __int128)(ns_b - ns_a) << 32) / (tsc_b - tsc_a));
    return 0;
}

uint64_t tsc_clock_ns(const struct tsc_clock *c, uint64_t tsc)
{
    return (uint64_t)(((unsigned __int128)(tsc - c->tsc0) * c->mult) >> 32);
}
