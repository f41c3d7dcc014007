/*
 * test_flow_tables.c — the hash-indexed tables of the packet path: the STA
 * table by MAC (pair_table.c), a pair's drain flow table (drain.c) and its
 * ACK-estimator flow table (ack_burst.c). Keys that share a hash are told
 * apart by the full key, a full table takes the documented victim, and what is
 * evicted or reset is no longer found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ack_burst.h"
#include "drain.h"
#include "flow_hash.h"
#include "pair_table.h"

#define US 1000ull

static struct adw_flow_key flow(uint16_t sta_port)
{
    struct adw_flow_key k = {.family = 4, .srv_port = 80, .sta_port = sta_port};
    k.srv_ip[0] = 198, k.srv_ip[1] = 18, k.srv_ip[3] = 1;
    k.sta_ip[0] = 198, k.sta_ip[1] = 18, k.sta_ip[3] = 11;
    return k;
}

static struct adw_flow_key flow6(uint16_t sta_port)
{
    struct adw_flow_key k = {.family = 6, .srv_port = 80, .sta_port = sta_port};
    k.srv_ip[0] = 0x20, k.srv_ip[1] = 0x01, k.srv_ip[2] = 0x02, k.srv_ip[15] = 1;
    k.sta_ip[0] = 0x20, k.sta_ip[1] = 0x01, k.sta_ip[2] = 0x02, k.sta_ip[15] = 11;
    return k;
}

static void release_one(struct adw_drain *d, struct adw_flow_key k, uint64_t now_ns)
{
    struct adw_tcp_meta m = {.is_tcp = true, .flags = ADW_TCP_ACK, .seq_end = 1448, .payload_len = 1448, .key = k};
    adw_drain_note_released(d, &m, now_ns);
}

static struct adw_drain *fresh_drain(uint64_t now_ns)
{
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, now_ns);
    return &d;
}

static void test_equal_keys_hash_equal_and_bytes_beyond_an_ipv4_address_do_not_count(void **st)
{
    (void)st;
    struct adw_flow_key a = flow(40000), b = flow(40000);
    b.srv_ip[8] = 0xee; /* not part of an IPv4 key (key_eq compares 4 bytes) */
    assert_int_equal(adw_flow_key_hash(&a), adw_flow_key_hash(&b));
    struct adw_flow_key c = flow(40001);
    assert_int_not_equal(adw_flow_key_hash(&a), adw_flow_key_hash(&c));
    struct adw_flow_key v6a = flow6(40000), v6b = flow6(40000);
    v6b.sta_ip[15] = 12;
    assert_int_not_equal(adw_flow_key_hash(&v6a), adw_flow_key_hash(&v6b));
}

static void test_drain_lookup_under_a_colliding_hash_finds_only_the_equal_key(void **st)
{
    (void)st;
    struct adw_drain *d = fresh_drain(0);
    struct adw_flow_key a = flow(40000), b = flow(40001);
    release_one(d, a, 1 * US);
    uint32_t ha = adw_flow_key_hash(&a);
    struct adw_drain_flow *fa = adw_drain_lookup(d, &a, ha);
    assert_non_null(fa);
    /* b looked up under a's hash: the index matches, the key does not. */
    assert_null(adw_drain_lookup(d, &b, ha));
    /* b under its own hash: not tracked yet. */
    assert_null(adw_drain_lookup(d, &b, adw_flow_key_hash(&b)));
    release_one(d, b, 2 * US);
    struct adw_drain_flow *fb = adw_drain_lookup(d, &b, adw_flow_key_hash(&b));
    assert_non_null(fb);
    assert_ptr_not_equal(fa, fb);
    assert_ptr_equal(adw_drain_lookup(d, &a, ha), fa);
}

static void test_drain_tracks_a_full_table_and_counts_the_flow_beyond_it(void **st)
{
    (void)st;
    struct adw_drain *d = fresh_drain(0);
    for (uint16_t i = 0; i < ADW_DRAIN_MAX_FLOWS; i++)
        release_one(d, flow((uint16_t)(40000 + i)), (1 + i) * US);
    assert_int_equal(d->n_tracked, ADW_DRAIN_MAX_FLOWS);
    assert_int_equal(d->untracked, 0);
    /* every entry is in this batch: none may be evicted */
    struct adw_flow_key extra = flow(50000);
    release_one(d, extra, 100 * US);
    assert_int_equal(d->untracked, 1);
    assert_null(adw_drain_lookup(d, &extra, adw_flow_key_hash(&extra)));
    for (uint16_t i = 0; i < ADW_DRAIN_MAX_FLOWS; i++) {
        struct adw_flow_key k = flow((uint16_t)(40000 + i));
        assert_non_null(adw_drain_lookup(d, &k, adw_flow_key_hash(&k)));
    }
}

