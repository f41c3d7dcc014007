/*
 * Pacing rates per pair (SPEC §3.7, issue 9): pair name "ap/sta" -> x_i in
 * bit/s. The same shape comes from the Redis hash adwiser:appliance:<id>:pacing
 * (field = pair, value = decimal bit/s; controller/REDIS.md) and from the
 * --pacing FILE of runs without a controller (a JSON object
 * {"ap1/sta1": 60000000, ...}). A pair that is absent, or has rate 0, is not
 * paced. A table is checked whole: one bad entry refuses it (the field named)
 * and the rates in force stay.
 */
#ifndef ADW_DP_PACING_TABLE_H
#define ADW_DP_PACING_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "adwiser/config.h"

#define PACING_MAX_BPS 10000000000000.0 /* 10 Tbit/s: beyond any WLAN; refuses typos */

struct pacing_entry {
    char pair[ADW_PAIR_NAME_LEN];
    uint64_t bps;
};

struct pacing_table {
    unsigned n, cap;
    struct pacing_entry *e;
    /* Open-addressing index over e by pair name (entry index + 1, 0 = empty; n_slots a power of two, at least
     * 2 * n): a pair given twice is found, and the loop's lookup of each STA's rate made, without a scan. */
    unsigned n_slots;
    uint32_t *slot;
};

struct pacing_table *pacing_table_new(void);
void pacing_table_free(struct pacing_table *t);
/* Adds pair = value (decimal text, as Redis holds it); -1 with err naming the pair when malformed. */
int pacing_table_add_text(struct pacing_table *t, const char *pair, const char *value, char *err, size_t errlen);
/* Parses a JSON object {"ap/sta": number, ...}; NULL with err naming the field. */
struct pacing_table *pacing_table_parse_json(const char *text, char *err, size_t errlen);
struct pacing_table *pacing_table_load_file(const char *path, char *err, size_t errlen);
/* Rate of pair, 0 if absent. */
uint64_t pacing_table_rate(const struct pacing_table *t, const char *pair);

#endif
