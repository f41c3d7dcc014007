/* Strict loader of the ACK-burst classifier's coefficients; see ack_model_json.h. */
#include "ack_model_json.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_walk.h"

/* An optional per-STA-count table of numbers in [min, max] (adwiser/ack_model.h): 0 if absent or valid. */
static int by_stas_table(struct jw *w, const json_t *root, const char *key, double min, double max, double *out,
                         uint8_t *n)
{
    json_t *arr = jw_array(w, root, "", key, 0, ADW_ACK_MODEL_MAX_STAS);
    if (w->failed)
        return -1;
    for (size_t k = 0; arr != NULL && k < json_array_size(arr); k++) {
        json_t *v = json_array_get(arr, k);
        double x = json_is_number(v) ? json_number_value(v) : NAN;
        if (!(isfinite(x) && x >= min && x <= max)) {
            snprintf(w->err, w->errlen, "%s[%zu]: expected a number in [%g, %g]", key, k, min, max);
            return -1;
        }
        out[k] = x;
    }
    *n = arr != NULL ? (uint8_t)json_array_size(arr) : 0;
    return 0;
}

/* The members that describe the numbers (what they mean, how they were fitted): optional, and read by no one here,
 * but a text and objects as the trainers write them; anything else is not such a file. 0, or -1 naming the member. */
static int descriptions(struct jw *w, const json_t *root)
{
    static const struct {
        const char *key;
        json_type type;
        const char *what;
    } d[] = {{"features", JSON_STRING, "a string"},
             {"training", JSON_OBJECT, "an object"},
             {"scale_by_stas_training", JSON_OBJECT, "an object"},
             {"gap_by_stas_training", JSON_OBJECT, "an object"}};
    for (size_t k = 0; k < sizeof(d) / sizeof(d[0]); k++) {
        const json_t *v = json_object_get(root, d[k].key);
        if (v != NULL && json_typeof(v) != d[k].type)
            return jw_fail_at(w, "", d[k].key, "expected %s", d[k].what);
    }
    return 0;
}

/* "model" must be the kind asked for. Required: the two kinds' numbers are alike, so a file without it could be
 * either. 0, or -1 naming the member (and, when it is missing, the kind expected). */
static int of_kind(struct jw *w, const json_t *root, const char *kind)
{
    if (json_object_get(root, "model") == NULL)
        return jw_fail_at(w, "", "model", "missing required field, expected \"%s\"", kind);
    char got[64];
    if (jw_string(w, root, "", "model", 1, 0, got, sizeof(got)) != 0)
        return -1;
    if (strcmp(got, kind) != 0)
        return jw_fail_at(w, "", "model", "expected \"%s\", got \"%s\"", kind, got);
    return 0;
}

/* threshold in (0, 1), as the core checks it (adw_sched_set_ack_model): a boundary when P >= threshold, and the P of a
 * finite logit lies strictly between. Read as any number first, so the message states that bound: checked as
 * [1e-9, 1 - 1e-9] it said "1 is outside [1e-09, 1]", 1 - 1e-9 printing as 1. */
static int threshold_in_range(struct jw *w, const json_t *root, double *out)
{
    if (jw_number(w, root, "", "threshold", 1, -INFINITY, INFINITY, out) != 0)
        return -1;
    if (!(*out > 0 && *out < 1))
        return jw_fail_at(w, "", "threshold", "%g is outside (0, 1)", *out);
    return 0;
}

/* The per-STA-count tables correct the appliance's ACK bursts for the STAs of its AP that are receiving
 * (ack_model.h); the STA agent counts the A-MPDUs it receives itself and knows no such count, so a STA-frame model
 * carrying one is refused rather than read at its one-STA entry. */
static int no_per_sta_count_tables(struct jw *w, const json_t *root, const char *kind)
{
    static const char *const tables[] = {"scale_by_stas", "scale_by_stas_training", "gap_by_stas_us",
                                         "gap_by_stas_training"};
    if (strcmp(kind, ACK_MODEL_KIND_STA_FRAME) != 0)
        return 0;
    for (size_t k = 0; k < sizeof tables / sizeof tables[0]; k++)
        if (json_object_get(root, tables[k]) != NULL)
            return jw_fail_at(w, "", tables[k], "a per-STA-count table, which the STA agent cannot use (it knows "
                                                "no count of its AP's receiving STAs): only \"scale\" applies");
    return 0;
}

