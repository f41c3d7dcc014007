/* queue.c — see queue.h. */
#include "queue.h"

#include <stdlib.h>

#include "big_alloc.h"

#define POOL_LOOKAHEAD 4u     /* gets between the request of a node and its use */

int adw_pool_init(struct adw_pool *p, uint32_t size)
{
    p->nodes = adw_big_calloc(size, sizeof(*p->nodes));
    p->link = malloc(sizeof(*p->link) * (size ? size : 1u));
    p->free = malloc(sizeof(*p->free) * (size ? size : 1u));
    if (p->nodes == NULL || p->link == NULL || p->free == NULL) {
        adw_pool_free(p);
        return -1;
    }
    p->size = size;
    p->in_use = p->lent = 0;
    for (uint32_t i = 0; i < size; i++) {
        p->link[i] = ADW_NODE_NONE;
        p->free[i] = size - 1 - i; /* node 0 on top: taken in index order at first */
    }
    return 0;
}

void adw_pool_free(struct adw_pool *p)
{
    adw_big_free(p->nodes);
    free(p->link);
    free(p->free);
    p->nodes = NULL;
    p->link = NULL;
    p->free = NULL;
    p->size = p->in_use = p->lent = 0;
}

uint32_t adw_pool_get(struct adw_pool *p)
{
    uint32_t n_free = p->size - p->in_use;
    if (n_free <= p->lent)
        return ADW_NODE_NONE;
    uint32_t i = p->free[n_free - 1];
    p->in_use++;
    /* Nodes are reused in LIFO order, but a slice start frees thousands at once, more than the cache keeps: the node
     * a later get takes is fetched now. */
    if (n_free > POOL_LOOKAHEAD)
        adw_node_prefetch(p, p->free[n_free - 1 - POOL_LOOKAHEAD]);
    return i;
}

void adw_pool_put(struct adw_pool *p, uint32_t idx)
{
    p->link[idx] = ADW_NODE_NONE;
    p->in_use--;
    p->free[p->size - p->in_use - 1] = idx;
}

void adw_fifo_init(struct adw_fifo *q)
{
    q->head = q->tail = ADW_NODE_NONE;
    q->len = 0;
    q->bytes = 0;
}

void adw_fifo_push(struct adw_fifo *q, struct adw_pool *p, uint32_t idx)
{
    p->link[idx] = ADW_NODE_NONE;
    if (q->tail == ADW_NODE_NONE)
        q->head = idx;
    else
        p->link[q->tail] = idx;
    q->tail = idx;
    q->len++;
    q->bytes += p->nodes[idx].pkt.len;
}

uint32_t adw_fifo_pop(struct adw_fifo *q, struct adw_pool *p)
{
    uint32_t i = q->head;
    if (i == ADW_NODE_NONE)
        return i;
    q->head = p->link[i];
    if (q->head == ADW_NODE_NONE)
        q->tail = ADW_NODE_NONE;
    q->len--;
    q->bytes -= p->nodes[i].pkt.len; /* the node's first line: requested ahead by the caller (adw_fifo_ahead) */
    p->link[i] = ADW_NODE_NONE;
    return i;
}

void adw_fifo_splice(struct adw_fifo *dst, struct adw_fifo *src, struct adw_pool *p)
{
    if (src->head == ADW_NODE_NONE)
        return;
    if (dst->tail == ADW_NODE_NONE)
        dst->head = src->head;
    else
        p->link[dst->tail] = src->head;
    dst->tail = src->tail;
    dst->len += src->len;
    dst->bytes += src->bytes;
    adw_fifo_init(src);
}
