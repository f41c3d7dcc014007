/* A dp_engine started on the lab document ($ADW_LAB_JSON: configs/lab-2ap-2sta.yaml as dp.mk converts it) for
 * the backends' cmocka tests; a document that does not load or start fails the test with the loader's message. */
#ifndef ADW_DP_TESTS_LAB_ENGINE_H
#define ADW_DP_TESTS_LAB_ENGINE_H

#include <stdint.h>

#include "dp_engine.h"

/* *o holds the test's options (hold_pkts, burst, ...); its config_path is set to the lab document. */
void lab_engine_start(struct dp_engine *e, struct dp_options *o, unsigned n_ports, const char *backend,
                      uint64_t now_ns);

#endif
