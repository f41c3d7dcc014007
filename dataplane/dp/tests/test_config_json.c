/*
 * The configuration loader (dp/config_json.c) against the lab document and
 * against every kind of invalid field.  The lab JSON is configs/lab-2ap-2sta.yaml
 * converted by dp.mk ($ADW_LAB_JSON); the schema is
 * configs/schema/adwiser-config.schema.json ($ADW_SCHEMA): for every object
 * of the document, each field the schema requires is removed in turn and an
 * unknown field added, and the loader must refuse naming exactly that field,
 * so the loader cannot drift from the schema unnoticed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "config_json.h"

static json_t *lab_doc(void)
{
    const char *path = getenv("ADW_LAB_JSON");
    assert_non_null(path);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc)
        fail_msg("cannot read %s: %s", path, je.text);
    return doc;
}

/* The object or array element at a path like "topology.aps[1]" ("" = root). */
static json_t *at(json_t *root, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", path);
    json_t *v = root;
    for (char *tok = strtok(buf, "."); tok && v; tok = strtok(NULL, ".")) {
        char *br = strchr(tok, '[');
        if (br)
            *br = '\0';
        v = json_object_get(v, tok);
        while (br && v) {
            v = json_array_get(v, strtoul(br + 1, NULL, 10));
            br = strchr(br + 1, '[');
        }
    }
    return v;
}

/* Loads doc; returns the loader's rc, the message in err. */
static int load(json_t *doc, struct adw_config *cfg, char *err, size_t errlen)
{
    char *text = json_dumps(doc, 0);
    int rc = config_json_parse(text, cfg, err, errlen);
    free(text);
    return rc;
}

static void assert_refused(json_t *doc, const char *expect_prefix, const char *expect_words)
{
    struct adw_config *cfg = config_json_alloc();
    char err[512] = "";
    int rc = load(doc, cfg, err, sizeof(err));
    if (rc == 0)
        fail_msg("accepted, expected a refusal naming '%s'", expect_prefix);
    if (strncmp(err, expect_prefix, strlen(expect_prefix)) != 0)
        fail_msg("error '%s' does not start with '%s'", err, expect_prefix);
    if (expect_words && !strstr(err, expect_words))
        fail_msg("error '%s' does not say '%s'", err, expect_words);
    /* Refused whole: nothing half-filled is left. */
    assert_int_equal(cfg->n_aps, 0);
    assert_int_equal(cfg->n_stas, 0);
    assert_int_equal(cfg->n_slices, 0);
    free(cfg);
}

static void test_lab_document_loads_every_field(void **state)
{
    (void)state;
    json_t *doc = lab_doc();
    struct adw_config *cfg = config_json_alloc();
    char err[512] = "";
    if (load(doc, cfg, err, sizeof(err)) != 0)
        fail_msg("lab document refused: %s", err);
    assert_int_equal(cfg->schema_version, 1);
    assert_string_equal(cfg->appliance_id, "lab");
    assert_int_equal(cfg->n_aps, 2);
    assert_string_equal(cfg->aps[1].id, "ap2");
    assert_string_equal(cfg->aps[0].port, "ap1");
    assert_int_equal(cfg->aps[0].channel, 36);
    assert_int_equal(cfg->aps[0].vlan, 0);
    assert_int_equal(cfg->n_stas, 2);
    static const uint8_t mac2[6] = {0x02, 0xad, 0x00, 0x00, 0x02, 0x01};
    assert_memory_equal(cfg->stas[1].mac, mac2, 6);
    assert_int_equal(cfg->stas[1].ap, 1);
    assert_int_equal(cfg->stas[0].n_addrs, 1);
    assert_int_equal(cfg->stas[0].addrs[0].family, 4);
    static const uint8_t ip1[4] = {198, 18, 0, 11};
    assert_memory_equal(cfg->stas[0].addrs[0].addr, ip1, 4);
    assert_int_equal(cfg->n_conflicts, 1);
    assert_int_equal(cfg->conflicts[0].a, 0);
    assert_int_equal(cfg->conflicts[0].b, 1);
    assert_int_equal(cfg->n_slices, 2);
    assert_int_equal(cfg->slices[0].duration_ns, 20000000u);
    assert_int_equal(cfg->slices[1].n_pairs, 1);
    assert_int_equal(cfg->slices[1].pairs[0], 1);
    assert_true(cfg->policies.ts_abr_qd.a_pkts_per_ms == 1.0);
    assert_int_equal(cfg->policies.ts_abr_qd.r_init_pkts, 40);
    assert_int_equal(cfg->policies.ts_abr_qd.r_max_pkts, 2048);
    assert_true(cfg->policies.ts_abr_qd.v_cap_factor == 3.0);
    assert_false(cfg->policies.ts_abr_qd.early_handover); /* absent: slices start on the clock */
    assert_int_equal(cfg->policies.realtime.n_dscp, 1);
    assert_int_equal(cfg->policies.realtime.dscp[0], 46);
    assert_true(cfg->policies.realtime.hold_max_fraction == ADW_RT_HOLD_MAX_FRACTION_DEFAULT); /* absent: default */
    assert_int_equal(cfg->policies.realtime.guard_us, ADW_RT_GUARD_US_DEFAULT);
    assert_int_equal(cfg->policies.queue_sizing.t_max_ns, 200000000u);
    assert_int_equal(cfg->policies.queue_sizing.q_max_pkts, 4096);
    assert_false(cfg->policies.dynamic_slicing.enabled);
    assert_int_equal(cfg->policies.aggregation_target.n_target_max, 48);
    free(cfg);
    json_decref(doc);
}

