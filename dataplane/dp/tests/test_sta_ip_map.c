/*
 * The NFQUEUE backend's IPv4 -> STA MAC map (dp/sta_ip_map.c), which replaced a linear scan of the configuration's
 * STAs on every packet read.  It must give the scan's answers: each STA's IPv4 addresses its MAC, any other address
 * none (the destination MAC left zero), on the lab document and on a document at the 4096-STA limit; an address
 * listed twice the first STA's; and the engine's map must answer for the configuration a reload swapped in.  The
 * scan gave the same answers, so these pass on it too; the defect was its cost, which `make -C dataplane
 * bench-sta-ip` measures (dp/README.md has the figures).
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
#include <jansson.h>

#include "dp_engine.h"
#include "frame_builder.h"
#include "lab_engine.h"
#include "sta_ip_map.h"

static const uint8_t untouched[6] = {0xee, 0xee, 0xee, 0xee, 0xee, 0xee};

static uint32_t ipv4_of(const struct adw_ip_addr *a)
{
    return (uint32_t)a->addr[0] << 24 | (uint32_t)a->addr[1] << 16 | (uint32_t)a->addr[2] << 8 | a->addr[3];
}

static void set_ipv4(struct adw_ip_addr *a, uint32_t ip)
{
    a->family = 4;
    a->addr[0] = (uint8_t)(ip >> 24);
    a->addr[1] = (uint8_t)(ip >> 16);
    a->addr[2] = (uint8_t)(ip >> 8);
    a->addr[3] = (uint8_t)ip;
}

static void assert_maps_to(const struct sta_ip_map *m, uint32_t ip, const uint8_t want[6])
{
    uint8_t mac[6];
    memcpy(mac, untouched, 6);
    if (sta_ip_map_mac(m, ip, mac) != 0 || memcmp(mac, want, 6) != 0)
        fail_msg("%u.%u.%u.%u: not mapped to its STA's MAC", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
}

/* No MAC, and the caller's buffer (the synthetic frame's zeroed destination) left as it was. */
static void assert_maps_to_none(const struct sta_ip_map *m, uint32_t ip)
{
    uint8_t mac[6];
    memcpy(mac, untouched, 6);
    if (sta_ip_map_mac(m, ip, mac) != -1 || memcmp(mac, untouched, 6) != 0)
        fail_msg("%u.%u.%u.%u: no STA has it, yet the map gave a MAC", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255,
                 ip & 255);
}

/* Every IPv4 address of every STA (the configurations here list each once) maps to that STA's MAC. */
static unsigned assert_every_sta_address_maps_to_its_mac(const struct sta_ip_map *m, const struct adw_config *cfg)
{
    unsigned n = 0;
    for (unsigned s = 0; s < cfg->n_stas; s++)
        for (unsigned a = 0; a < cfg->stas[s].n_addrs; a++)
            if (cfg->stas[s].addrs[a].family == 4) {
                assert_maps_to(m, ipv4_of(&cfg->stas[s].addrs[a]), cfg->stas[s].mac);
                n++;
            }
    return n;
}

/* Addresses of no STA in either configuration here that a packet may carry: servers, loopback, the unspecified
 * and broadcast addresses, the lab's router. */
static void assert_non_sta_addresses_map_to_none(const struct sta_ip_map *m)
{
    static const uint32_t others[] = {0x00000000u, 0xffffffffu, 0x08080808u, 0xc6120001u /* 198.18.0.1 */,
                                      0xc612000du /* 198.18.0.13 */, 0xc6130001u /* 198.19.0.1 */, 0x0a000001u,
                                      0x7f000001u};
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
        assert_maps_to_none(m, others[i]);
}

static void test_every_lab_sta_ipv4_maps_to_its_mac_and_other_addresses_to_none(void **state)
{
    (void)state;
    char err[512];
    const char *lab = getenv("ADW_LAB_JSON");
    assert_non_null(lab);
    struct adw_config *cfg = dp_engine_load_config(lab, err, sizeof(err));
    if (!cfg)
        fail_msg("%s: %s", lab, err);
    struct sta_ip_map *m = sta_ip_map_build(cfg);
    assert_non_null(m);
    assert_int_equal(assert_every_sta_address_maps_to_its_mac(m, cfg), 2);
    assert_non_sta_addresses_map_to_none(m);
    sta_ip_map_free(m);
    free(cfg);
}

/*
 * 4096 STAs, each with the 16 addresses the schema allows, in a row from 11.0.0.0 (STA s from 11.0.0.0 + 16 s);
 * every fourth STA's last address is IPv6 instead, its first four bytes an IPv4 address in 12.0.0.0/8, where no STA
 * has one (it must not be found as one): 64512 IPv4 addresses, the map at its largest.
 */
