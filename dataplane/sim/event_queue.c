/* event_queue.c — see event_queue.h. */
#include "event_queue.h"

#include <stdlib.h>

static int before(const struct sim_event *x, const struct sim_event *y)
{
    return x->t_ns < y->t_ns || (x->t_ns == y->t_ns && x->order < y->order);
}

int eq_init(struct event_queue *q, uint32_t cap)
{
    q->heap = malloc(sizeof(*q->heap) * cap);
    q->n = 0;
    q->cap = cap;
    q->next_order = 0;
    return q->heap == NULL ? -1 : 0;
}

void eq_free(struct event_queue *q) { free(q->heap); }

int eq_push(struct event_queue *q, uint64_t t_ns, uint8_t kind, uint32_t a, uint64_t b)
{
    if (q->n == q->cap)
        return -1;
    uint32_t i = q->n++;
    struct sim_event e = {.t_ns = t_ns, .order = q->next_order++, .kind = kind, .a = a, .b = b};
    while (i > 0 && before(&e, &q->heap[(i - 1) / 2])) {
        q->heap[i] = q->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q->heap[i] = e;
    return 0;
}

int eq_pop(struct event_queue *q, struct sim_event *ev)
{
    if (q->n == 0)
        return 0;
    *ev = q->heap[0];
    struct sim_event last = q->heap[--q->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && before(&q->heap[c + 1], &q->heap[c]))
            c++;
        if (!before(&q->heap[c], &last))
            break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    if (q->n > 0)
        q->heap[i] = last;
    return 1;
}
