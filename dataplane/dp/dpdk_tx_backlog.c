/* A DPDK port's software TX backlog; see dpdk_tx_backlog.h. */
#include "dpdk_tx_backlog.h"

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

int dpdk_tx_backlog_init(struct dpdk_tx_backlog *b, uint32_t cap, int socket)
{
    b->cap = cap;
    b->head = b->len = b->max_len = 0;
    b->slot = rte_zmalloc_socket("adw_tx_backlog", (size_t)cap * sizeof(*b->slot), 0, socket);
    return b->slot ? 0 : -1;
}

void dpdk_tx_backlog_fini(struct dpdk_tx_backlog *b)
{
    rte_free(b->slot);
    b->slot = NULL;
}

uint32_t dpdk_tx_backlog_push(struct dpdk_tx_backlog *b, struct rte_mbuf *const *pkts, uint32_t n)
{
    uint32_t room = b->cap - b->len, take = n < room ? n : room;
    uint32_t tail = b->head + b->len;
    for (uint32_t i = 0; i < take; i++, tail++)
        b->slot[tail < b->cap ? tail : tail - b->cap] = pkts[i];
    b->len += take;
    if (b->len > b->max_len)
        b->max_len = b->len;
    return take;
}

uint32_t dpdk_tx_backlog_send(struct dpdk_tx_backlog *b, uint16_t port)
{
    uint32_t total = 0;
    while (b->len) {
        /* The oldest frames up to the end of the storage or the backlog, whichever comes first. */
        uint32_t run = b->cap - b->head < b->len ? b->cap - b->head : b->len;
        uint16_t offer = run < UINT16_MAX ? (uint16_t)run : UINT16_MAX;
        uint16_t k = rte_eth_tx_burst(port, 0, b->slot + b->head, offer);
        b->head += k;
        if (b->head == b->cap)
            b->head = 0;
        b->len -= k;
        total += k;
        if (k < offer)
            break;
    }
    return total;
}

struct rte_mbuf *dpdk_tx_backlog_pop_newest(struct dpdk_tx_backlog *b)
{
    struct rte_mbuf *m = dpdk_tx_backlog_at(b, b->len - 1);
    b->len--;
    return m;
}

uint32_t dpdk_tx_backlog_discard(struct dpdk_tx_backlog *b)
{
    uint32_t n = b->len;
    for (; b->len; b->len--) {
        rte_pktmbuf_free(b->slot[b->head]);
        b->head = b->head + 1 == b->cap ? 0 : b->head + 1;
    }
    b->head = 0;
    return n;
}
