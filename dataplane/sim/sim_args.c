/* sim_args.c — see sim_args.h. */
#include "sim_args.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A decimal number in [lo, hi] and nothing else (strtoull alone would take a sign or leading spaces). */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int sim_args_parse(int argc, char **argv, struct sim_args *out)
{
    uint64_t slice_ms = 20, seconds = 10, seed = 1;
    if (argc > 5)
        return -1;
    if (argc > 1 && parse_u64(argv[1], 1, 500, &slice_ms) != 0)
        return -1;
    if (argc > 2 && parse_u64(argv[2], 2, 60, &seconds) != 0)
        return -1;
    if (argc > 3 && parse_u64(argv[3], 0, UINT64_MAX, &seed) != 0)
        return -1;
    const char *scenario = argc > 4 ? argv[4] : "bulk";
    if (strcmp(scenario, "bulk") != 0 && strcmp(scenario, "http") != 0)
        return -1;
    *out = (struct sim_args){.slice_ms = (unsigned)slice_ms, .seconds = (unsigned)seconds, .seed = seed,
                             .http = strcmp(scenario, "http") == 0};
    return 0;
}
