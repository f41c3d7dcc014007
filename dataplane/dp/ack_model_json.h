/*
 * The ACK-burst classifier's coefficient file (configs/ack_burst_model.json,
 * written by testbed/runner/ack_burst_train.py): a JSON object
 *   {"version": N, "m": M, "intercept": x, "coef": [M + 1 numbers], "threshold": p, "n_max": K,
 *    "scale": s (optional, default 1), "features": "...", "training": {...}}
 * read strictly: a missing or ill-typed field (the descriptive "features" a
 * string, "training" and the tables' "..._training" objects), an unknown
 * member, or coef of another length than m + 1 is refused with the field named (adwiser/ack_model.h
 * says what the numbers mean).
 */
#ifndef ADW_DP_ACK_MODEL_JSON_H
#define ADW_DP_ACK_MODEL_JSON_H

#include <stddef.h>

#include "adwiser/ack_model.h"

/* 0, or -1 with err naming the field ("coef: expected 21 numbers (m + 1), got 20"). */
int ack_model_json_load_file(const char *path, struct adw_ack_model *m, char *err, size_t errlen);
int ack_model_json_parse(const char *text, struct adw_ack_model *m, char *err, size_t errlen);

#endif
