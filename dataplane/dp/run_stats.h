/* --stats: the run's counters as one JSON document (see run_stats.c). */
#ifndef ADW_DP_RUN_STATS_H
#define ADW_DP_RUN_STATS_H

#include "dp_engine.h"

void run_stats_write(const struct dp_engine *e, const char *path);

#endif
