/*
 * Telemetry file sink: one JSON object per line, appended and flushed per
 * frame so a reader (the testbed report, `tail -f`) sees whole lines.
 */
#ifndef ADW_DP_TELEMETRY_JSONL_H
#define ADW_DP_TELEMETRY_JSONL_H

#include <jansson.h>
#include <stddef.h>

struct telemetry_jsonl;

struct telemetry_jsonl *telemetry_jsonl_open(const char *path, char *err, size_t errlen);
/* Appends obj as one line (not flushed); -1 if the file refused it (full disk, reader gone). */
int telemetry_jsonl_write(struct telemetry_jsonl *t, const json_t *obj);
/* -1 if what was appended since the last flush did not all reach the file (stdio then drops it). */
int telemetry_jsonl_flush(struct telemetry_jsonl *t);
void telemetry_jsonl_close(struct telemetry_jsonl *t);

#endif
