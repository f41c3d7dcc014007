/*
 * The frame-boundary classifiers' coefficient files: the appliance's
 * ACK-burst model (configs/ack_burst_model.json, written by
 * testbed/runner/ack_burst_train.py, adwiser-dp --ack-model) and the STA
 * agent's (configs/sta_frame_model.json, testbed/runner/sta_frames.py,
 * adwiser-sta-agent --model) share one format, a JSON object
 *   {"model": KIND, "version": N, "m": M, "intercept": x, "coef": [M + 1 numbers], "threshold": p,
 *    "n_max": K, "scale": s (optional, default 1), "features": "...", "training": {...}}
 * read strictly: a missing or ill-typed field (the descriptive "features" a
 * string, "training" and the tables' "..._training" objects), a member written twice, an unknown
 * member, or coef of another length than m + 1 is refused with the field named (adwiser/ack_model.h
 * says what the numbers mean).
 *
 * "model" names what the file models, so that one classifier is not run as
 * the other (their numbers are in the same ranges; the features are not the
 * same packets): a file whose "model" is not the kind the reader asks for is
 * refused naming the field. Unlike the members added since version 1
 * ("scale", the per-STA-count tables), it is required: a file without it
 * could be of either kind, so it is refused naming the member and the kind
 * expected (the trainers write it; refit, or add it to a file you know).
 */
#ifndef ADW_DP_ACK_MODEL_JSON_H
#define ADW_DP_ACK_MODEL_JSON_H

#include <stddef.h>

#include "adwiser/ack_model.h"

/* The kinds, the values of "model". */
#define ACK_MODEL_KIND_ACK_BURST "adwiser-ack-burst-classifier" /* the appliance's, on the returning ACKs */
#define ACK_MODEL_KIND_STA_FRAME "adwiser-sta-frame-classifier" /* the STA agent's, on the received packets */

/* A file of the given kind (ACK_MODEL_KIND_*): 0, or -1 with err naming the field ("coef: expected 21 numbers
 * (m + 1), got 20"). */
int ack_model_json_load_file(const char *path, const char *kind, struct adw_ack_model *m, char *err,
                             size_t errlen);
int ack_model_json_parse(const char *text, const char *kind, struct adw_ack_model *m, char *err, size_t errlen);

#endif
