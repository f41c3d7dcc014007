/*
 * txq.c — BlockAck originator queue and receiver reordering (see txq.h).
 */
#include "txq.h"

#include <stdlib.h>

int txq_init(struct txq *q, uint32_t cap)
{
    *q = (struct txq){0};
    q->ring = calloc(cap, sizeof *q->ring);
    if (!q->ring)
        return -1;
    q->cap = cap;
    return 0;
}

void txq_free(struct txq *q)
{
    free(q->ring);
    q->ring = NULL;
}

int txq_push(struct txq *q, uint64_t id, uint32_t len_bytes, uint64_t now_us)
{
    if (q->count == q->cap)
        return -1;
    struct mpdu *m = &q->ring[(q->head + q->count) % q->cap];
    *m = (struct mpdu){.id = id, .enqueue_us = now_us, .len_bytes = len_bytes, .state = MPDU_NEW};
    q->count++;
    q->pending++;
    return 0;
}

struct mpdu *txq_at(struct txq *q, uint64_t seq)
{
    return &q->ring[(q->head + (uint32_t)(seq - q->head_seq)) % q->cap];
}

static bool is_pending(uint8_t s) { return s == MPDU_NEW || s == MPDU_RETX; }

void txq_set_state(struct txq *q, uint64_t seq, enum mpdu_state s)
{
    struct mpdu *m = txq_at(q, seq);
    if (is_pending(m->state))
        q->pending--;
    if (is_pending((uint8_t)s))
        q->pending++;
    m->state = (uint8_t)s;
}

void txq_release(struct txq *q, void (*up)(void *ctx, const struct mpdu *m, bool delivered), void *ctx)
{
    while (q->rx_next_seq < q->head_seq + q->count) {
        struct mpdu *m = txq_at(q, q->rx_next_seq);
        if (m->rx_ok) {
            m->released = true;
            up(ctx, m, true);
        } else if (m->state == MPDU_DROPPED) {
            m->released = true;
            up(ctx, m, false);
        } else {
            break;
        }
        q->rx_next_seq++;
    }
}

void txq_pop_finished(struct txq *q)
{
    while (q->count > 0) {
        struct mpdu *m = &q->ring[q->head];
        if (!m->released || (m->state != MPDU_ACKED && m->state != MPDU_DROPPED))
            break;
        q->head = (q->head + 1) % q->cap;
        q->head_seq++;
        q->count--;
    }
}
