/*
 * test_dp_pacing.c — adwiser-dp's readers of the aggregation-target inputs (SPEC §3.7, issue 9): the pacing table
 * (Redis hash values and --pacing FILE) and the ACK-burst model file (configs/ack_burst_model.json; the STA agent's
 * configs/sta_frame_model.json shares its format and reader). Each refuses malformed input whole, naming the field.
 * The shipped model files are read from $ADW_CONFIGS (dp.mk sets it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "ack_model_json.h"
#include "pacing_table.h"

static void test_pacing_file_gives_rates_per_pair_and_absent_is_not_paced(void **state)
{
    (void)state;
    char err[256];
    struct pacing_table *t = pacing_table_parse_json("{\"ap1/sta1\": 60000000, \"ap2/sta2\": 0}", err, sizeof err);
    assert_non_null(t);
    assert_int_equal(pacing_table_rate(t, "ap1/sta1"), 60000000);
    assert_int_equal(pacing_table_rate(t, "ap2/sta2"), 0);
    assert_int_equal(pacing_table_rate(t, "ap1/sta9"), 0);
    pacing_table_free(t);
}

static void test_pacing_file_with_a_bad_rate_is_refused_naming_the_pair(void **state)
{
    (void)state;
    char err[256];
    assert_null(pacing_table_parse_json("{\"ap1/sta1\": 1000, \"ap2/sta2\": \"fast\"}", err, sizeof err));
    assert_non_null(strstr(err, "ap2/sta2"));
    assert_null(pacing_table_parse_json("{\"ap1/sta1\": -5}", err, sizeof err));
    assert_non_null(strstr(err, "ap1/sta1"));
    assert_null(pacing_table_parse_json("{\"sta1\": 5}", err, sizeof err));
    assert_non_null(strstr(err, "sta1"));
    assert_null(pacing_table_parse_json("[1, 2]", err, sizeof err));
    assert_non_null(strstr(err, "object"));
}

/* jansson keeps the last of a member written twice: the file said 1 bit/s and 2 bit/s for one pair, and 2 ran. */
static void test_pacing_file_with_a_pair_written_twice_is_refused(void **state)
{
    (void)state;
    char err[256];
    assert_null(pacing_table_parse_json("{\"ap1/sta1\": 1, \"ap1/sta1\": 2}", err, sizeof err));
    assert_non_null(strstr(err, "duplicate"));
    char path[] = "/tmp/test_dp_pacing_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char doc[] = "{\"ap1/sta1\": 1, \"ap1/sta1\": 2}";
    assert_int_equal(write(fd, doc, sizeof doc - 1), (ssize_t)(sizeof doc - 1));
    close(fd);
    struct pacing_table *t = pacing_table_load_file(path, err, sizeof err);
    unlink(path);
    pacing_table_free(t);
    assert_null(t);
    assert_non_null(strstr(err, "duplicate"));
}

static void test_redis_hash_values_are_decimal_bit_rates(void **state)
{
    (void)state;
    char err[256];
    struct pacing_table *t = pacing_table_new();
    assert_int_equal(pacing_table_add_text(t, "ap1/sta1", "125000000", err, sizeof err), 0);
    assert_int_equal(pacing_table_add_text(t, "ap1/sta2", "1.5e6", err, sizeof err), 0);
    assert_int_equal(pacing_table_rate(t, "ap1/sta1"), 125000000);
    assert_int_equal(pacing_table_rate(t, "ap1/sta2"), 1500000);
    assert_int_equal(pacing_table_add_text(t, "ap1/sta3", "12 Mbit", err, sizeof err), -1);
    assert_non_null(strstr(err, "ap1/sta3"));
    assert_int_equal(pacing_table_add_text(t, "ap1/sta4", "", err, sizeof err), -1);
    assert_int_equal(pacing_table_add_text(t, "ap1/sta1", "5", err, sizeof err), -1); /* twice */
    pacing_table_free(t);
}

/* The table is indexed by pair name (each pair was checked against every one before it, and looked up by a scan: 100000
 * fields took 29 s at -O2, and the loop's lookup of 4096 STAs' rates 17 ms): with many pairs, each still has its own
 * rate, an absent one none, and a repeat is refused. */
static void test_pacing_table_of_many_pairs_gives_each_its_rate_and_refuses_a_repeat(void **state)
{
    (void)state;
    enum { N = 50000 };
    char err[256], pair[ADW_PAIR_NAME_LEN], value[32];
    struct pacing_table *t = pacing_table_new();
    for (unsigned i = 0; i < N; i++) {
        snprintf(pair, sizeof pair, "ap%u/sta%u", i / 8, i);
        snprintf(value, sizeof value, "%u", 1000 + i);
        assert_int_equal(pacing_table_add_text(t, pair, value, err, sizeof err), 0);
    }
    assert_int_equal(pacing_table_add_text(t, "ap7/sta63", "5", err, sizeof err), -1); /* twice, still refused */
    for (unsigned i = 0; i < 4096; i++) { /* the loop's lookups, one per STA: present pairs and absent ones */
        snprintf(pair, sizeof pair, "ap%u/sta%u", i / 8, i);
        assert_int_equal(pacing_table_rate(t, pair), 1000 + i);
        snprintf(pair, sizeof pair, "ap%u/sta%u", i / 8, N + i);
        assert_int_equal(pacing_table_rate(t, pair), 0);
    }
    pacing_table_free(t);
}

/* Every model file says what it models; the ones below are the appliance's unless a test says otherwise. */
#define ACK_KIND "\"model\": \"" ACK_MODEL_KIND_ACK_BURST "\", "
#define MODEL_NUMBERS_BUT_THRESHOLD "\"version\": 1, \"m\": 2, \"intercept\": 0, \"coef\": [1, 2, 3], \"n_max\": 64"
#define MODEL_NUMBERS MODEL_NUMBERS_BUT_THRESHOLD ", \"threshold\": 0.5"
/* A valid ACK-burst model with one more member, `member` (text of the form "\"name\": value"). */
#define MODEL_WITH(member) "{" ACK_KIND MODEL_NUMBERS ", " member "}"

#define MODEL_OK "{" ACK_KIND "\"version\": 3, \"m\": 2, \"intercept\": -1.5, \"coef\": [0.1, 0.2, 0.3], " \
                 "\"threshold\": 0.5, \"n_max\": 64, \"features\": \"t (us), oldest first, then sd\", " \
                 "\"training\": {\"f1\": 0.9}}"

static void test_ack_model_file_is_loaded(void **state)
{
    (void)state;
    char err[256];
    struct adw_ack_model m;
    assert_int_equal(ack_model_json_parse(MODEL_OK, ACK_MODEL_KIND_ACK_BURST, &m, err, sizeof err), 0);
    assert_int_equal(m.version, 3);
    assert_int_equal(m.m, 2);
    assert_true(m.intercept == -1.5 && m.coef[0] == 0.1 && m.coef[2] == 0.3 && m.threshold == 0.5);
    assert_int_equal(m.n_max, 64);
    assert_true(m.scale == 1.0); /* absent: no correction */
    assert_int_equal(m.n_scale_by_stas, 0);
}

static void test_ack_model_scale_per_sta_count_is_loaded(void **state)
{
    (void)state;
    char err[256];
    struct adw_ack_model m;
    assert_int_equal(ack_model_json_parse("{" ACK_KIND "\"version\": 5, \"m\": 1, \"intercept\": 0, \"coef\": [1, 0], "
                                          "\"threshold\": 0.5, \"n_max\": 64, \"scale\": 0.56, "
                                          "\"scale_by_stas\": [0.56, 0.8, 0.95], "
                                          "\"scale_by_stas_training\": {\"slots\": 10}, "
                                          "\"gap_by_stas_us\": [0, 1500], \"gap_by_stas_training\": {}}",
                                          ACK_MODEL_KIND_ACK_BURST, &m, err, sizeof err), 0);
    assert_int_equal(m.n_scale_by_stas, 3);
    assert_true(m.scale_by_stas[0] == 0.56 && m.scale_by_stas[1] == 0.8 && m.scale_by_stas[2] == 0.95);
    assert_int_equal(m.n_gap_by_stas, 2);
    assert_true(m.gap_by_stas_us[0] == 0 && m.gap_by_stas_us[1] == 1500);
}

static void expect_refused_as(const char *kind, const char *doc, const char *field)
{
    char err[256];
    struct adw_ack_model m;
    assert_int_equal(ack_model_json_parse(doc, kind, &m, err, sizeof err), -1);
    if (strstr(err, field) == NULL)
        fail_msg("error \"%s\" does not name %s", err, field);
}

static void expect_refused(const char *doc, const char *field)
{
    expect_refused_as(ACK_MODEL_KIND_ACK_BURST, doc, field);
}

static void test_malformed_ack_model_is_refused_naming_the_field(void **state)
{
    (void)state;
    expect_refused("{" ACK_KIND "\"m\": 2, \"intercept\": 0, \"coef\": [1, 2, 3], \"threshold\": 0.5, \"n_max\": 64}",
                   "version");
    expect_refused("{" ACK_KIND "\"version\": \"one\", \"m\": 2, \"intercept\": 0, \"coef\": [1, 2, 3], "
                   "\"threshold\": 0.5, \"n_max\": 64}", "version");
    expect_refused("{" ACK_KIND "\"version\": 1, \"m\": 2, \"intercept\": 0, \"coef\": [1, 2], \"threshold\": 0.5, "
                   "\"n_max\": 64}",
                   "coef");
    expect_refused("{" ACK_KIND "\"version\": 1, \"m\": 2, \"intercept\": 0, \"coef\": [1, \"x\", 3], "
                   "\"threshold\": 0.5, \"n_max\": 64}", "coef[1]");
    expect_refused("{" ACK_KIND "\"version\": 1, \"m\": 2, \"intercept\": 0, \"coef\": [1, 2, 3], \"threshold\": 1.5, "
                   "\"n_max\": 64}", "threshold");
    expect_refused("{" ACK_KIND "\"version\": 1, \"m\": 2, \"intercept\": 0, \"coef\": [1, 2, 3], "
                   "\"threshold\": \"high\", \"n_max\": 64}", "threshold: expected a number");
    expect_refused("{" ACK_KIND "\"version\": 1, \"m\": 99, \"intercept\": 0, \"coef\": [1], \"threshold\": 0.5, "
                   "\"n_max\": 64}",
                   "m");
    expect_refused(MODEL_WITH("\"bias\": 1"), "bias");
    expect_refused(MODEL_WITH("\"scale\": -1"), "scale");
    expect_refused(MODEL_WITH("\"scale_by_stas\": [0.5, 0]"), "scale_by_stas[1]");
    expect_refused(MODEL_WITH("\"scale_by_stas\": [1, 1, 1, 1, 1, 1, 1, 1, 1]"), "scale_by_stas");
    expect_refused(MODEL_WITH("\"scale_by_stas\": 0.5"), "scale_by_stas");
    expect_refused(MODEL_WITH("\"gap_by_stas_us\": [0, -1]"), "gap_by_stas_us[1]");
}

static void test_ack_model_descriptive_fields_of_another_type_are_refused(void **state)
{
    (void)state;
    /* What the numbers mean and how they were fitted: optional, but a text and objects, not anything. */
    expect_refused(MODEL_WITH("\"features\": 3"), "features");
    expect_refused(MODEL_WITH("\"training\": \"sklearn\""), "training");
    expect_refused(MODEL_WITH("\"scale_by_stas_training\": [1]"), "scale_by_stas_training");
    expect_refused(MODEL_WITH("\"gap_by_stas_training\": null"), "gap_by_stas_training");
}

/* The shipped file configs/<name>: 0 if it loads as `kind`, else -1 with the reason in err. */
static int load_shipped(const char *name, const char *kind, char *err, size_t errlen)
{
    const char *dir = getenv("ADW_CONFIGS");
    assert_non_null(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct adw_ack_model m;
    return ack_model_json_load_file(path, kind, &m, err, errlen);
}

static void test_shipped_models_load_only_as_what_they_model(void **state)
{
    (void)state;
    char err[256];
    if (load_shipped("ack_burst_model.json", ACK_MODEL_KIND_ACK_BURST, err, sizeof err) != 0)
        fail_msg("the ACK-burst model: %s", err);
    if (load_shipped("sta_frame_model.json", ACK_MODEL_KIND_STA_FRAME, err, sizeof err) != 0)
        fail_msg("the STA frame model: %s", err);
    /* The same format and ranges: only "model" tells adwiser-dp --ack-model and adwiser-sta-agent --model apart. */
    assert_int_equal(load_shipped("ack_burst_model.json", ACK_MODEL_KIND_STA_FRAME, err, sizeof err), -1);
    assert_non_null(strstr(err, "model: expected \"" ACK_MODEL_KIND_STA_FRAME "\", got \"" ACK_MODEL_KIND_ACK_BURST));
    assert_int_equal(load_shipped("sta_frame_model.json", ACK_MODEL_KIND_ACK_BURST, err, sizeof err), -1);
    assert_non_null(strstr(err, "model: expected \"" ACK_MODEL_KIND_ACK_BURST "\", got \"" ACK_MODEL_KIND_STA_FRAME));
}

static void test_model_of_another_kind_is_refused(void **state)
{
    (void)state;
    expect_refused_as(ACK_MODEL_KIND_STA_FRAME, "{\"model\": \"" ACK_MODEL_KIND_ACK_BURST "\", " MODEL_NUMBERS "}",
                      "model");
    expect_refused_as(ACK_MODEL_KIND_ACK_BURST, "{\"model\": \"adwiser-bottleneck-classifier\", " MODEL_NUMBERS "}",
                      "model");
    expect_refused_as(ACK_MODEL_KIND_ACK_BURST, "{\"model\": \"\", " MODEL_NUMBERS "}", "model");
    expect_refused_as(ACK_MODEL_KIND_ACK_BURST, "{\"model\": 1, " MODEL_NUMBERS "}", "model");
    char err[256];
    struct adw_ack_model m;
    assert_int_equal(ack_model_json_parse("{\"model\": \"" ACK_MODEL_KIND_STA_FRAME "\", " MODEL_NUMBERS "}",
                                          ACK_MODEL_KIND_STA_FRAME, &m, err, sizeof err), 0);
}

/* The per-STA-count tables correct the appliance's ACK bursts for the STAs of an AP that are receiving; a STA agent
 * counts its own A-MPDUs and knows no such count, so it would use the one-STA entry whatever the AP serves. */
static void test_sta_frame_model_with_a_per_sta_count_table_is_refused_naming_it(void **state)
{
    (void)state;
    static const char *const tables[] = {"\"scale_by_stas\": [0.56, 0.8]", "\"scale_by_stas_training\": {}",
                                         "\"gap_by_stas_us\": [0, 1500]", "\"gap_by_stas_training\": {}"};
    static const char *const names[] = {"scale_by_stas", "scale_by_stas_training", "gap_by_stas_us",
                                        "gap_by_stas_training"};
    for (unsigned k = 0; k < 4; k++) {
        char doc[512];
        snprintf(doc, sizeof doc, "{\"model\": \"" ACK_MODEL_KIND_STA_FRAME "\", " MODEL_NUMBERS ", %s}", tables[k]);
        expect_refused_as(ACK_MODEL_KIND_STA_FRAME, doc, names[k]);
    }
}

static void test_model_without_a_kind_is_refused_naming_the_member_and_the_kind_expected(void **state)
{
    (void)state;
    /* Either classifier's numbers would load as the other: without "model" nothing says which one this is. */
    expect_refused_as(ACK_MODEL_KIND_ACK_BURST, "{" MODEL_NUMBERS "}",
                      "model: missing required field, expected \"" ACK_MODEL_KIND_ACK_BURST "\"");
    expect_refused_as(ACK_MODEL_KIND_STA_FRAME, "{" MODEL_NUMBERS "}",
                      "model: missing required field, expected \"" ACK_MODEL_KIND_STA_FRAME "\"");
}

static void test_ack_model_threshold_out_of_range_is_refused_stating_the_open_interval(void **state)
{
    (void)state;
    /* 0 and 1 themselves are out: P of a finite logit never reaches either. */
    expect_refused("{" ACK_KIND MODEL_NUMBERS_BUT_THRESHOLD ", \"threshold\": 1}", "threshold: 1 is outside (0, 1)");
    expect_refused("{" ACK_KIND MODEL_NUMBERS_BUT_THRESHOLD ", \"threshold\": 0}", "threshold: 0 is outside (0, 1)");
    expect_refused("{" ACK_KIND MODEL_NUMBERS_BUT_THRESHOLD ", \"threshold\": -0.5}",
                   "threshold: -0.5 is outside (0, 1)");
    char err[256];
    struct adw_ack_model m;
    assert_int_equal(ack_model_json_parse("{" ACK_KIND MODEL_NUMBERS_BUT_THRESHOLD ", \"threshold\": 0.999}",
                                          ACK_MODEL_KIND_ACK_BURST, &m, err, sizeof err), 0);
    assert_true(m.threshold == 0.999);
}

static void test_ack_model_with_a_member_twice_is_refused(void **state)
{
    (void)state;
    /* Which of two thresholds or m the file means cannot be told; jansson keeps the last one unless asked. */
    expect_refused("{" ACK_KIND MODEL_NUMBERS ", \"threshold\": 0.9}", "duplicate");
    expect_refused("{" ACK_KIND MODEL_NUMBERS ", \"coef\": [3, 2, 1]}", "duplicate");
    char path[] = "/tmp/adw-ack-model-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static const char doc[] = "{" ACK_KIND MODEL_NUMBERS ", \"m\": 2}";
    assert_int_equal(write(fd, doc, sizeof doc - 1), (ssize_t)(sizeof doc - 1));
    close(fd);
    char err[256];
    struct adw_ack_model m;
    int rc = ack_model_json_load_file(path, ACK_MODEL_KIND_ACK_BURST, &m, err, sizeof err);
    unlink(path);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, "duplicate"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pacing_file_gives_rates_per_pair_and_absent_is_not_paced),
        cmocka_unit_test(test_pacing_file_with_a_bad_rate_is_refused_naming_the_pair),
        cmocka_unit_test(test_pacing_file_with_a_pair_written_twice_is_refused),
        cmocka_unit_test(test_redis_hash_values_are_decimal_bit_rates),
        cmocka_unit_test(test_pacing_table_of_many_pairs_gives_each_its_rate_and_refuses_a_repeat),
        cmocka_unit_test(test_ack_model_file_is_loaded),
        cmocka_unit_test(test_ack_model_scale_per_sta_count_is_loaded),
        cmocka_unit_test(test_malformed_ack_model_is_refused_naming_the_field),
        cmocka_unit_test(test_ack_model_descriptive_fields_of_another_type_are_refused),
        cmocka_unit_test(test_shipped_models_load_only_as_what_they_model),
        cmocka_unit_test(test_model_of_another_kind_is_refused),
        cmocka_unit_test(test_sta_frame_model_with_a_per_sta_count_table_is_refused_naming_it),
        cmocka_unit_test(test_model_without_a_kind_is_refused_naming_the_member_and_the_kind_expected),
        cmocka_unit_test(test_ack_model_threshold_out_of_range_is_refused_stating_the_open_interval),
        cmocka_unit_test(test_ack_model_with_a_member_twice_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
