/*
 * txq.h — one BlockAck agreement: the originator's per (src, dst, AC)
 * queue of MPDUs in sequence order, and the receiver's reordering state.
 *
 * Entries from the head (oldest sequence number not yet finished) onward:
 * the originator may send NEW or RETX entries whose sequence number lies
 * within [head, head + window) (802.11-2016 §10.24.7.6). The receiver hands
 * MPDUs up strictly in sequence order, skipping those the originator gave
 * up on (it learns that from the BlockAckReq that moves its window).
 */
#ifndef TXQ_H
#define TXQ_H

#include <stdbool.h>
#include <stdint.h>

enum mpdu_state { MPDU_NEW, MPDU_INFLIGHT, MPDU_RETX, MPDU_ACKED, MPDU_DROPPED };

struct mpdu {
    uint64_t id;                 /* caller's frame id */
    uint64_t enqueue_us;         /* virtual enqueue time (µs) */
    uint32_t len_bytes;          /* Ethernet frame length (bytes) */
    uint8_t state;               /* enum mpdu_state */
    uint8_t retries;             /* failed transmissions so far */
    bool rx_ok;                  /* the receiver holds a good copy */
    bool released;               /* handed up (or skipped) at the receiver */
};

struct txq {
    struct mpdu *ring;           /* entries, cap slots */
    uint32_t cap;                /* ring capacity (entries) */
    uint32_t head;               /* ring index of sequence number head_seq */
    uint32_t count;              /* entries in the ring */
    uint64_t head_seq;           /* sequence number of the oldest entry */
    uint64_t rx_next_seq;        /* next sequence number the receiver hands up */
    uint32_t pending;            /* entries in state NEW or RETX */
};

int txq_init(struct txq *q, uint32_t cap);
void txq_free(struct txq *q);
/* Appends a NEW entry; -1 when full. */
int txq_push(struct txq *q, uint64_t id, uint32_t len_bytes, uint64_t now_us);
/* Entry with sequence number seq (must be in [head_seq, head_seq + count)). */
struct mpdu *txq_at(struct txq *q, uint64_t seq);
void txq_set_state(struct txq *q, uint64_t seq, enum mpdu_state s);
/* Hands up, in order, every releasable entry: up(ctx, m, true) for each good
 * one, up(ctx, m, false) for each the originator dropped. */
void txq_release(struct txq *q, void (*up)(void *ctx, const struct mpdu *m, bool delivered), void *ctx);
/* Frees head entries that are finished at both ends. */
void txq_pop_finished(struct txq *q);

#endif
