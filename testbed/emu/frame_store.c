/*
 * frame_store.c — frame buffer pool (frame_store.h).
 */
#include "frame_store.h"

#include <stdlib.h>
#include <string.h>

int frame_store_init(struct frame_store *s)
{
    s->slots = malloc((size_t)FRAME_SLOTS * sizeof *s->slots);
    s->free_list = malloc((size_t)FRAME_SLOTS * sizeof *s->free_list);
    if (!s->slots || !s->free_list) {
        frame_store_free(s);
        return -1;
    }
    for (uint32_t i = 0; i < FRAME_SLOTS; i++)
        s->free_list[i] = FRAME_SLOTS - 1 - i;
    s->n_free = FRAME_SLOTS;
    s->next_seq = 1;
    return 0;
}

void frame_store_free(struct frame_store *s)
{
    free(s->slots);
    free(s->free_list);
    s->slots = NULL;
    s->free_list = NULL;
}

uint64_t frame_store_put(struct frame_store *s, const uint8_t *data, uint32_t len, uint64_t now_us)
{
    if (s->n_free == 0 || len > FRAME_SLOT_BYTES)
        return UINT64_MAX;
    uint32_t slot = s->free_list[--s->n_free];
    struct frame_slot *f = &s->slots[slot];
    memcpy(f->data, data, len);
    f->len = len;
    f->arrival_us = now_us;
    return (s->next_seq++ << FRAME_SLOT_BITS) | slot;
}

struct frame_slot *frame_store_get(struct frame_store *s, uint64_t id)
{
    return &s->slots[id & (FRAME_SLOTS - 1)];
}

void frame_store_release(struct frame_store *s, uint64_t id)
{
    s->free_list[s->n_free++] = (uint32_t)(id & (FRAME_SLOTS - 1));
}
