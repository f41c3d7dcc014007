/* Strict typed JSON reading with paths in errors; see json_walk.h. */
#include "json_walk.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER: return "integer";
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

void jw_path_key(char out[JW_PATH_LEN], const char *path, const char *key)
{
    if (path[0] == '\0')
        snprintf(out, JW_PATH_LEN, "%s", key);
    else
        snprintf(out, JW_PATH_LEN, "%s.%s", path, key);
}

void jw_path_index(char out[JW_PATH_LEN], const char *path, size_t index)
{
    snprintf(out, JW_PATH_LEN, "%s[%zu]", path, index);
}

static void vfail(struct jw *w, const char *path, const char *fmt, va_list ap)
{
    if (w->failed)
        return;
    w->failed = 1;
    int n = snprintf(w->err, w->errlen, "%s: ", path[0] ? path : "(document)");
    if (n < 0 || (size_t)n >= w->errlen)
        return;
    vsnprintf(w->err + n, w->errlen - (size_t)n, fmt, ap);
}

void jw_fail(struct jw *w, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(w, path, fmt, ap);
    va_end(ap);
}

int jw_fail_at(struct jw *w, const char *path, const char *key, const char *fmt, ...)
{
    char p[JW_PATH_LEN];
    jw_path_key(p, path, key);
    va_list ap;
    va_start(ap, fmt);
    vfail(w, p, fmt, ap);
    va_end(ap);
    return -1;
}

int jw_object(struct jw *w, const json_t *v, const char *path, const char *const *allowed)
{
    if (w->failed)
        return -1;
    if (!json_is_object(v)) {
        jw_fail(w, path, "expected an object, got %s", type_name(v));
        return -1;
    }
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val) {
        const char *const *a;
        for (a = allowed; *a && strcmp(*a, key) != 0; a++)
            ;
        if (!*a) {
            char p[JW_PATH_LEN];
            jw_path_key(p, path, key);
            jw_fail(w, p, "unknown field");
            return -1;
        }
    }
    return 0;
}

json_t *jw_member(struct jw *w, const json_t *obj, const char *path, const char *key, int required)
{
    if (w->failed)
        return NULL;
    json_t *v = json_object_get(obj, key);
    if (!v && required) {
        char p[JW_PATH_LEN];
        jw_path_key(p, path, key);
        jw_fail(w, p, "missing required field");
    }
    return v;
}

/* A number between min and max, each bound excluded if its flag is set (the schema's exclusiveMinimum and
 * exclusiveMaximum). */
static int number_in(struct jw *w, const json_t *obj, const char *path, const char *key, int required, double min,
                     int min_exclusive, double max, int max_exclusive, double *out)
{
    json_t *v = jw_member(w, obj, path, key, required);
    if (!v)
        return w->failed ? -1 : 0;
    char p[JW_PATH_LEN];
    jw_path_key(p, path, key);
    if (!json_is_number(v)) {
        jw_fail(w, p, "expected a number, got %s", type_name(v));
        return -1;
    }
    double d = json_number_value(v);
    if (!isfinite(d) || (min_exclusive ? d <= min : d < min) || (max_exclusive ? d >= max : d > max)) {
        jw_fail(w, p, "%g is outside %c%g, %g%c", d, min_exclusive ? '(' : '[', min, max, max_exclusive ? ')' : ']');
        return -1;
    }
    *out = d;
    return 0;
}

int jw_number(struct jw *w, const json_t *obj, const char *path, const char *key, int required, double min,
              double max, double *out)
{
    return number_in(w, obj, path, key, required, min, 0, max, 0, out);
}

int jw_number_above(struct jw *w, const json_t *obj, const char *path, const char *key, int required, double above,
                    double max, double *out)
{
    return number_in(w, obj, path, key, required, above, 1, max, 0, out);
}

int jw_number_between(struct jw *w, const json_t *obj, const char *path, const char *key, int required,
                      double above, double below, double *out)
{
    return number_in(w, obj, path, key, required, above, 1, below, 1, out);
}

int jw_integer(struct jw *w, const json_t *obj, const char *path, const char *key, int required, long long min,
               long long max, long long *out)
{
    json_t *v = jw_member(w, obj, path, key, required);
    if (!v)
        return w->failed ? -1 : 0;
    char p[JW_PATH_LEN];
    jw_path_key(p, path, key);
    return jw_elem_integer(w, v, p, min, max, out);
}

int jw_bool(struct jw *w, const json_t *obj, const char *path, const char *key, int required, int *out)
{
    json_t *v = jw_member(w, obj, path, key, required);
    if (!v)
        return w->failed ? -1 : 0;
    if (!json_is_boolean(v)) {
        char p[JW_PATH_LEN];
        jw_path_key(p, path, key);
        jw_fail(w, p, "expected a boolean, got %s", type_name(v));
        return -1;
    }
    *out = json_is_true(v);
    return 0;
}

int jw_string(struct jw *w, const json_t *obj, const char *path, const char *key, int required, int nullable,
              char *out, size_t cap)
{
    json_t *v = jw_member(w, obj, path, key, required);
    if (!v)
        return w->failed ? -1 : 0;
    char p[JW_PATH_LEN];
    jw_path_key(p, path, key);
    if (nullable && json_is_null(v)) {
        out[0] = '\0';
        return 0;
    }
    return jw_elem_string(w, v, p, out, cap);
}

json_t *jw_array(struct jw *w, const json_t *obj, const char *path, const char *key, int required, size_t max_len)
{
    json_t *v = jw_member(w, obj, path, key, required);
    if (!v)
        return NULL;
    char p[JW_PATH_LEN];
    jw_path_key(p, path, key);
    if (!json_is_array(v)) {
        jw_fail(w, p, "expected an array, got %s", type_name(v));
        return NULL;
    }
    if (json_array_size(v) > max_len) {
        jw_fail(w, p, "%zu elements, at most %zu allowed", json_array_size(v), max_len);
        return NULL;
    }
    return v;
}

int jw_elem_string(struct jw *w, const json_t *v, const char *path, char *out, size_t cap)
{
    if (w->failed)
        return -1;
    if (!json_is_string(v)) {
        jw_fail(w, path, "expected a string, got %s", type_name(v));
        return -1;
    }
    size_t n = json_string_length(v);
    if (n >= cap) {
        jw_fail(w, path, "string of %zu bytes, at most %zu allowed", n, cap - 1);
        return -1;
    }
    memcpy(out, json_string_value(v), n + 1);
    return 0;
}

int jw_elem_integer(struct jw *w, const json_t *v, const char *path, long long min, long long max, long long *out)
{
    if (w->failed)
        return -1;
    /* The schema's "integer" is any number with a zero fractional part (JSON Schema 2020-12): 20.0 counts. */
    double d = json_is_real(v) ? json_real_value(v) : 0.0;
    if (!json_is_integer(v) && !(json_is_real(v) && isfinite(d) && d == floor(d))) {
        jw_fail(w, path, "expected an integer, got %s", type_name(v));
        return -1;
    }
    if (json_is_real(v) && (d < (double)min || d > (double)max)) {
        jw_fail(w, path, "%g is outside [%lld, %lld]", d, min, max);
        return -1;
    }
    long long x = json_is_real(v) ? (long long)d : json_integer_value(v);
    if (x < min || x > max) {
        jw_fail(w, path, "%lld is outside [%lld, %lld]", x, min, max);
        return -1;
    }
    *out = x;
    return 0;
}
