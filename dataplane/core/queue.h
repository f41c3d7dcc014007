/*
 * queue.h — the packet store of the core: a node pool preallocated at create
 * (no allocation on the packet path) and FIFO queues threaded through it by
 * index. A node keeps the backend's struct adw_pkt and the few parsed fields
 * drain inference needs when the packet is released (drain.h). The links of
 * the FIFOs are kept apart from the nodes, in one compact array: a slice start
 * releases thousands of packets queued long ago (cold nodes), and walking a
 * queue through links inside the nodes waited for one cold node after the
 * other; through the array it reads 4 bytes per packet, so the nodes a walk
 * will visit can be requested from the cache together (adw_fifo_ahead).
 */
#ifndef ADW_CORE_QUEUE_H
#define ADW_CORE_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "adwiser/sched.h"
#include "parse.h"

#define ADW_NODE_NONE 0xffffffffu

/* A TCP connection seen from the appliance, in a fixed orientation whichever way the packet went. */
struct adw_flow_key {
    uint8_t family;              /* 4 or 6 */
    uint8_t srv_ip[16];          /* wired-side (server) address */
    uint8_t sta_ip[16];          /* STA address */
    uint16_t srv_port, sta_port; /* host order */
};

/* What drain inference needs from a released TCP packet. */
struct adw_tcp_meta {
    bool is_tcp;
    uint8_t flags;               /* ADW_TCP_* */
    uint32_t seq_end;            /* seq + payload + SYN + FIN: next sequence number after this segment */
    uint32_t ack;                /* acknowledgement number */
    uint32_t payload_len;        /* bytes */
    uint8_t n_sack;              /* SACK blocks (uplink segments only) */
    uint32_t sack_left[ADW_MAX_SACK];  /* left edges of the SACK blocks (first byte reported) */
    uint32_t sack_right[ADW_MAX_SACK]; /* right edges of the SACK blocks (byte after the last reported) */
    struct adw_flow_key key;
};

struct adw_node {
    struct adw_pkt pkt;          /* as the backend gave it (cookie untouched) */
    uint16_t slot;               /* pair state slot that queued it */
    uint8_t rt;                  /* 1: real-time queue */
    struct adw_tcp_meta meta;
};

struct adw_pool {
    struct adw_node *nodes;
    uint32_t *link;              /* link[i]: the node after node i in its FIFO, ADW_NODE_NONE at the tail */
    uint32_t size;               /* nodes */
    uint32_t in_use;             /* nodes held */
    uint32_t lent;               /* packets of the budget the backend keeps outside the core (adw_sched_pool_lend):
                                    a get leaves this many nodes free */
    uint32_t *free;              /* stack of the free nodes' indices, free[0 .. size - in_use), top last: an array
                                    rather than a list through the nodes, so the nodes the next gets will take are
                                    known (and fetched) ahead without reading cold nodes */
};

struct adw_fifo {
    uint32_t head, tail;         /* node indices, ADW_NODE_NONE when empty */
    uint32_t len;                /* packets */
    uint64_t bytes;              /* bytes (frame lengths) */
};

int adw_pool_init(struct adw_pool *p, uint32_t size);
void adw_pool_free(struct adw_pool *p);
/* ADW_NODE_NONE when the pool is exhausted (no free node beside what is lent). */
uint32_t adw_pool_get(struct adw_pool *p);
void adw_pool_put(struct adw_pool *p, uint32_t idx);

static inline struct adw_node *adw_node_at(struct adw_pool *p, uint32_t idx) { return &p->nodes[idx]; }

/* Asks the cache for node idx (104 bytes: both lines it may straddle). */
static inline void adw_node_prefetch(const struct adw_pool *p, uint32_t idx)
{
    __builtin_prefetch(&p->nodes[idx], 1);
    __builtin_prefetch((const char *)&p->nodes[idx] + sizeof(p->nodes[idx]) - 1, 1);
}

void adw_fifo_init(struct adw_fifo *q);
void adw_fifo_push(struct adw_fifo *q, struct adw_pool *p, uint32_t idx);
/* ADW_NODE_NONE when empty. */
uint32_t adw_fifo_pop(struct adw_fifo *q, struct adw_pool *p);
/* Moves every node of src to the tail of dst (O(1)). */
void adw_fifo_splice(struct adw_fifo *dst, struct adw_fifo *src, struct adw_pool *p);

/*
 * A cursor that walks a FIFO some nodes ahead of its pops and asks the cache
 * for each node it passes, so that the nodes the pops return arrive together
 * rather than one miss after the other. Only a hint: pushes after it started
 * may go unseen (it stops at the tail it met), and it never changes a queue.
 */
struct adw_fifo_ahead {
    uint32_t idx;                /* next node to request, ADW_NODE_NONE once past the tail */
};

/* Requests the first dist nodes of q; the cursor stands at the one after them. */
static inline void adw_fifo_ahead_start(struct adw_fifo_ahead *a, const struct adw_fifo *q, const struct adw_pool *p,
                                        unsigned dist)
{
    a->idx = q->head;
    for (unsigned k = 0; k < dist && a->idx != ADW_NODE_NONE; k++) {
        adw_node_prefetch(p, a->idx);
        a->idx = p->link[a->idx];
    }
}

/* Requests one more node (call once per pop, to stay dist ahead). */
static inline void adw_fifo_ahead_step(struct adw_fifo_ahead *a, const struct adw_pool *p)
{
    if (a->idx == ADW_NODE_NONE)
        return;
    adw_node_prefetch(p, a->idx);
    a->idx = p->link[a->idx];
}

#endif
