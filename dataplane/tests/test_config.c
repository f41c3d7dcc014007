/* test_config.c — adw_config_check refuses a bad document whole, naming the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "adwiser/config.h"
#include "lab_config.h"

static char err[256];

static int setup(void **state)
{
    *state = lab_config_2ap_2sta(20);
    return *state == NULL;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void expect_error(const struct adw_config *c, const char *fragment)
{
    assert_int_equal(adw_config_check(c, err, sizeof(err)), -1);
    if (strstr(err, fragment) == NULL)
        fail_msg("error \"%s\" does not name \"%s\"", err, fragment);
}

static void test_lab_config_is_valid(void **state)
{
    assert_int_equal(adw_config_check(*state, err, sizeof(err)), 0);
    assert_string_equal(err, "");
}

static void test_conflicting_pairs_in_one_slice_are_refused(void **state)
{
    struct adw_config *c = *state;
    c->slices[0].n_pairs = 2;
    c->slices[0].pairs[1] = 1;
    expect_error(c, "slice_map.slices[0]: pairs ap1/sta1 and ap2/sta2 conflict");
}

static void test_pair_in_no_slice_is_refused(void **state)
{
    struct adw_config *c = *state;
    c->n_slices = 1;
    expect_error(c, "ap2/sta2 is in no slice");
}

static void test_unknown_pair_index_is_refused(void **state)
{
    struct adw_config *c = *state;
    c->slices[1].pairs[0] = 9;
    expect_error(c, "slice_map.slices[1].pairs[0]: pair index 9 out of range");
}

static void test_slice_duration_bounds_are_checked(void **state)
{
    struct adw_config *c = *state;
    c->slices[1].duration_ns = 600000000ull;
    expect_error(c, "slice_map.slices[1].duration_ms");
    c->slices[1].duration_ns = 0;
    expect_error(c, "slice_map.slices[1].duration_ms");
}

static void test_frame_longer_than_a_second_is_refused(void **state)
{
    struct adw_config *c = *state;
    c->slices[0].duration_ns = c->slices[1].duration_ns = 500000000ull;
    c->n_slices = 3;
    c->slices[2] = c->slices[0];
    expect_error(c, "exceeds 1000 ms");
}

static void test_duplicate_mac_is_refused(void **state)
{
    struct adw_config *c = *state;
    memcpy(c->stas[1].mac, c->stas[0].mac, 6);
    expect_error(c, "topology.stas[1].mac");
}

static void test_address_of_two_stas_is_refused(void **state)
{
    struct adw_config *c = *state;
    c->stas[1].n_addrs = 2;
    c->stas[1].addrs[1] = c->stas[0].addrs[0];
    expect_error(c, "topology.stas[1].ips[1]: address also listed by stas[0]");
}

static void test_sta_of_unknown_ap_is_refused(void **state)
{
    struct adw_config *c = *state;
    c->stas[1].ap = 5;
    expect_error(c, "topology.stas[1].ap");
}

static void test_policy_bounds_are_checked(void **state)
{
    struct adw_config *c = *state;
    c->policies.ts_abr_qd.r_init_pkts = 5000;
    expect_error(c, "policies.ts_abr_qd.r_init_pkts");
    c->policies.ts_abr_qd.r_init_pkts = 40;
    c->policies.ts_abr_qd.a_pkts_per_ms = 0;
    expect_error(c, "policies.ts_abr_qd.a_pkts_per_ms");
    c->policies.ts_abr_qd.a_pkts_per_ms = 1;
    c->policies.queue_sizing.q_min_pkts = 10000;
    expect_error(c, "policies.queue_sizing.q_min_pkts");
    c->policies.queue_sizing.q_min_pkts = 32;
    c->policies.realtime.dscp[0] = 64;
    expect_error(c, "policies.realtime.dscp[0]");
}

/* The schema's uniqueItems: a DSCP or UDP port listed twice is refused, naming the repeat. */
static void test_realtime_dscp_or_udp_port_listed_twice_is_refused(void **state)
{
    struct adw_config *c = *state;
    struct adw_realtime_policy *r = &c->policies.realtime;
    r->n_dscp = 3;
    r->dscp[0] = 46;
    r->dscp[1] = 34;
    r->dscp[2] = 46;
    expect_error(c, "policies.realtime.dscp[2]: 46 is already dscp[0]");
    r->n_dscp = 2;
    r->n_udp_ports = 2;
    r->udp_ports[0] = 5004;
    r->udp_ports[1] = 5004;
    expect_error(c, "policies.realtime.udp_ports[1]: 5004 is already udp_ports[0]");
    r->udp_ports[1] = 5005;
    assert_int_equal(adw_config_check(c, err, sizeof(err)), 0);
}

/* A pair at most once in a slice and in each policy's list (the models' rule), naming the repeat. */
static void test_pair_listed_twice_in_a_slice_or_a_policy_is_refused(void **state)
{
    struct adw_config *c = *state;
    c->slices[0].n_pairs = 2;
    c->slices[0].pairs[1] = c->slices[0].pairs[0];
    expect_error(c, "slice_map.slices[0].pairs[1]: ap1/sta1 listed twice");
    c->slices[0].n_pairs = 1;
    struct adw_dynslice_policy *d = &c->policies.dynamic_slicing;
    d->n_pairs = 2;
    d->pairs[0] = d->pairs[1] = 1;
    expect_error(c, "policies.dynamic_slicing.pairs[1]: ap2/sta2 listed twice");
    d->pairs[0] = 0;
    assert_int_equal(adw_config_check(c, err, sizeof(err)), 0);
    struct adw_aggregation_policy *a = &c->policies.aggregation_target;
    a->n_pairs = 2;
    a->pairs[0] = a->pairs[1] = 0;
    expect_error(c, "policies.aggregation_target.pairs[1]: ap1/sta1 listed twice");
}

