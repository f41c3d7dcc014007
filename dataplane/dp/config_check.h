/*
 * adwiser-dp --check-config: the checks a start makes on its input files,
 * without starting anything (no EAL, ports, Redis, telemetry or hugepages),
 * so that a document can be checked as any user before it is installed.
 */
#ifndef ADW_DP_CONFIG_CHECK_H
#define ADW_DP_CONFIG_CHECK_H

#include <stddef.h>

#include "dp_options.h"

/*
 * Loads o->config_path with the loader of a start (every field and the
 * cross-field rules), builds the core's plan from it, checks the --ap/--port
 * names against its APs and loads the --ack-model and --pacing files if o
 * names them.  0, or -1 with err naming the file and the field.
 */
int dp_config_check(const struct dp_options *o, char *err, size_t errlen);

#endif