static int from_json(const json_t *root, const char *kind, struct adw_ack_model *out, char *err, size_t errlen)
{
    static const char *const allowed[] = {"model", "version", "m", "intercept", "coef", "threshold", "n_max",
                                          "scale", "scale_by_stas", "scale_by_stas_training", "gap_by_stas_us",
                                          "gap_by_stas_training", "features", "training", NULL};
    struct jw w = {.err = err, .errlen = errlen};
    struct adw_ack_model m;
    memset(&m, 0, sizeof(m));
    long long version = 0, mm = 0, n_max = 0;
    double intercept = 0, threshold = 0, scale = 1.0; /* scale is optional: no correction */
    if (jw_object(&w, root, "", allowed) || descriptions(&w, root) || of_kind(&w, root, kind)
        || no_per_sta_count_tables(&w, root, kind)
        || jw_integer(&w, root, "", "version", 1, 1, 1000000000, &version)
        || jw_integer(&w, root, "", "m", 1, 1, ADW_ACK_MODEL_MAX_M, &mm)
        || jw_number(&w, root, "", "intercept", 1, -1e12, 1e12, &intercept)
        || threshold_in_range(&w, root, &threshold)
        || jw_integer(&w, root, "", "n_max", 1, 1, 1024, &n_max)
        || jw_number(&w, root, "", "scale", 0, 1e-3, 1e3, &scale))
        return -1;
    json_t *coef = jw_array(&w, root, "", "coef", 1, ADW_ACK_MODEL_MAX_M + 1);
    if (coef == NULL)
        return -1;
    if (json_array_size(coef) != (size_t)mm + 1) {
        snprintf(err, errlen, "coef: expected %lld numbers (m + 1), got %zu", mm + 1, json_array_size(coef));
        return -1;
    }
    for (size_t k = 0; k < json_array_size(coef); k++) {
        json_t *v = json_array_get(coef, k);
        if (!json_is_number(v) || !isfinite(json_number_value(v))) {
            snprintf(err, errlen, "coef[%zu]: expected a finite number", k);
            return -1;
        }
        m.coef[k] = json_number_value(v);
    }
    if (by_stas_table(&w, root, "scale_by_stas", 1e-3, 1e3, m.scale_by_stas, &m.n_scale_by_stas) ||
        by_stas_table(&w, root, "gap_by_stas_us", 0, 1e6, m.gap_by_stas_us, &m.n_gap_by_stas))
        return -1;
    m.version = (uint32_t)version;
    m.m = (uint16_t)mm;
    m.intercept = intercept;
    m.threshold = threshold;
    m.n_max = (uint32_t)n_max;
    m.scale = scale;
    *out = m;
    return 0;
}

/* A member written twice is refused (the config reader does the same): jansson would otherwise keep the last, and a
 * file with two "m" or two "coef" says nothing certain about which one was fitted. */
#define LOAD_FLAGS JSON_REJECT_DUPLICATES

int ack_model_json_parse(const char *text, const char *kind, struct adw_ack_model *m, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loads(text, LOAD_FLAGS, &je);
    if (root == NULL) {
        snprintf(err, errlen, "not JSON: %s (line %d)", je.text, je.line);
        return -1;
    }
    int rc = from_json(root, kind, m, err, errlen);
    json_decref(root);
    return rc;
}

int ack_model_json_load_file(const char *path, const char *kind, struct adw_ack_model *m, char *err,
                             size_t errlen)
{
    json_error_t je;
    json_t *root = json_load_file(path, LOAD_FLAGS, &je);
    if (root == NULL) {
        snprintf(err, errlen, "%s", je.text);
        return -1;
    }
    int rc = from_json(root, kind, m, err, errlen);
    json_decref(root);
    return rc;
}