/* The JSON loader refuses these outside its bounds; a document built in code (tests, the simulation, a caller of the
 * core) is held to the same ones, with NaN refused too. */
static void test_aggregation_target_out_of_bounds_is_refused_naming_the_field(void **state)
{
    struct adw_config *c = *state;
    struct adw_aggregation_policy *a = &c->policies.aggregation_target;
    const struct adw_aggregation_policy ok = *a;
    a->n_target_max = 0;
    expect_error(c, "policies.aggregation_target.n_target_max: 0 outside [1, 256]");
    a->n_target_max = 257;
    expect_error(c, "policies.aggregation_target.n_target_max: 257 outside [1, 256]");
    a->n_target_max = 256;
    assert_int_equal(adw_config_check(c, err, sizeof(err)), 0);
    *a = ok;
    a->t_bar_ms = 0;
    expect_error(c, "policies.aggregation_target.t_bar_ms: 0 outside (0, 1000]");
    a->t_bar_ms = 1000.5;
    expect_error(c, "policies.aggregation_target.t_bar_ms");
    a->t_bar_ms = NAN;
    expect_error(c, "policies.aggregation_target.t_bar_ms");
    *a = ok;
    a->k1 = 2.0;
    expect_error(c, "policies.aggregation_target.k1: 2 outside (0, 2)");
    *a = ok;
    a->k2 = -0.1;
    expect_error(c, "policies.aggregation_target.k2");
    a->k2 = 1.0;
    expect_error(c, "policies.aggregation_target.k2: 1 outside (0, 1)");
    *a = ok;
    a->delta_s = 0.001;
    expect_error(c, "policies.aggregation_target.delta_s: 0.001 outside [0.01, 60]");
    a->delta_s = 61;
    expect_error(c, "policies.aggregation_target.delta_s");
    *a = ok;
    assert_int_equal(adw_config_check(c, err, sizeof(err)), 0);
}

/*
 * A document at the schema's capacity, which the controller accepts: 4096 pairs, 16384 conflicts (each of pairs
 * 0..127 with each of 128..255), 64 slices each holding the 3840 pairs 256.. and a few of the conflicting ones.
 * Accepted whole, and one conflicting pair put in the wrong slice is refused naming both. (The check runs twice on
 * a change, the second time on the packet loop's thread: comparing every conflict with every pair of every slice
 * took 4e9 steps for this document, 13 s under ASan; its speed is not asserted here, see config.c.)
 */
static void test_full_capacity_document_passes_and_a_slice_conflict_is_named(void **state)
{
    struct adw_config *c = *state;
    c->n_aps = 8;
    for (unsigned i = 0; i < c->n_aps; i++) {
        snprintf(c->aps[i].id, ADW_ID_LEN, "a%u", i);
        snprintf(c->aps[i].port, ADW_PORT_NAME_LEN, "p%u", i);
    }
    c->n_stas = ADW_MAX_STAS;
    for (unsigned k = 0; k < ADW_MAX_STAS; k++) {
        struct adw_sta_cfg *s = &c->stas[k];
        snprintf(s->id, ADW_ID_LEN, "s%u", k);
        memcpy(s->mac, (uint8_t[6]){2, 0, 0, 0, (uint8_t)(k >> 8), (uint8_t)k}, 6);
        s->n_addrs = 0;
        s->ap = (uint16_t)(k % c->n_aps);
    }
    c->n_conflicts = ADW_MAX_CONFLICTS;
    for (unsigned i = 0; i < 128; i++)
        for (unsigned j = 0; j < 128; j++)
            c->conflicts[i * 128 + j] = (struct adw_conflict_cfg){(uint16_t)i, (uint16_t)(128 + j)};
    c->n_slices = ADW_MAX_SLICES;
    for (unsigned s = 0; s < ADW_MAX_SLICES; s++) {
        struct adw_slice_cfg *sl = &c->slices[s];
        sl->duration_ns = 15000000ull;
        sl->n_pairs = 0;
        for (unsigned i = s % 32; i < 128; i += 32)   /* one side of the conflicts only */
            sl->pairs[sl->n_pairs++] = (uint16_t)(s < 32 ? i : 128 + i);
        for (unsigned k = 256; k < ADW_MAX_STAS; k++)
            sl->pairs[sl->n_pairs++] = (uint16_t)k;
    }
    assert_int_equal(adw_config_check(c, err, sizeof(err)), 0);
    /* The same document with one conflicting pair in the wrong slice is still refused, naming both. */
    c->slices[63].pairs[c->slices[63].n_pairs++] = 31;
    expect_error(c, "slice_map.slices[63]: pairs a7/s31 and a");
}

static void test_wrong_schema_version_is_refused(void **state)
{
    struct adw_config *c = *state;
    c->schema_version = 2;
    expect_error(c, "schema_version");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lab_config_is_valid, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conflicting_pairs_in_one_slice_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pair_in_no_slice_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_pair_index_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_slice_duration_bounds_are_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame_longer_than_a_second_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duplicate_mac_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_address_of_two_stas_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sta_of_unknown_ap_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_policy_bounds_are_checked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_realtime_dscp_or_udp_port_listed_twice_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pair_listed_twice_in_a_slice_or_a_policy_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_aggregation_target_out_of_bounds_is_refused_naming_the_field, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_wrong_schema_version_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_capacity_document_passes_and_a_slice_conflict_is_named, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