static void test_full_drain_table_evicts_the_least_recently_seen_flow_outside_the_batch(void **st)
{
    (void)st;
    struct adw_drain *d = fresh_drain(0);
    for (uint16_t i = 0; i < ADW_DRAIN_MAX_FLOWS; i++)
        release_one(d, flow((uint16_t)(40000 + i)), (10 + i) * US);
    adw_drain_abandon(d);
    /* Next batch: flow 40000 (the oldest) is released again, so 40001 is now the least recently seen. */
    adw_drain_begin(d, 100 * US);
    release_one(d, flow(40000), 101 * US);
    struct adw_flow_key newcomer = flow(50000), evicted = flow(40001), kept = flow(40000);
    release_one(d, newcomer, 102 * US);
    assert_int_equal(d->untracked, 0);
    assert_non_null(adw_drain_lookup(d, &newcomer, adw_flow_key_hash(&newcomer)));
    assert_null(adw_drain_lookup(d, &evicted, adw_flow_key_hash(&evicted)));
    assert_non_null(adw_drain_lookup(d, &kept, adw_flow_key_hash(&kept)));
    for (uint16_t i = 2; i < ADW_DRAIN_MAX_FLOWS; i++) {
        struct adw_flow_key k = flow((uint16_t)(40000 + i));
        assert_non_null(adw_drain_lookup(d, &k, adw_flow_key_hash(&k)));
    }
    /* The evicted flow comes back as a fresh entry in place of the next least recently seen (40002). */
    release_one(d, evicted, 103 * US);
    struct adw_flow_key next = flow(40002);
    assert_non_null(adw_drain_lookup(d, &evicted, adw_flow_key_hash(&evicted)));
    assert_null(adw_drain_lookup(d, &next, adw_flow_key_hash(&next)));
}

static void test_drain_reset_forgets_every_flow(void **st)
{
    (void)st;
    struct adw_drain *d = fresh_drain(0);
    struct adw_flow_key a = flow(40000), v6 = flow6(40000);
    release_one(d, a, 1 * US);
    release_one(d, v6, 2 * US);
    assert_non_null(adw_drain_lookup(d, &v6, adw_flow_key_hash(&v6)));
    adw_drain_reset(d);
    assert_null(adw_drain_lookup(d, &a, adw_flow_key_hash(&a)));
    assert_null(adw_drain_lookup(d, &v6, adw_flow_key_hash(&v6)));
    assert_false(adw_drain_awaits_downlink_acks(d));
}

/* The STA's pure ACK of ackno on the flow at sta_port. */
static void sta_ack(struct adw_ack_est *e, uint16_t sta_port, uint32_t ackno, uint64_t now_ns)
{
    struct adw_tcp_meta m = {.is_tcp = true, .flags = ADW_TCP_ACK, .ack = ackno, .key = flow(sta_port)};
    adw_ack_est_observe_ack(e, NULL, &m, now_ns);
}

static void test_ack_estimator_replaces_the_least_recently_seen_flow_when_full(void **st)
{
    (void)st;
    struct adw_ack_est e;
    adw_ack_est_init(&e);
    for (uint16_t i = 0; i < ADW_ACK_FLOWS; i++)
        sta_ack(&e, (uint16_t)(40000 + i), 1000, (1 + i) * US);
    sta_ack(&e, 40000, 1000, 20 * US); /* 40000 seen again (a duplicate): 40001 is now the oldest */
    assert_int_equal(e.dup_acks, 1);
    sta_ack(&e, 50000, 1000, 21 * US); /* a ninth flow takes 40001's entry */
    /* A flow still in the table repeats its ACK: a duplicate. */
    sta_ack(&e, 40002, 1000, 22 * US);
    assert_int_equal(e.dup_acks, 2);
    /* The evicted flow's ACK is a first ACK again: no duplicate. */
    sta_ack(&e, 40001, 1000, 23 * US);
    assert_int_equal(e.dup_acks, 2);
    sta_ack(&e, 50000, 1000, 24 * US);
    assert_int_equal(e.dup_acks, 3);
}

