/* IPv4 address -> STA MAC; see sta_ip_map.h. */
#include "sta_ip_map.h"

#include <stdlib.h>
#include <string.h>

/*
 * Open addressing with linear probing, at most half full so that a miss (most packets the backend reads in the
 * uplink direction are to servers, not STAs) ends after a probe or two.  The MAC is kept in the slot, so a lookup
 * touches one cache line and never the ~3 MB configuration.
 */
struct slot {
    uint32_t ip;          /* host byte order */
    uint8_t mac[6];
    uint8_t used;
};

struct sta_ip_map {
    uint32_t mask;        /* slots - 1, slots a power of two */
    unsigned shift;       /* 64 - log2(slots) */
    struct slot slots[];
};

/* Fibonacci hashing: STA addresses are mostly consecutive in one subnet, and the multiply by 2^64/phi spreads
 * them over the product's top bits, which are the slot index. */
static uint32_t slot_of(const struct sta_ip_map *m, uint32_t ip)
{
    return (uint32_t)(((uint64_t)ip * 0x9E3779B97F4A7C15ull) >> m->shift);
}

struct sta_ip_map *sta_ip_map_build(const struct adw_config *cfg)
{
    size_t n = 0;
    for (unsigned s = 0; s < cfg->n_stas; s++)
        for (unsigned a = 0; a < cfg->stas[s].n_addrs; a++)
            n += cfg->stas[s].addrs[a].family == 4;
    size_t slots = 16;
    unsigned bits = 4;
    for (; slots < 2 * n; bits++)
        slots *= 2;
    struct sta_ip_map *m = calloc(1, sizeof(*m) + slots * sizeof(struct slot));
    if (!m)
        return NULL;
    m->mask = (uint32_t)(slots - 1);
    m->shift = 64 - bits;
    for (unsigned s = 0; s < cfg->n_stas; s++) {
        const struct adw_sta_cfg *sta = &cfg->stas[s];
        for (unsigned a = 0; a < sta->n_addrs; a++) {
            if (sta->addrs[a].family != 4)
                continue;
            const uint8_t *b = sta->addrs[a].addr;
            uint32_t ip = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
            uint32_t i = slot_of(m, ip);
            while (m->slots[i].used && m->slots[i].ip != ip)
                i = (i + 1) & m->mask;
            if (m->slots[i].used)
                continue;   /* listed before: the first STA keeps it */
            m->slots[i].ip = ip;
            memcpy(m->slots[i].mac, sta->mac, 6);
            m->slots[i].used = 1;
        }
    }
    return m;
}

int sta_ip_map_mac(const struct sta_ip_map *m, uint32_t ip, uint8_t mac[6])
{
    for (uint32_t i = slot_of(m, ip); m->slots[i].used; i = (i + 1) & m->mask) {
        if (m->slots[i].ip == ip) {
            memcpy(mac, m->slots[i].mac, 6);
            return 0;
        }
    }
    return -1;
}

void sta_ip_map_free(struct sta_ip_map *m)
{
    free(m);
}