/* Objects of the lab document and the schema definition each must satisfy. */
static const struct {
    const char *path;   /* object in the document */
    const char *def;    /* $defs entry of the schema, NULL = the root */
} SCHEMA_OBJECTS[] = {
    {"", NULL},
    {"topology", "Topology"},
    {"topology.aps[0]", "AccessPoint"},
    {"topology.stas[1]", "Station"},
    {"slice_map", "SliceMap"},
    {"slice_map.slices[0]", "Slice"},
    {"policies", "Policies"},
    {"policies.ts_abr_qd", "TsAbrQd"},
    {"policies.dynamic_slicing", "DynamicSlicing"},
    {"policies.realtime", "Realtime"},
    {"policies.queue_sizing", "QueueSizing"},
    {"policies.aggregation_target", "AggregationTarget"},
};

static json_t *schema_def(json_t *schema, const char *def)
{
    return def ? json_object_get(json_object_get(schema, "$defs"), def) : schema;
}

static void test_each_field_the_schema_requires_is_named_when_missing(void **state)
{
    (void)state;
    json_error_t je;
    json_t *schema = json_load_file(getenv("ADW_SCHEMA"), 0, &je);
    if (!schema)
        fail_msg("cannot read the schema: %s", je.text);
    unsigned checked = 0;
    for (size_t o = 0; o < sizeof(SCHEMA_OBJECTS) / sizeof(SCHEMA_OBJECTS[0]); o++) {
        json_t *def = schema_def(schema, SCHEMA_OBJECTS[o].def);
        assert_non_null(def);
        size_t i;
        json_t *req;
        json_array_foreach(json_object_get(def, "required"), i, req) {
            json_t *doc = lab_doc();
            const char *key = json_string_value(req);
            assert_int_equal(json_object_del(at(doc, SCHEMA_OBJECTS[o].path), key), 0);
            char expect[256];
            snprintf(expect, sizeof(expect), "%s%s%s: ", SCHEMA_OBJECTS[o].path, SCHEMA_OBJECTS[o].path[0] ? "." : "",
                     key);
            assert_refused(doc, expect, "missing required field");
            json_decref(doc);
            checked++;
        }
    }
    assert_true(checked >= 30);
    json_decref(schema);
}

static void test_unknown_field_is_named_in_every_object(void **state)
{
    (void)state;
    for (size_t o = 0; o < sizeof(SCHEMA_OBJECTS) / sizeof(SCHEMA_OBJECTS[0]); o++) {
        json_t *doc = lab_doc();
        json_object_set_new(at(doc, SCHEMA_OBJECTS[o].path), "colour", json_string("blue"));
        char expect[256];
        snprintf(expect, sizeof(expect), "%s%scolour: ", SCHEMA_OBJECTS[o].path, SCHEMA_OBJECTS[o].path[0] ? "." : "");
        assert_refused(doc, expect, "unknown field");
        json_decref(doc);
    }
}

