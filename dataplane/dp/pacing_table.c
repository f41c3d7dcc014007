/* Pacing rates per pair from Redis or a file; see pacing_table.h. */
#include "pacing_table.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pacing_table *pacing_table_new(void) { return calloc(1, sizeof(struct pacing_table)); }

void pacing_table_free(struct pacing_table *t)
{
    if (t == NULL)
        return;
    free(t->e);
    free(t->slot);
    free(t);
}

/* FNV-1a: pair names are short, and any spread will do. */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot of pair in t->slot: the one holding it, or the empty one where it goes. t->n_slots > 0. */
static uint32_t *slot_of(const struct pacing_table *t, const char *pair)
{
    unsigned mask = t->n_slots - 1;
    for (unsigned i = name_hash(pair) & mask;; i = (i + 1) & mask)
        if (t->slot[i] == 0 || strcmp(t->e[t->slot[i] - 1].pair, pair) == 0)
            return &t->slot[i];
}

/* Makes room for one more entry in the index (kept at most half full); -1 when out of memory. */
static int index_reserve(struct pacing_table *t)
{
    if (2 * (t->n + 1) <= t->n_slots)
        return 0;
    struct pacing_table grown = *t;
    grown.n_slots = t->n_slots ? 2 * t->n_slots : 32;
    grown.slot = calloc(grown.n_slots, sizeof(*grown.slot));
    if (grown.slot == NULL)
        return -1;
    for (unsigned i = 0; i < t->n; i++)
        *slot_of(&grown, t->e[i].pair) = i + 1;
    free(t->slot);
    t->slot = grown.slot;
    t->n_slots = grown.n_slots;
    return 0;
}

static int add(struct pacing_table *t, const char *pair, double bps, char *err, size_t errlen)
{
    size_t len = strlen(pair);
    const char *slash = strchr(pair, '/');
    if (len == 0 || len >= ADW_PAIR_NAME_LEN || slash == NULL || slash == pair || slash[1] == '\0') {
        snprintf(err, errlen, "pacing: \"%.*s\": not a pair name \"ap/sta\"", 140, pair);
        return -1;
    }
    if (!isfinite(bps) || bps < 0 || bps > PACING_MAX_BPS) {
        snprintf(err, errlen, "pacing: %s: rate must be 0 .. 1e13 bit/s", pair);
        return -1;
    }
    if (index_reserve(t) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    uint32_t *slot = slot_of(t, pair);
    if (*slot != 0) {
        snprintf(err, errlen, "pacing: %s: given twice", pair);
        return -1;
    }
    if (t->n == t->cap) {
        unsigned cap = t->cap ? 2 * t->cap : 16;
        struct pacing_entry *e = realloc(t->e, cap * sizeof(*e));
        if (e == NULL) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        t->e = e;
        t->cap = cap;
    }
    snprintf(t->e[t->n].pair, sizeof(t->e[t->n].pair), "%s", pair);
    t->e[t->n].bps = (uint64_t)llround(bps);
    *slot = ++t->n;
    return 0;
}

int pacing_table_add_text(struct pacing_table *t, const char *pair, const char *value, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = value[0] != '\0' ? strtod(value, &end) : NAN;
    if (value[0] == '\0' || errno != 0 || *end != '\0') {
        snprintf(err, errlen, "pacing: %.*s: \"%.*s\" is not a rate in bit/s", 140, pair, 40, value);
        return -1;
    }
    return add(t, pair, v, err, errlen);
}

static struct pacing_table *from_json(const json_t *root, char *err, size_t errlen)
{
    if (!json_is_object(root)) {
        snprintf(err, errlen, "pacing: expected an object {\"ap/sta\": bit/s, ...}");
        return NULL;
    }
    struct pacing_table *t = pacing_table_new();
    if (t == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)root, k, v) {
        if (!json_is_number(v)) {
            snprintf(err, errlen, "pacing: %.*s: expected a number of bit/s", 140, k);
            pacing_table_free(t);
            return NULL;
        }
        if (add(t, k, json_number_value(v), err, errlen) != 0) {
            pacing_table_free(t);
            return NULL;
        }
    }
    return t;
}

/* A pair written twice is refused, as by the configuration and ACK model readers: jansson would keep the last, and
 * the file says two rates for the pair. */
#define LOAD_FLAGS JSON_REJECT_DUPLICATES

struct pacing_table *pacing_table_parse_json(const char *text, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loads(text, LOAD_FLAGS, &je);
    if (root == NULL) {
        snprintf(err, errlen, "pacing: not JSON: %s (line %d)", je.text, je.line);
        return NULL;
    }
    struct pacing_table *t = from_json(root, err, errlen);
    json_decref(root);
    return t;
}

struct pacing_table *pacing_table_load_file(const char *path, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_load_file(path, LOAD_FLAGS, &je);
    if (root == NULL) {
        snprintf(err, errlen, "%s", je.text);
        return NULL;
    }
    struct pacing_table *t = from_json(root, err, errlen);
    json_decref(root);
    return t;
}

uint64_t pacing_table_rate(const struct pacing_table *t, const char *pair)
{
    if (t == NULL || t->n == 0)
        return 0;
    uint32_t k = *slot_of(t, pair);
    return k != 0 ? t->e[k - 1].bps : 0;
}
