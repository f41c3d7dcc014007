/*
 * frame_store.h — fixed pool of frame buffers held while the air model
 * decides when each frame arrives. A frame's model id is
 * (packet sequence number << FRAME_SLOT_BITS) | slot, unique over a run.
 */
#ifndef FRAME_STORE_H
#define FRAME_STORE_H

#include <stdint.h>

#define FRAME_SLOT_BITS 14
#define FRAME_SLOTS (1u << FRAME_SLOT_BITS)
#define FRAME_SLOT_BYTES 2048    /* holds a 1500-byte MTU frame with VLAN tag */

struct frame_slot {
    uint32_t len;                /* frame length (bytes) */
    uint64_t arrival_us;         /* receive time (µs, emulator clock) */
    uint8_t data[FRAME_SLOT_BYTES];
};

struct frame_store {
    struct frame_slot *slots;    /* FRAME_SLOTS buffers */
    uint32_t *free_list;         /* indices of free slots */
    uint32_t n_free;             /* entries in free_list */
    uint64_t next_seq;           /* next packet sequence number */
};

int frame_store_init(struct frame_store *s);
void frame_store_free(struct frame_store *s);
/* Takes a slot for a frame; returns its id, or UINT64_MAX when full. */
uint64_t frame_store_put(struct frame_store *s, const uint8_t *data, uint32_t len, uint64_t now_us);
struct frame_slot *frame_store_get(struct frame_store *s, uint64_t id);
void frame_store_release(struct frame_store *s, uint64_t id);
static inline uint64_t frame_seq(uint64_t id) { return id >> FRAME_SLOT_BITS; }

#endif
