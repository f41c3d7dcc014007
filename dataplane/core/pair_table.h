/*
 * pair_table.h — STA lookup by MAC and by IP address (open-addressing hash
 * tables built on the control path from a configuration; lookups on the
 * packet path allocate nothing). A pair index is a STA index (config.h).
 */
#ifndef ADW_CORE_PAIR_TABLE_H
#define ADW_CORE_PAIR_TABLE_H

#include <stdint.h>

#include "adwiser/config.h"

/* One MAC table entry in one 8-byte word: the MAC (adw_mac_key) in the low 48 bits, the pair above, so a probe is
 * one load and one compare. */
struct adw_mac_slot {
    uint64_t word;               /* pair ADW_PAIR_NONE (0xffff) = empty slot */
};

struct adw_ip_slot {
    uint8_t family;              /* 0 = empty slot, 4 or 6 */
    uint8_t addr[16];
    uint16_t pair;
};

struct adw_pair_table {
    uint16_t *ap_port;           /* per pair: its AP's port (AP index + 1), so that the packet path reads 2 bytes
                                    instead of the configuration's 346-byte STA entry, a cache miss per packet */
    uint32_t mac_mask;           /* slots - 1 (power of two) */
    struct adw_mac_slot *mac;
    uint32_t ip_mask;
    struct adw_ip_slot *ip;
};

/* 0, or -1 on allocation failure (table left empty and freeable). The first STA listing an address wins. */
int adw_pair_table_build(struct adw_pair_table *t, const struct adw_config *c);
void adw_pair_table_free(struct adw_pair_table *t);
uint16_t adw_pair_by_mac(const struct adw_pair_table *t, const uint8_t mac[6]);
/* Asks the cache for the table entry where the lookup of mac starts (packets of a burst are looked up in turn). */
void adw_pair_mac_prefetch(const struct adw_pair_table *t, const uint8_t mac[6]);
uint16_t adw_pair_by_ip(const struct adw_pair_table *t, uint8_t family, const uint8_t addr[16]);

#endif
