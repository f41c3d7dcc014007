/*
 * ns per IPv4 -> STA MAC lookup, the NFQUEUE backend's per-packet work of putting the destination STA's MAC in front
 * of each packet (dp/nfq_loop.c): the linear scan of the configuration it used to do (kept here only as the
 * baseline) against the map built per configuration (dp/sta_ip_map.c).  Configurations of 360 STAs (the size of
 * configs/campus-dorm.yaml) and 4096 (the limit), one IPv4 address each as there; lookups of STA addresses in a
 * shuffled order (downlink) and of addresses of no STA (uplink ACKs to servers, which the scan paid in full).
 * A figure to read, not a test: `make -C dataplane bench-sta-ip`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sta_ip_map.h"

#define N_ADDRS 4096u     /* addresses looked up per pass */
#define MIN_NS 200000000u /* each figure: passes for at least this long */

/* The lookup nfq_loop.c did per packet before sta_ip_map. */
static int scan_mac_of_ipv4(const struct adw_config *cfg, uint32_t ip, uint8_t mac[6])
{
    uint8_t want[4] = {(uint8_t)(ip >> 24), (uint8_t)(ip >> 16), (uint8_t)(ip >> 8), (uint8_t)ip};
    for (unsigned s = 0; s < cfg->n_stas; s++) {
        const struct adw_sta_cfg *sta = &cfg->stas[s];
        for (unsigned a = 0; a < sta->n_addrs; a++)
            if (sta->addrs[a].family == 4 && memcmp(sta->addrs[a].addr, want, 4) == 0) {
                memcpy(mac, sta->mac, 6);
                return 0;
            }
    }
    return -1;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct run {
    const struct adw_config *cfg;
    const struct sta_ip_map *map;
    const uint32_t *ips;
};

/* ns per lookup of ips[] by the scan (map == NULL) or the map; found counts the hits, so none is optimised away. */
static double ns_per_lookup(const struct run *r, int use_map, unsigned *found)
{
    uint8_t mac[6];
    uint64_t lookups = 0, t0 = now_ns(), t;
    unsigned hits = 0;
    do {
        for (unsigned i = 0; i < N_ADDRS; i++)
            hits += (use_map ? sta_ip_map_mac(r->map, r->ips[i], mac) : scan_mac_of_ipv4(r->cfg, r->ips[i], mac)) == 0;
        lookups += N_ADDRS;
        t = now_ns();
    } while (t - t0 < MIN_NS);
    *found = hits;
    return (double)(t - t0) / (double)lookups;
}

static void bench(unsigned n_stas)
{
    static uint32_t sta_ips[N_ADDRS], other_ips[N_ADDRS];
    struct adw_config *cfg = calloc(1, sizeof(*cfg));
    if (!cfg) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    cfg->n_stas = (uint16_t)n_stas;
    for (unsigned s = 0; s < n_stas; s++) {
        uint32_t ip = 0xc6130002u + s;   /* 198.19.0.2 and up, as in campus-dorm */
        const uint8_t mac[6] = {0x02, 0xad, 0x01, (uint8_t)(s >> 8), (uint8_t)s, 0x01};
        memcpy(cfg->stas[s].mac, mac, 6);
        cfg->stas[s].n_addrs = 1;
        cfg->stas[s].addrs[0].family = 4;
        const uint8_t b[4] = {(uint8_t)(ip >> 24), (uint8_t)(ip >> 16), (uint8_t)(ip >> 8), (uint8_t)ip};
        memcpy(cfg->stas[s].addrs[0].addr, b, 4);
    }
    srand(n_stas);
    for (unsigned i = 0; i < N_ADDRS; i++) {
        sta_ips[i] = 0xc6130002u + (unsigned)rand() % n_stas;
        other_ips[i] = 0xcb007100u + (unsigned)rand() % 256u;   /* 203.0.113.0/24: servers */
    }
    struct sta_ip_map *map = sta_ip_map_build(cfg);
    if (!map) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    struct run sta = {cfg, map, sta_ips}, other = {cfg, map, other_ips};
    unsigned f[4];
    double scan_sta = ns_per_lookup(&sta, 0, &f[0]), map_sta = ns_per_lookup(&sta, 1, &f[1]);
    double scan_other = ns_per_lookup(&other, 0, &f[2]), map_other = ns_per_lookup(&other, 1, &f[3]);
    printf("%5u STAs  STA addresses: scan %7.1f ns  map %5.1f ns   other addresses: scan %7.1f ns  map %5.1f ns%s\n",
           n_stas, scan_sta, map_sta, scan_other, map_other,
           f[0] && f[1] && !f[2] && !f[3] ? "" : "  (WRONG: hits where none expected or none where expected)");
    sta_ip_map_free(map);
    free(cfg);
}

int main(void)
{
    printf("ns per IPv4 -> STA MAC lookup (NFQUEUE backend, per packet read)\n");
    bench(360);
    bench(4096);
    return 0;
}