static void test_every_sta_ipv4_of_the_largest_configuration_maps_to_its_mac_and_other_addresses_to_none(void **state)
{
    (void)state;
    struct adw_config *cfg = calloc(1, sizeof(*cfg));
    assert_non_null(cfg);
    cfg->n_stas = ADW_MAX_STAS;
    for (unsigned s = 0; s < ADW_MAX_STAS; s++) {
        struct adw_sta_cfg *sta = &cfg->stas[s];
        const uint8_t mac[6] = {0x02, 0xad, 0x10, (uint8_t)(s >> 8), (uint8_t)s, 0x01};
        memcpy(sta->mac, mac, 6);
        sta->n_addrs = ADW_MAX_STA_ADDRS;
        for (unsigned a = 0; a < ADW_MAX_STA_ADDRS; a++)
            set_ipv4(&sta->addrs[a], 0x0b000000u + s * ADW_MAX_STA_ADDRS + a);
        if (s % 4 == 0) {
            sta->addrs[ADW_MAX_STA_ADDRS - 1].family = 6;
            sta->addrs[ADW_MAX_STA_ADDRS - 1].addr[0] = 12;
        }
    }
    struct sta_ip_map *m = sta_ip_map_build(cfg);
    assert_non_null(m);
    assert_int_equal(assert_every_sta_address_maps_to_its_mac(m, cfg),
                     ADW_MAX_STAS * ADW_MAX_STA_ADDRS - ADW_MAX_STAS / 4);
    assert_non_sta_addresses_map_to_none(m);
    assert_maps_to_none(m, 0x0affffffu);                                        /* just below the first */
    assert_maps_to_none(m, 0x0b000000u + ADW_MAX_STAS * ADW_MAX_STA_ADDRS);   /* just past the last */
    for (unsigned s = 0; s < ADW_MAX_STAS; s += 4) {
        assert_maps_to_none(m, ipv4_of(&cfg->stas[s].addrs[ADW_MAX_STA_ADDRS - 1]));   /* the IPv6 ones */
        assert_maps_to_none(m, 0x0b000000u + s * ADW_MAX_STA_ADDRS + ADW_MAX_STA_ADDRS - 1);
    }
    sta_ip_map_free(m);
    free(cfg);
}

/* The loader refuses an address two STAs list; a document built in code may still have one, and the map keeps the
 * scan's rule: the first STA listing it. */
static void test_an_address_two_stas_list_maps_to_the_first(void **state)
{
    (void)state;
    struct adw_config *cfg = calloc(1, sizeof(*cfg));
    assert_non_null(cfg);
    cfg->n_stas = 3;
    for (unsigned s = 0; s < 3; s++) {
        const uint8_t mac[6] = {0x02, 0xad, 0x20, 0, (uint8_t)s, 0x01};
        memcpy(cfg->stas[s].mac, mac, 6);
        cfg->stas[s].n_addrs = 1;
        set_ipv4(&cfg->stas[s].addrs[0], 0xc6120100u + s);
    }
    set_ipv4(&cfg->stas[2].addrs[0], 0xc6120101u);   /* sta1's */
    struct sta_ip_map *m = sta_ip_map_build(cfg);
    assert_non_null(m);
    assert_maps_to(m, 0xc6120100u, cfg->stas[0].mac);
    assert_maps_to(m, 0xc6120101u, cfg->stas[1].mac);
    assert_maps_to_none(m, 0xc6120102u);
    sta_ip_map_free(m);
    free(cfg);
}

/* Reloads the lab document with sta1 moved to 198.18.0.99 and sta2_more added to sta2 (SIGHUP at 1.001 s, as a
 * reload comes). */
static void reload_with_stas_readdressed(struct dp_engine *e, struct dp_options *o, const char *sta2_more)
{
    json_error_t je;
    json_t *doc = json_load_file(o->config_path, 0, &je);
    if (!doc)
        fail_msg("%s: %s", o->config_path, je.text);
    json_t *stas = json_object_get(json_object_get(doc, "topology"), "stas");
    json_object_set_new(json_array_get(stas, 0), "ips", json_pack("[s]", "198.18.0.99"));
    json_array_append_new(json_object_get(json_array_get(stas, 1), "ips"), json_string(sta2_more));
    char path[] = "/tmp/test_sta_ip_map.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(json_dump_file(doc, path, 0), 0);
    json_decref(doc);
    const char *lab = o->config_path;
    o->config_path = path;
    dp_reload_requested = 1;
    dp_engine_tick(e, 1001000000ull, adw_sched_next_event_ns(e->sched, 1001000000ull));
    unlink(path);
    o->config_path = lab;   /* path is gone with this frame */
    assert_int_equal(e->c.reloads_applied, 1);
}

/* The lab's engine as backend b starts it. */
static void start_as(struct dp_engine *e, struct dp_options *o, enum dp_backend b)
{
    o->hold_pkts = 64;
    o->backend = b;
    lab_engine_start(e, o, 3, b == DP_BACKEND_NFQUEUE ? "nfqueue" : "dpdk", 1000000000ull);
}

/* The loop's iterations up to 1.041 s: the lab's frames are 40 ms, so the core swaps a reload of 1.001 s in at 1.04 s
 * (adw_sched_dequeue_burst, as the NFQUEUE loop's release calls it). */
