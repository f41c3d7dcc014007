/*
 * flow_hash.h — the hashes of the packet path's lookups: a STA's MAC (pair
 * table) and a TCP connection's key (drain and ACK-burst flow tables).
 *
 * They run for every packet, so they read whole words and mix them with
 * MurmurHash3's 64-bit finaliser (fmix64: every input bit reaches every
 * output bit) instead of FNV's one multiply per byte: the flow key is 37 bytes
 * and FNV over it was a chain of 37 dependent multiplies on each ACK. Only the
 * bytes a key compares are hashed (4 of each address for IPv4), so equal keys
 * always hash equal.
 */
#ifndef ADW_CORE_FLOW_HASH_H
#define ADW_CORE_FLOW_HASH_H

#include <stdint.h>
#include <string.h>

#include "queue.h"

static inline uint64_t adw_fmix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static inline uint32_t adw_mac_hash(const uint8_t mac[6])
{
    uint32_t lo;
    uint16_t hi;
    memcpy(&lo, mac, 4);
    memcpy(&hi, mac + 4, 2);
    return (uint32_t)adw_fmix64((uint64_t)hi << 32 | lo);
}

static inline uint32_t adw_flow_key_hash(const struct adw_flow_key *k)
{
    uint64_t h = (uint64_t)k->family << 32 | (uint64_t)k->srv_port << 16 | k->sta_port;
    if (k->family == 4) {
        uint32_t srv, sta;
        memcpy(&srv, k->srv_ip, 4);
        memcpy(&sta, k->sta_ip, 4);
        return (uint32_t)adw_fmix64(h ^ adw_fmix64((uint64_t)srv << 32 | sta));
    }
    for (unsigned i = 0; i < 32; i += 8) {
        uint64_t w;
        memcpy(&w, i < 16 ? k->srv_ip + i : k->sta_ip + (i - 16), 8);
        h = adw_fmix64(h ^ w) + i;
    }
    return (uint32_t)adw_fmix64(h);
}

#endif
