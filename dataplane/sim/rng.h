/* rng.h — seeded xorshift64* generator for the simulation (reproducible runs). */
#ifndef ADW_SIM_RNG_H
#define ADW_SIM_RNG_H

#include <math.h>
#include <stdint.h>

struct rng {
    uint64_t s;
};

static inline double rng_uniform(struct rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (((r->s * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

/* Exponential with the given mean. */
static inline double rng_exp(struct rng *r, double mean) { return -mean * log(rng_uniform(r)); }

#endif
