/*
 * A DPDK port's software TX backlog: the frames its TX ring could not take yet, oldest first.
 *
 * A slice may release thousands of packets at once (its batch, up to r_max) to a ring of DPDK_TX_DESC descriptors
 * that a NIC empties at its line rate, far slower than the loop fills it. The frames the ring refuses wait here and
 * are handed to it as it frees descriptors, without holding the loop up; while a port has a backlog its new frames
 * go behind it, so they leave in the order they were sent. Bounded (--tx-backlog): a peer that stopped taking frames
 * cannot take the whole mbuf pool from the other ports.
 */
#ifndef ADW_DP_DPDK_TX_BACKLOG_H
#define ADW_DP_DPDK_TX_BACKLOG_H

#include <stdint.h>

struct rte_mbuf;

struct dpdk_tx_backlog {
    struct rte_mbuf **slot;  /* cap entries, a ring buffer */
    uint32_t cap;            /* most frames it holds */
    uint32_t head;           /* index of the oldest frame */
    uint32_t len;            /* frames waiting */
    uint32_t max_len;        /* the most that waited at once (--stats tx_backlog_max) */
};

/* Room for cap frames on NUMA socket (SOCKET_ID_ANY allowed); -1 if out of memory. */
int dpdk_tx_backlog_init(struct dpdk_tx_backlog *b, uint32_t cap, int socket);

/* Frees the storage (not the frames: empty it first). */
void dpdk_tx_backlog_fini(struct dpdk_tx_backlog *b);

/* Appends pkts[0..n) as far as there is room; returns how many it took (the rest are the caller's). */
uint32_t dpdk_tx_backlog_push(struct dpdk_tx_backlog *b, struct rte_mbuf *const *pkts, uint32_t n);

/* Hands the oldest frames to TX queue 0 of port until its ring takes fewer than offered; returns how many it took. */
uint32_t dpdk_tx_backlog_send(struct dpdk_tx_backlog *b, uint16_t port);

/* The i-th oldest waiting frame, i < b->len. */
static inline struct rte_mbuf *dpdk_tx_backlog_at(const struct dpdk_tx_backlog *b, uint32_t i)
{
    uint32_t k = b->head + i;
    return b->slot[k >= b->cap ? k - b->cap : k];
}

/* Takes the newest waiting frame out of the backlog (b->len > 0) and returns it (the caller's to free). */
struct rte_mbuf *dpdk_tx_backlog_pop_newest(struct dpdk_tx_backlog *b);

/* Frees every waiting frame; returns how many. */
uint32_t dpdk_tx_backlog_discard(struct dpdk_tx_backlog *b);

#endif
