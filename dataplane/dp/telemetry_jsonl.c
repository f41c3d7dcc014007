/* JSON-lines telemetry file; see telemetry_jsonl.h. */
#include "telemetry_jsonl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct telemetry_jsonl {
    FILE *f;
};

struct telemetry_jsonl *telemetry_jsonl_open(const char *path, char *err, size_t errlen)
{
    struct telemetry_jsonl *t = calloc(1, sizeof(*t));
    if (!t) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->f = fopen(path, "w");
    if (!t->f) {
        snprintf(err, errlen, "--telemetry %s: %s", path, strerror(errno));
        free(t);
        return NULL;
    }
    return t;
}

int telemetry_jsonl_write(struct telemetry_jsonl *t, const json_t *obj)
{
    int rc = json_dumpf(obj, t->f, JSON_COMPACT);
    return fputc('\n', t->f) == EOF ? -1 : rc;
}

int telemetry_jsonl_flush(struct telemetry_jsonl *t)
{
    return fflush(t->f) == 0 ? 0 : -1;
}

void telemetry_jsonl_close(struct telemetry_jsonl *t)
{
    fclose(t->f);
    free(t);
}
