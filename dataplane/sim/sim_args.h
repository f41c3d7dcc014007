/*
 * sim_args.h — the command line of adwiser-sim: [slice_ms 1..500] [seconds 2..60] [seed] [bulk|http].
 * Each number must be a whole decimal number with nothing after it: atoi read "20x" as 20 and "abc" as
 * 0, so a mistyped argument ran another simulation than the one asked for.
 */
#ifndef ADW_SIM_SIM_ARGS_H
#define ADW_SIM_SIM_ARGS_H

#include <stdbool.h>
#include <stdint.h>

struct sim_args {
    unsigned slice_ms;
    unsigned seconds;
    uint64_t seed;
    bool http;
};

/* 0 with *out filled (defaults for what is not given: 20 ms, 10 s, seed 1, bulk); -1 on a bad command line. */
int sim_args_parse(int argc, char **argv, struct sim_args *out);

#endif