static void go_past_the_frame_boundary(struct dp_engine *e)
{
    struct adw_pkt out[16];
    for (uint64_t t = 1002000000ull; t <= 1041000000ull; t += 1000000ull) {
        while (adw_sched_dequeue_burst(e->sched, out, 16, t) > 0)
            ;
        dp_engine_tick(e, t, adw_sched_next_event_ns(e->sched, t));
    }
}

/*
 * A reload that moves 198.18.0.11 from sta1 to sta2 goes live at the core's next frame boundary; until then the core
 * runs the configuration before it, and the map the NFQUEUE backend gives each packet its destination MAC from must
 * answer for that one: a packet to 198.18.0.11 read meanwhile is sta1's, held for sta1 (out of AP1's port), not
 * scheduled for sta2 in the frame still running without it.  From the boundary on the map answers for the reload.
 */
static void test_the_engines_map_follows_the_configuration_the_core_runs_from_its_frame_boundary(void **state)
{
    (void)state;
    static struct dp_engine e;
    static struct dp_options o;
    start_as(&e, &o, DP_BACKEND_NFQUEUE);
    uint8_t sta1[6], sta2[6];
    memcpy(sta1, e.cfg->stas[0].mac, 6);
    memcpy(sta2, e.cfg->stas[1].mac, 6);

    reload_with_stas_readdressed(&e, &o, "198.18.0.11");
    assert_maps_to(e.cfg_ips, 0xc612000bu, sta1);   /* the core still runs the configuration before the reload */
    /* A downlink TCP segment to 198.18.0.11 as the NFQUEUE loop puts it together (nfq_loop.c). */
    struct fb_tcp t = {.ip_version = 4, .sport = 5001, .dport = 40000, .flags = 0x18 /* PSH, ACK */,
                       .payload_len = 100, .src_ip = {198, 18, 1, 1}, .dst_ip = {198, 18, 0, 11}};
    sta_ip_map_mac(e.cfg_ips, 0xc612000bu, t.dst_mac);
    uint8_t buf[256];
    struct adw_pkt p = {.data = buf, .len = fb_tcp(buf, sizeof(buf), &t), .in_port = 0};
    enum adw_verdict v;
    adw_sched_enqueue_burst(e.sched, &p, &v, 1, 1002000000ull);
    assert_int_equal(v, ADW_QUEUED);
    struct adw_pkt out;
    assert_int_equal(adw_sched_flush(e.sched, &out, 1), 1);
    assert_int_equal(out.out_port, 1);   /* AP1: sta1's */

    go_past_the_frame_boundary(&e);
    assert_maps_to(e.cfg_ips, 0xc612000bu, sta2);
    assert_maps_to(e.cfg_ips, 0xc6120063u, sta1);
    dp_engine_finish(&e);
}

/* A reload that moves the lab's sta1 to 198.18.0.99 and adds 198.18.0.98 to sta2: once the core runs it, the engine's
 * map, which the NFQUEUE backend asks for every packet, answers for the new addresses and no longer for the old one. */
static void test_the_engines_map_answers_for_the_configuration_a_reload_swapped_in(void **state)
{
    (void)state;
    static struct dp_engine e;
    static struct dp_options o;
    start_as(&e, &o, DP_BACKEND_NFQUEUE);
    assert_maps_to(e.cfg_ips, 0xc612000bu, e.cfg->stas[0].mac);   /* 198.18.0.11: sta1 */

    reload_with_stas_readdressed(&e, &o, "198.18.0.98");
    go_past_the_frame_boundary(&e);
    assert_maps_to(e.cfg_ips, 0xc6120063u, e.cfg->stas[0].mac);   /* 198.18.0.99: sta1 now */
    assert_maps_to(e.cfg_ips, 0xc6120062u, e.cfg->stas[1].mac);   /* 198.18.0.98: sta2's second */
    assert_maps_to(e.cfg_ips, 0xc612000cu, e.cfg->stas[1].mac);   /* 198.18.0.12: still sta2 */
    assert_maps_to_none(e.cfg_ips, 0xc612000bu);                   /* 198.18.0.11: nobody's any more */
    dp_engine_finish(&e);
}

/* DPDK frames carry the destination MAC: that engine builds no address map, at start or at a reload. */
static void test_the_dpdk_engine_builds_no_address_map(void **state)
{
    (void)state;
    static struct dp_engine e;
    static struct dp_options o;
    start_as(&e, &o, DP_BACKEND_DPDK);
    assert_null(e.cfg_ips);
    reload_with_stas_readdressed(&e, &o, "198.18.0.98");
    go_past_the_frame_boundary(&e);
    assert_null(e.cfg_ips);
    dp_engine_finish(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_lab_sta_ipv4_maps_to_its_mac_and_other_addresses_to_none),
        cmocka_unit_test(test_every_sta_ipv4_of_the_largest_configuration_maps_to_its_mac_and_other_addresses_to_none),
        cmocka_unit_test(test_an_address_two_stas_list_maps_to_the_first),
        cmocka_unit_test(test_the_engines_map_answers_for_the_configuration_a_reload_swapped_in),
        cmocka_unit_test(test_the_engines_map_follows_the_configuration_the_core_runs_from_its_frame_boundary),
        cmocka_unit_test(test_the_dpdk_engine_builds_no_address_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
