/*
 * libFuzzer target: adwiser-dp's readers of untrusted text (dp/), each
 * through the entry point its caller uses, and what the caller does next:
 *   byte 0 % 4 == 0  the configuration document (config_json_parse: --config,
 *                    --check-config, the version's doc fetched from Redis);
 *                    an accepted one is built into a core, as a start does;
 *   1                the --pacing file (pacing_table_parse_json);
 *   2                the Redis pacing hash: the rest's lines alternate field
 *                    and value (pacing_table_add_text, as fetch_pacing does);
 *   3                the --ack-model file (ack_model_json_parse); an accepted
 *                    one is handed to a core (dp_engine_load_ack_model).
 * The rest of the input is the text (NUL-terminated here, as jansson's
 * callers and hiredis hand it over).
 * Invariants checked: a refusal writes a message; a refused document leaves
 * the configuration zeroed (refused whole); a model the reader accepts, the
 * core accepts too (the reader checks it as the core does).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ack_model_json.h"
#include "adwiser/sched.h"
#include "config_json.h"
#include "lab_config.h"
#include "pacing_table.h"

static void fuzz_config(const char *text)
{
    static struct adw_config *cfg;
    char err[512] = "";
    if (!cfg && !(cfg = config_json_alloc()))
        abort();
    /* A syntax error leaves *cfg as it was; any later refusal must zero it. */
    cfg->n_aps = cfg->n_stas = 0;
    cfg->appliance_id[0] = '\0';
    if (config_json_parse(text, cfg, err, sizeof(err)) != 0) {
        if (err[0] == '\0' || cfg->n_aps != 0 || cfg->n_stas != 0 || cfg->appliance_id[0] != '\0')
            abort();
        return;
    }
    struct adw_sched_params p = {.pool_pkts = 1024, .report_frames = 1};
    struct adw_sched *s = adw_sched_create(&p, cfg, 0, err, sizeof(err));
    adw_sched_free(s);
}

static void fuzz_pacing_file(const char *text)
{
    char err[512] = "";
    struct pacing_table *t = pacing_table_parse_json(text, err, sizeof(err));
    if (!t && err[0] == '\0')
        abort();
    pacing_table_free(t);
}

/* Lines alternate field and value; a last field without a value is left out, as fetch_pacing pairs them. */
static void fuzz_pacing_hash(char *text)
{
    char err[512] = "";
    struct pacing_table *t = pacing_table_new();
    if (!t)
        abort();
    char *save = NULL;
    for (char *field = strtok_r(text, "\n", &save), *value; field; field = strtok_r(NULL, "\n", &save)) {
        if (!(value = strtok_r(NULL, "\n", &save)))
            break;
        if (pacing_table_add_text(t, field, value, err, sizeof(err)) != 0) {
            if (err[0] == '\0')
                abort();
            break;
        }
    }
    pacing_table_free(t);
}

static void fuzz_ack_model(const char *text)
{
    static struct adw_sched *s;
    char err[512] = "";
    if (!s) {
        struct adw_config *cfg = lab_config_2ap_2sta(20);
        struct adw_sched_params p = {.pool_pkts = 1024};
        s = cfg ? adw_sched_create(&p, cfg, 0, err, sizeof(err)) : NULL;
        free(cfg);
        if (!s)
            abort();
    }
    struct adw_ack_model m;
    if (ack_model_json_parse(text, ACK_MODEL_KIND_ACK_BURST, &m, err, sizeof(err)) != 0) {
        if (err[0] == '\0')
            abort();
        return;
    }
    if (adw_sched_set_ack_model(s, &m, err, sizeof(err)) != 0) {
        fprintf(stderr, "fuzz: a model the reader accepted, the core refused: %s\n", err);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    switch (data[0] % 4) {
    case 0: fuzz_config(text); break;
    case 1: fuzz_pacing_file(text); break;
    case 2: fuzz_pacing_hash(text); break;
    default: fuzz_ack_model(text); break;
    }
    free(text);
    return 0;
}