static void test_optional_fields_may_be_absent_or_present(void **state)
{
    (void)state;
    /* A field the schema does not require, absent: accepted (documents the controller accepts must load). */
    json_error_t je;
    json_t *schema = json_load_file(getenv("ADW_SCHEMA"), 0, &je);
    assert_non_null(schema);
    struct adw_config *cfg = config_json_alloc();
    char err[512];
    unsigned checked = 0;
    for (size_t o = 0; o < sizeof(SCHEMA_OBJECTS) / sizeof(SCHEMA_OBJECTS[0]); o++) {
        json_t *def = schema_def(schema, SCHEMA_OBJECTS[o].def);
        json_t *required = json_object_get(def, "required");
        const char *key;
        json_t *v;
        json_object_foreach(json_object_get(def, "properties"), key, v) {
            int is_required = 0;
            size_t i;
            json_t *r;
            json_array_foreach(required, i, r)
                is_required |= strcmp(json_string_value(r), key) == 0;
            if (is_required)
                continue;
            json_t *doc = lab_doc();
            json_object_del(at(doc, SCHEMA_OBJECTS[o].path), key);
            if (load(doc, cfg, err, sizeof(err)) != 0)
                fail_msg("optional %s.%s absent: refused: %s", SCHEMA_OBJECTS[o].path, key, err);
            json_decref(doc);
            checked++;
        }
    }
    assert_true(checked >= 5);
    /* And present with their schema types. */
    json_t *doc = lab_doc();
    json_object_set_new(at(doc, "policies.aggregation_target"), "overrides",
                        json_pack("[{s:[s], s:i, s:f}]", "pairs", "ap1/sta1", "n_target_max", 32,
                                  "t_bar_ms", 5.0));
    json_object_set_new(at(doc, "topology.aps[0]"), "vlan", json_integer(100));
    json_object_set_new(at(doc, "topology.aps[0]"), "ampdu_ceiling_mpdus", json_real(38.5));
    json_object_set_new(at(doc, "topology.aps[0]"), "ampdu_ceiling_us", json_real(1450.0));
    json_object_set_new(at(doc, "policies.realtime"), "hold_max_fraction", json_real(0.5));
    json_object_set_new(at(doc, "policies.realtime"), "guard_us", json_integer(150));
    json_object_set_new(at(doc, "policies.ts_abr_qd"), "early_handover", json_true());
    json_object_set_new(at(doc, "topology.aps[0]"), "name", json_string("AP one"));
    if (load(doc, cfg, err, sizeof(err)) != 0)
        fail_msg("optional fields refused: %s", err);
    assert_int_equal(cfg->aps[0].vlan, 100);
    assert_true(cfg->policies.realtime.hold_max_fraction == 0.5);
    assert_int_equal(cfg->policies.realtime.guard_us, 150);
    assert_true(cfg->policies.ts_abr_qd.early_handover);
    free(cfg);
    json_decref(doc);
    json_decref(schema);
}