static void test_ack_estimator_keeps_flows_apart_until_the_table_is_full(void **st)
{
    (void)st;
    struct adw_ack_est e;
    adw_ack_est_init(&e);
    for (uint16_t i = 0; i < ADW_ACK_FLOWS; i++)
        sta_ack(&e, (uint16_t)(40000 + i), 1000 + i, (1 + i) * US);
    for (uint16_t i = 0; i < ADW_ACK_FLOWS; i++)
        sta_ack(&e, (uint16_t)(40000 + i), 1000 + i, (20 + i) * US);
    assert_int_equal(e.dup_acks, ADW_ACK_FLOWS);
}

/* A configuration of n STAs with MACs 02:00:00:00:hi:lo and IPv4 198.18.hi.lo (no AP/slice data needed). */
static struct adw_config *stas(unsigned n)
{
    struct adw_config *c = calloc(1, sizeof(*c));
    assert_non_null(c);
    c->n_stas = (uint16_t)n;
    for (unsigned i = 0; i < n; i++) {
        struct adw_sta_cfg *s = &c->stas[i];
        uint8_t mac[6] = {0x02, 0, 0, 0, (uint8_t)(i >> 8), (uint8_t)i};
        memcpy(s->mac, mac, 6);
        s->n_addrs = 1;
        s->addrs[0].family = 4;
        uint8_t ip[4] = {198, 18, (uint8_t)(i >> 8), (uint8_t)i};
        memcpy(s->addrs[0].addr, ip, 4);
    }
    return c;
}

static void test_every_sta_of_a_full_table_is_found_by_mac_and_unknown_macs_are_not(void **st)
{
    (void)st;
    struct adw_config *c = stas(ADW_MAX_STAS);
    struct adw_pair_table t;
    assert_int_equal(adw_pair_table_build(&t, c), 0);
    unsigned probed_past_home = 0;
    for (unsigned i = 0; i < c->n_stas; i++) {
        assert_int_equal(adw_pair_by_mac(&t, c->stas[i].mac), i);
        if (adw_pair_by_mac(&t, c->stas[i].mac) != ADW_PAIR_NONE &&
            (t.mac[adw_mac_hash(c->stas[i].mac) & t.mac_mask].word >> 48) != i)
            probed_past_home++;
    }
    /* Linear probing was exercised: some STAs sit past their home slot (a hash collision). */
    assert_true(probed_past_home > 0);
    uint8_t unknown[6] = {0x02, 0, 0, 1, 0, 0};
    assert_int_equal(adw_pair_by_mac(&t, unknown), ADW_PAIR_NONE);
    uint8_t ip[16] = {198, 18, 0x0f, 0xff};
    assert_int_equal(adw_pair_by_ip(&t, 4, ip), 0x0fff);
    adw_pair_table_free(&t);
    free(c);
}

static void test_a_mac_listed_twice_belongs_to_the_first_sta(void **st)
{
    (void)st;
    struct adw_config *c = stas(3);
    memcpy(c->stas[2].mac, c->stas[0].mac, 6);
    struct adw_pair_table t;
    assert_int_equal(adw_pair_table_build(&t, c), 0);
    assert_int_equal(adw_pair_by_mac(&t, c->stas[0].mac), 0);
    assert_int_equal(adw_pair_by_mac(&t, c->stas[1].mac), 1);
    adw_pair_table_free(&t);
    assert_int_equal(adw_pair_by_mac(&t, c->stas[1].mac), ADW_PAIR_NONE); /* freed: empty, not a crash */
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_equal_keys_hash_equal_and_bytes_beyond_an_ipv4_address_do_not_count),
        cmocka_unit_test(test_drain_lookup_under_a_colliding_hash_finds_only_the_equal_key),
        cmocka_unit_test(test_drain_tracks_a_full_table_and_counts_the_flow_beyond_it),
        cmocka_unit_test(test_full_drain_table_evicts_the_least_recently_seen_flow_outside_the_batch),
        cmocka_unit_test(test_drain_reset_forgets_every_flow),
        cmocka_unit_test(test_ack_estimator_replaces_the_least_recently_seen_flow_when_full),
        cmocka_unit_test(test_ack_estimator_keeps_flows_apart_until_the_table_is_full),
        cmocka_unit_test(test_every_sta_of_a_full_table_is_found_by_mac_and_unknown_macs_are_not),
        cmocka_unit_test(test_a_mac_listed_twice_belongs_to_the_first_sta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
