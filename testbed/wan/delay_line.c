/* One direction of the emulated WAN link: rate-limited, delayed, bounded FIFO.
 * See delay_line.h for the model. */
#include "delay_line.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1000000000ull

int delay_line_init(struct delay_line *dl, uint32_t capacity, uint64_t rate_bps,
                    uint64_t delay_ns, uint64_t queue_limit_bytes)
{
    memset(dl, 0, sizeof(*dl));
    if (capacity == 0) {
        errno = EINVAL;
        return -1;
    }
    dl->slots = calloc(capacity, sizeof(*dl->slots));
    if (dl->slots == NULL)
        return -1;
    dl->capacity = capacity;
    dl->rate_bps = rate_bps;
    dl->delay_ns = delay_ns;
    dl->queue_limit_bytes = queue_limit_bytes;
    return 0;
}

void delay_line_free(struct delay_line *dl)
{
    free(dl->slots);
    dl->slots = NULL;
    dl->capacity = dl->count = 0;
}

uint64_t delay_line_backlog_bytes(const struct delay_line *dl, uint64_t now_ns)
{
    if (dl->rate_bps == 0 || dl->link_free_ns <= now_ns)
        return 0;
    /* 128-bit intermediate: ns * bit/s overflows 64 bits after ~0.1 s at 200 Mbit/s. */
    unsigned __int128 bits = (unsigned __int128)(dl->link_free_ns - now_ns) * dl->rate_bps;
    return (uint64_t)(bits / NS_PER_S / 8u);
}

int delay_line_push(struct delay_line *dl, uint64_t now_ns, const uint8_t *frame, size_t len)
{
    if (len > DELAY_LINE_FRAME_MAX) {
        dl->ctr.drop_oversize++;
        return -1;
    }
    if (dl->count == dl->capacity) {
        dl->ctr.drop_ring++;
        return -1;
    }
    if (dl->queue_limit_bytes != 0 && dl->rate_bps != 0 &&
        delay_line_backlog_bytes(dl, now_ns) + len > dl->queue_limit_bytes) {
        dl->ctr.drop_queue++;
        return -1;
    }
    if (dl->rate_bps == 0) {
        dl->link_free_ns = now_ns;
    } else {
        /* A busy link carries its sub-ns remainder on; an idle one starts afresh at now. */
        uint64_t rem = dl->link_free_ns >= now_ns ? dl->link_free_rem : 0;
        uint64_t start = dl->link_free_ns >= now_ns ? dl->link_free_ns : now_ns;
        uint64_t tx = (uint64_t)len * 8u * NS_PER_S + rem; /* ns x rate_bps; < 2^64 for len, rate allowed */
        dl->link_free_ns = start + tx / dl->rate_bps;
        dl->link_free_rem = tx % dl->rate_bps;
    }

    struct frame_slot *s = &dl->slots[(dl->head + dl->count) % dl->capacity];
    s->due_ns = dl->link_free_ns + dl->delay_ns;
    s->len = (uint16_t)len;
    memcpy(s->data, frame, len);
    dl->count++;
    dl->ctr.accepted_frames++;
    dl->ctr.accepted_bytes += len;
    return 0;
}

const struct frame_slot *delay_line_head(const struct delay_line *dl)
{
    return dl->count == 0 ? NULL : &dl->slots[dl->head];
}

void delay_line_pop(struct delay_line *dl)
{
    if (dl->count == 0)
        return;
    dl->head = (dl->head + 1) % dl->capacity;
    dl->count--;
}