/* One invalid value of each kind: path to set, JSON value, expected message start and words. */
static const struct {
    const char *object;
    const char *key;
    const char *value_json;
    const char *expect;
    const char *words;
} BAD_VALUES[] = {
    {"policies.ts_abr_qd", "r_init_pkts", "\"40\"", "policies.ts_abr_qd.r_init_pkts: ", "expected an integer"},
    {"policies.ts_abr_qd", "a_pkts_per_ms", "0", "policies.ts_abr_qd.a_pkts_per_ms: ", "outside"},
    {"policies.ts_abr_qd", "a_pkts_per_ms", "true", "policies.ts_abr_qd.a_pkts_per_ms: ", "expected a number"},
    {"policies.ts_abr_qd", "v_cap_factor", "1.0", "policies.ts_abr_qd.v_cap_factor: ", "outside"},
    {"slice_map.slices[0]", "duration_ms", "0", "slice_map.slices[0].duration_ms: ", "outside"},
    {"slice_map.slices[0]", "duration_ms", "20.5", "slice_map.slices[0].duration_ms: ", "expected an integer"},
    {"slice_map.slices[1]", "pairs", "[]", "slice_map.slices[1].pairs: ", "at least 1"},
    {"slice_map.slices[1]", "pairs", "[\"ap2/sta9\"]", "slice_map.slices[1].pairs[0]: ", "no STA 'sta9'"},
    {"slice_map.slices[1]", "pairs", "[\"ap1/sta2\"]", "slice_map.slices[1].pairs[0]: ", "not associated"},
    {"slice_map.slices[1]", "pairs", "[\"ap2-sta2\"]", "slice_map.slices[1].pairs[0]: ", "not a pair"},
    {"slice_map", "slices", "{}", "slice_map.slices: ", "expected an array"},
    {"topology.aps[0]", "channel", "300", "topology.aps[0].channel: ", "outside"},
    {"topology.aps[0]", "vlan", "4095", "topology.aps[0].vlan: ", "outside"},
    {"topology.aps[0]", "ampdu_ceiling_mpdus", "0.5", "topology.aps[0].ampdu_ceiling_mpdus: ", "outside"},
    {"topology.aps[0]", "ampdu_ceiling_us", "20000", "topology.aps[0].ampdu_ceiling_us: ", "outside"},
    {"topology.aps[1]", "id", "\"ap1\"", "topology.aps[1].id: ", "duplicate"},
    {"topology.aps[1]", "id", "\"-ap\"", "topology.aps[1].id: ", "not an identifier"},
    {"topology.stas[0]", "mac", "\"02:ad:00:00:01\"", "topology.stas[0].mac: ", "not a MAC"},
    {"topology.stas[0]", "mac", "\"01:00:5e:00:00:01\"", "topology.stas[0].mac: ", "unicast"},
    {"topology.stas[0]", "ips", "[\"198.18.0.300\"]", "topology.stas[0].ips[0]: ", "not an IPv4 or IPv6"},
    {"topology.stas[0]", "ips", "\"198.18.0.11\"", "topology.stas[0].ips: ", "expected an array"},
    {"topology.stas[1]", "ap", "\"ap7\"", "topology.stas[1].ap: ", "no AP 'ap7'"},
    {"topology.stas[0]", "phy_rate_mbps", "0.5", "topology.stas[0].phy_rate_mbps: ", "outside [1, 10000]"},
    {"topology.stas[0]", "phy_rate_mbps", "5e-324", "topology.stas[0].phy_rate_mbps: ", "outside [1, 10000]"},
    {"topology.stas[1]", "id", "\"sta1\"", "topology.stas[1]: ", "duplicate STA id"},
    {"topology", "conflicts", "[[\"ap1/sta1\"]]", "topology.conflicts[0]: ", "exactly two"},
    {"policies.realtime", "dscp", "[64]", "policies.realtime.dscp[0]: ", "outside"},
    {"policies.realtime", "udp_ports", "[0]", "policies.realtime.udp_ports[0]: ", "outside"},
    {"policies.realtime", "hold_max_fraction", "1.5", "policies.realtime.hold_max_fraction: ", "outside"},
    {"policies.realtime", "guard_us", "10001", "policies.realtime.guard_us: ", "outside"},
    {"policies.realtime", "guard_us", "2.5", "policies.realtime.guard_us: ", "expected an integer"},
    {"policies.dynamic_slicing", "enabled", "\"yes\"", "policies.dynamic_slicing.enabled: ", "expected a boolean"},
    {"policies.ts_abr_qd", "early_handover", "1", "policies.ts_abr_qd.early_handover: ", "expected a boolean"},
    {"policies.queue_sizing", "ewma_alpha", "1.5", "policies.queue_sizing.ewma_alpha: ", "outside"},
    {"policies.aggregation_target", "k1", "2.0", "policies.aggregation_target.k1: ", "outside (0, 2)"},
    {"policies.aggregation_target", "k2", "1.0", "policies.aggregation_target.k2: ", "outside (0, 1)"},
    {"", "schema_version", "2", "schema_version: ", "outside"},
    {"", "topology", "[]", "topology: ", "expected an object"},
};

static void test_each_kind_of_invalid_value_is_refused_whole_with_its_path(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(BAD_VALUES) / sizeof(BAD_VALUES[0]); i++) {
        json_t *doc = lab_doc();
        json_error_t je;
        json_t *v = json_loads(BAD_VALUES[i].value_json, JSON_DECODE_ANY, &je);
        assert_non_null(v);
        json_object_set_new(at(doc, BAD_VALUES[i].object), BAD_VALUES[i].key, v);
        assert_refused(doc, BAD_VALUES[i].expect, BAD_VALUES[i].words);
        json_decref(doc);
    }
}

static void test_conflicting_pairs_in_one_slice_are_refused_by_the_core_check(void **state)
{
    (void)state;
    json_t *doc = lab_doc();
    json_array_append_new(json_object_get(at(doc, "slice_map.slices[0]"), "pairs"), json_string("ap2/sta2"));
    assert_refused(doc, "slice_map.slices[0]", "conflict");
    json_decref(doc);
}

