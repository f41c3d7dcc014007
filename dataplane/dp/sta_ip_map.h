/*
 * The STA owning an IPv4 address, in O(1): the NFQUEUE backend sees IP
 * packets without their Ethernet header and puts the destination STA's MAC
 * in front of every one it reads (nfq_loop.c), so the core classifies the
 * packet by MAC as it would on the wire (a malformed packet is matched by MAC
 * only).  A linear scan of the configuration's STAs cost 0.4 µs a packet at
 * 360 STAs and ~4 µs at the 4096-STA limit, most of the loop's ~5.5 µs
 * (dp/README.md has the figures); the map is built once per configuration
 * loaded, and kept beside it (dp_engine.h), put in use when the core swaps
 * that configuration in (its frame boundary, not the reload's apply).
 */
#ifndef ADW_DP_STA_IP_MAP_H
#define ADW_DP_STA_IP_MAP_H

#include <stdint.h>

#include "adwiser/config.h"

struct sta_ip_map;

/* The map of cfg's STA IPv4 addresses; NULL when out of memory.  An address listed twice (the loader refuses
 * it) maps to the first STA listing it, as a scan in STA order would. */
struct sta_ip_map *sta_ip_map_build(const struct adw_config *cfg);

/* Copies the MAC of the STA with IPv4 address ip (host byte order) into mac; 0 if found, else -1, mac untouched. */
int sta_ip_map_mac(const struct sta_ip_map *m, uint32_t ip, uint8_t mac[6]);

void sta_ip_map_free(struct sta_ip_map *m);

#endif
