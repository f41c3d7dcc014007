/* event_queue.h — the simulation's future event list: a binary min-heap on (time, insertion order). */
#ifndef ADW_SIM_EVENT_QUEUE_H
#define ADW_SIM_EVENT_QUEUE_H

#include <stdint.h>

enum sim_event_kind {
    EV_CORE_TICK,    /* call the core's dequeue */
    EV_DATA_AT_CORE, /* a server segment reaches the appliance (a = sta, b = segment index) */
    EV_AP_DONE,      /* an AP finished sending its head packet over the air (a = ap) */
    EV_ACK_AT_CORE,  /* a STA's TCP ACK reaches the appliance from its AP (a = sta, b = its tcp_bulk ack slot) */
    EV_ACK_AT_SERVER, /* that ACK reaches the server (a = sta, b = ack number) */
    EV_PAGE_START     /* the HTTP user at STA a requests the next page */
};

struct sim_event {
    uint64_t t_ns;   /* virtual time, ns */
    uint64_t order;  /* tie-break: insertion order */
    uint8_t kind;    /* enum sim_event_kind */
    uint32_t a;
    uint64_t b;
};

struct event_queue {
    struct sim_event *heap;
    uint32_t n, cap;
    uint64_t next_order;
};

int eq_init(struct event_queue *q, uint32_t cap);
void eq_free(struct event_queue *q);
/* -1 if full. */
int eq_push(struct event_queue *q, uint64_t t_ns, uint8_t kind, uint32_t a, uint64_t b);
/* 0 if empty. */
int eq_pop(struct event_queue *q, struct sim_event *ev);

#endif