/* The lab document with both APs on port trunk0 with VLANs vlan0 and vlan1 (0 = untagged). */
static json_t *lab_on_one_port(int vlan0, int vlan1)
{
    json_t *doc = lab_doc();
    const int vlans[2] = {vlan0, vlan1};
    for (int k = 0; k < 2; k++) {
        json_t *ap = json_array_get(at(doc, "topology.aps"), (size_t)k);
        json_object_set_new(ap, "port", json_string("trunk0"));
        json_object_set_new(ap, "vlan", vlans[k] ? json_integer(vlans[k]) : json_null());
    }
    return doc;
}

/* Frames of two APs on one port and VLAN cannot be told apart (DPDK: one VLAN id on one port; NFQUEUE: one
 * interface <port>.<vlan>), so the document is refused, as the DPDK start refused it and the controller does. */
static void test_two_aps_on_one_port_and_vlan_are_refused_naming_the_second_aps_vlan(void **state)
{
    (void)state;
    json_t *doc = lab_on_one_port(101, 101);
    assert_refused(doc, "topology.aps[1].vlan: AP 'ap2' has the port and VLAN of AP 'ap1'", "(port 'trunk0', vlan 101)");
    json_decref(doc);
    doc = lab_on_one_port(0, 0);
    assert_refused(doc, "topology.aps[1].vlan: AP 'ap2' has the port and VLAN of AP 'ap1'", "(port 'trunk0', untagged)");
    json_decref(doc);

    struct adw_config *cfg = config_json_alloc();
    char err[512] = "";
    const int allowed[][2] = {{101, 102}, {0, 102}, {101, 0}};
    for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
        doc = lab_on_one_port(allowed[i][0], allowed[i][1]);
        if (load(doc, cfg, err, sizeof(err)) != 0)
            fail_msg("VLANs %d and %d on one port refused: %s", allowed[i][0], allowed[i][1], err);
        json_decref(doc);
    }
    /* One VLAN id on two ports is two links. */
    doc = lab_doc();
    json_object_set_new(at(doc, "topology.aps[0]"), "vlan", json_integer(101));
    json_object_set_new(at(doc, "topology.aps[1]"), "vlan", json_integer(101));
    if (load(doc, cfg, err, sizeof(err)) != 0)
        fail_msg("one VLAN on two ports refused: %s", err);
    json_decref(doc);
    free(cfg);
}

static void test_values_just_inside_an_exclusive_bound_are_accepted(void **state)
{
    (void)state;
    json_t *doc = lab_doc();
    json_object_set_new(at(doc, "policies.ts_abr_qd"), "a_pkts_per_ms", json_real(1e-13));
    json_object_set_new(at(doc, "policies.ts_abr_qd"), "v_cap_factor", json_real(nextafter(1.0, 2.0)));
    json_object_set_new(at(doc, "policies.queue_sizing"), "t_max_ms", json_real(1e-9));
    json_object_set_new(at(doc, "policies.aggregation_target"), "k1", json_real(nextafter(2.0, 0.0)));
    json_object_set_new(at(doc, "policies.aggregation_target"), "k2", json_real(nextafter(1.0, 0.0)));
    struct adw_config *cfg = config_json_alloc();
    char err[512] = "";
    if (load(doc, cfg, err, sizeof(err)) != 0)
        fail_msg("a value the schema allows (exclusiveMinimum, exclusiveMaximum) was refused: %s", err);
    assert_true(cfg->policies.queue_sizing.t_max_ns >= 1);
    free(cfg);
    json_decref(doc);
}

/* An AP name is bounded in characters, as the schema's maxLength counts them (and ansible's check before it): 128 x
 * 'é' is 256 bytes and valid, 129 is refused naming the count in characters, as is a name past the copy's bytes. */
