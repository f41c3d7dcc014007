/* pair_table.c — see pair_table.h. Linear probing, load factor <= 1/2. */
#include "pair_table.h"

#include <stdlib.h>
#include <string.h>

#include "flow_hash.h"

#define PAIR_NONE 0xffff

static uint32_t hash_bytes(const uint8_t *p, unsigned n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (unsigned i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

#define MAC_BITS 0xffffffffffffull

static uint64_t mac_key(const uint8_t mac[6])
{
    uint32_t lo; /* in host order: keys are only compared with keys made here */
    uint16_t hi;
    memcpy(&lo, mac, 4);
    memcpy(&hi, mac + 4, 2);
    return (uint64_t)hi << 32 | lo;
}

static uint16_t slot_pair(struct adw_mac_slot s) { return (uint16_t)(s.word >> 48); }

static uint32_t pow2_at_least(uint32_t n)
{
    uint32_t p = 16;
    while (p < n)
        p <<= 1;
    return p;
}

static unsigned addr_len(uint8_t family) { return family == 4 ? 4u : 16u; }

int adw_pair_table_build(struct adw_pair_table *t, const struct adw_config *c)
{
    memset(t, 0, sizeof(*t));
    uint32_t n_ip = 0;
    for (unsigned i = 0; i < c->n_stas; i++)
        n_ip += c->stas[i].n_addrs;
    uint32_t mac_slots = pow2_at_least(2u * c->n_stas), ip_slots = pow2_at_least(2u * n_ip);
    t->mac = malloc(sizeof(*t->mac) * mac_slots);
    t->ip = calloc(ip_slots, sizeof(*t->ip));
    t->ap_port = malloc(sizeof(*t->ap_port) * (c->n_stas ? c->n_stas : 1u));
    if (t->mac == NULL || t->ip == NULL || t->ap_port == NULL) {
        adw_pair_table_free(t);
        return -1;
    }
    for (uint32_t i = 0; i < mac_slots; i++)
        t->mac[i].word = (uint64_t)PAIR_NONE << 48;
    t->mac_mask = mac_slots - 1;
    t->ip_mask = ip_slots - 1;
    for (uint16_t p = 0; p < c->n_stas; p++) {
        const struct adw_sta_cfg *s = &c->stas[p];
        t->ap_port[p] = (uint16_t)(s->ap + 1);
        uint64_t key = mac_key(s->mac);
        uint32_t h = adw_mac_hash(s->mac) & t->mac_mask;
        while (slot_pair(t->mac[h]) != PAIR_NONE && (t->mac[h].word & MAC_BITS) != key)
            h = (h + 1) & t->mac_mask;
        if (slot_pair(t->mac[h]) == PAIR_NONE)
            t->mac[h].word = key | (uint64_t)p << 48;
        for (unsigned k = 0; k < s->n_addrs; k++) {
            const struct adw_ip_addr *a = &s->addrs[k];
            unsigned len = addr_len(a->family);
            uint32_t g = (hash_bytes(a->addr, len) ^ a->family) & t->ip_mask;
            while (t->ip[g].family != 0 &&
                   !(t->ip[g].family == a->family && memcmp(t->ip[g].addr, a->addr, len) == 0))
                g = (g + 1) & t->ip_mask;
            if (t->ip[g].family == 0) {
                t->ip[g].family = a->family;
                memcpy(t->ip[g].addr, a->addr, len);
                t->ip[g].pair = p;
            }
        }
    }
    return 0;
}

void adw_pair_table_free(struct adw_pair_table *t)
{
    free(t->mac);
    free(t->ip);
    free(t->ap_port);
    memset(t, 0, sizeof(*t));
}

uint16_t adw_pair_by_mac(const struct adw_pair_table *t, const uint8_t mac[6])
{
    if (t->mac == NULL)
        return PAIR_NONE;
    uint64_t key = mac_key(mac);
    uint32_t h = adw_mac_hash(mac) & t->mac_mask;
    while (slot_pair(t->mac[h]) != PAIR_NONE) {
        if ((t->mac[h].word & MAC_BITS) == key)
            return slot_pair(t->mac[h]);
        h = (h + 1) & t->mac_mask;
    }
    return PAIR_NONE;
}

void adw_pair_mac_prefetch(const struct adw_pair_table *t, const uint8_t mac[6])
{
    if (t->mac != NULL)
        __builtin_prefetch(&t->mac[adw_mac_hash(mac) & t->mac_mask]);
}

uint16_t adw_pair_by_ip(const struct adw_pair_table *t, uint8_t family, const uint8_t addr[16])
{
    if (t->ip == NULL || (family != 4 && family != 6))
        return PAIR_NONE;
    unsigned len = addr_len(family);
    uint32_t g = (hash_bytes(addr, len) ^ family) & t->ip_mask;
    while (t->ip[g].family != 0) {
        if (t->ip[g].family == family && memcmp(t->ip[g].addr, addr, len) == 0)
            return t->ip[g].pair;
        g = (g + 1) & t->ip_mask;
    }
    return PAIR_NONE;
}
