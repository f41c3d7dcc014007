/*
 * Strict reading of a JSON document with jansson: every value is read
 * through these helpers, which check its type and range and, on the first
 * problem, write an error naming the JSON path ("topology.aps[1].port:
 * expected a string, got number"; the root's path is "").  Objects are checked for unknown members,
 * so a misspelt field is refused instead of silently ignored.
 */
#ifndef ADW_DP_JSON_WALK_H
#define ADW_DP_JSON_WALK_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define JW_PATH_LEN 256   /* bytes of a JSON path in messages */

struct jw {
    char *err;     /* where the first error goes */
    size_t errlen; /* its size, bytes */
    int failed;    /* 1 once an error was written; later calls do nothing */
};

/* Child paths: "a" + "b" -> "a.b"; "a" + 3 -> "a[3]"; "" + "b" -> "b". */
void jw_path_key(char out[JW_PATH_LEN], const char *path, const char *key);
void jw_path_index(char out[JW_PATH_LEN], const char *path, size_t index);

/* Formats an error at path (only the first error of a walk is kept). */
void jw_fail(struct jw *w, const char *path, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Formats an error at member `key` of path; returns -1 for the caller to pass on. */
int jw_fail_at(struct jw *w, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* v must be an object whose member names are all in `allowed` (NULL-terminated). */
int jw_object(struct jw *w, const json_t *v, const char *path, const char *const *allowed);

/* Member `key` of obj: NULL (and an error if required) when missing. */
json_t *jw_member(struct jw *w, const json_t *obj, const char *path, const char *key, int required);

/* Typed members.  Missing optional members leave *out unchanged and return 0. */
int jw_number(struct jw *w, const json_t *obj, const char *path, const char *key, int required, double min,
              double max, double *out);
/* The same with an exclusive minimum (the schema's exclusiveMinimum): a number in (above, max]. */
int jw_number_above(struct jw *w, const json_t *obj, const char *path, const char *key, int required, double above,
                    double max, double *out);
/* Both bounds exclusive: a number in (above, below). */
int jw_number_between(struct jw *w, const json_t *obj, const char *path, const char *key, int required,
                      double above, double below, double *out);
int jw_integer(struct jw *w, const json_t *obj, const char *path, const char *key, int required, long long min,
               long long max, long long *out);
int jw_bool(struct jw *w, const json_t *obj, const char *path, const char *key, int required, int *out);
/* A string of at most cap-1 bytes; `nullable` accepts JSON null as "". */
int jw_string(struct jw *w, const json_t *obj, const char *path, const char *key, int required, int nullable,
              char *out, size_t cap);
/* An array of at most max_len elements; returns it (borrowed) or NULL. */
json_t *jw_array(struct jw *w, const json_t *obj, const char *path, const char *key, int required, size_t max_len);

/* Elements of arrays, by value. */
int jw_elem_string(struct jw *w, const json_t *v, const char *path, char *out, size_t cap);
int jw_elem_integer(struct jw *w, const json_t *v, const char *path, long long min, long long max, long long *out);

#endif