static void test_ap_name_is_bounded_in_characters_as_the_schema_counts_them(void **state)
{
    (void)state;
    char name[4 * 200 + 1] = "";
    for (int i = 0; i < 128; i++)
        strcat(name, "\xc3\xa9");
    json_t *doc = lab_doc();
    json_object_set_new(at(doc, "topology.aps[0]"), "name", json_string(name));
    struct adw_config *cfg = config_json_alloc();
    char err[512] = "";
    if (load(doc, cfg, err, sizeof(err)) != 0)
        fail_msg("a name of 128 characters (256 bytes) was refused: %s", err);
    free(cfg);
    strcat(name, "\xc3\xa9");
    json_object_set_new(at(doc, "topology.aps[0]"), "name", json_string(name));
    assert_refused(doc, "topology.aps[0].name", "129 characters, at most 128 allowed");
    name[0] = '\0';
    for (int i = 0; i < 200; i++)
        strcat(name, "\xf0\x9f\x93\xb6");   /* 800 bytes */
    json_object_set_new(at(doc, "topology.aps[0]"), "name", json_string(name));
    assert_refused(doc, "topology.aps[0].name", "200 characters, at most 128 allowed");
    json_decref(doc);
}

/* JSON Schema's "integer" is any number with a zero fractional part, so 20.0 is as valid as 20 for the schema
 * (and for ansible's validator, which passes such documents on): the loader must read it the same. */
static void test_integers_written_with_a_zero_fraction_are_accepted_as_the_schema_does(void **state)
{
    (void)state;
    json_t *doc = lab_doc();
    json_object_set_new(doc, "schema_version", json_real(1.0));
    json_object_set_new(at(doc, "slice_map.slices[0]"), "duration_ms", json_real(25.0));
    json_object_set_new(at(doc, "topology.aps[0]"), "channel", json_real(40.0));
    json_object_set_new(at(doc, "topology.aps[0]"), "vlan", json_real(100.0));
    json_object_set_new(at(doc, "policies.ts_abr_qd"), "r_init_pkts", json_real(64.0));
    json_object_set_new(at(doc, "policies.realtime"), "guard_us", json_real(250.0));
    json_object_set_new(at(doc, "policies.realtime"), "dscp", json_pack("[f]", 46.0));
    struct adw_config *cfg = config_json_alloc();
    char err[512] = "";
    if (load(doc, cfg, err, sizeof(err)) != 0)
        fail_msg("an integer the schema allows, written as 25.0, was refused: %s", err);
    assert_int_equal(cfg->slices[0].duration_ns, 25000000u);
    assert_int_equal(cfg->aps[0].channel, 40);
    assert_int_equal(cfg->aps[0].vlan, 100);
    assert_int_equal(cfg->policies.ts_abr_qd.r_init_pkts, 64);
    assert_int_equal(cfg->policies.realtime.guard_us, 250);
    assert_int_equal(cfg->policies.realtime.dscp[0], 46);
    json_object_set_new(at(doc, "topology.aps[0]"), "vlan", json_real(4095.0));
    assert_refused(doc, "topology.aps[0].vlan: ", "outside");
    json_object_set_new(at(doc, "topology.aps[0]"), "vlan", json_real(1e300));
    assert_refused(doc, "topology.aps[0].vlan: ", "outside");
    free(cfg);
    json_decref(doc);
}

static void test_malformed_json_is_refused_with_its_position(void **state)
{
    (void)state;
    struct adw_config *cfg = config_json_alloc();
    char err[512];
    assert_int_equal(config_json_parse("{\"schema_version\": 1,\n \"appliance_id\": }", cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "line 2"));
    assert_int_equal(config_json_parse("{\"a\": 1, \"a\": 2}", cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "duplicate"));
    assert_int_equal(config_json_parse("[1, 2]", cfg, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "(document): expected an object"));
    assert_int_equal(config_json_load_file("/nonexistent/adwiser.json", cfg, err, sizeof(err)), -1);
    free(cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lab_document_loads_every_field),
        cmocka_unit_test(test_each_field_the_schema_requires_is_named_when_missing),
        cmocka_unit_test(test_unknown_field_is_named_in_every_object),
        cmocka_unit_test(test_optional_fields_may_be_absent_or_present),
        cmocka_unit_test(test_each_kind_of_invalid_value_is_refused_whole_with_its_path),
        cmocka_unit_test(test_conflicting_pairs_in_one_slice_are_refused_by_the_core_check),
        cmocka_unit_test(test_two_aps_on_one_port_and_vlan_are_refused_naming_the_second_aps_vlan),
        cmocka_unit_test(test_values_just_inside_an_exclusive_bound_are_accepted),
        cmocka_unit_test(test_ap_name_is_bounded_in_characters_as_the_schema_counts_them),
        cmocka_unit_test(test_integers_written_with_a_zero_fraction_are_accepted_as_the_schema_does),
        cmocka_unit_test(test_malformed_json_is_refused_with_its_position),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
