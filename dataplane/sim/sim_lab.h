/*
 * sim_lab.h — the simulated 2AP-2STA lab of 004 §4-§6.1 around the real
 * scheduling core: a bulk TCP server (tcp_bulk.h) one D_SERVER_NS from the
 * appliance, two synthetic APs (ap_model.h) whose STAs' ACKs come back
 * through the core D_ACK_NS after the STA sent them, and the events that tie
 * them together in virtual time. The core is called exactly as a backend
 * calls it (enqueue bursts, dequeue at adw_sched_next_event_ns, poll_frame for
 * the frame reports, kept in frame_stats.h). sim_main.c runs it and prints.
 */
#ifndef ADW_SIM_SIM_LAB_H
#define ADW_SIM_SIM_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adwiser/sched.h"
#include "ap_model.h"
#include "event_queue.h"
#include "frame_stats.h"
#include "rng.h"
#include "tcp_bulk.h"

#define SIM_MS 1000000ull
#define D_SERVER_NS (1 * SIM_MS)  /* server <-> appliance, one way */
#define D_ACK_NS 250000ull        /* STA's ACK to the appliance through its AP (uplink access) */
#define PAGE_SEGS ((uint64_t)(22.64e6 / 8 / TCP_MSS + 1)) /* 004 §6.3: 22.640 Mb per page */
#define FIRST_PAGE_NS (500 * SIM_MS)

/* Isolated throughputs of 004 Table 3 as MPDU service rates (1448-byte payload): 79.6 and 103.5 Mbit/s. */
extern const double SIM_BETA[2];

/* The HTTP user at STA2 (scenario http). */
struct http_user {
    bool on;
    bool loading;                /* a page is being downloaded */
    uint64_t page_start_ns;
    unsigned pages;              /* pages completed in the measured window */
    double resp_sum_ms;
};

struct sim_lab {
    struct adw_config *cfg;
    struct adw_sched *s;
    struct event_queue q;
    struct rng rng;
    uint64_t slice_ns, frame_ns, end_ns, warm_ns;
    uint64_t tick_at;            /* time of the core tick queued last; UINT64_MAX once it ran */
    struct tcp_bulk flows[2];
    struct ap_model aps[2];
    struct http_user http;
    struct frame_stats frames;
};

/* NULL with err set on failure. Scenario http: bulk TCP at STA1, the HTTP user at STA2, dynamic slicing on. */
struct sim_lab *sim_lab_create(unsigned slice_ms, unsigned seconds, uint64_t seed, bool http, char *err,
                               size_t errlen);
/* One event at ev->t_ns, then the core's next tick is queued if it comes before the one queued. */
void sim_lab_handle(struct sim_lab *L, const struct sim_event *ev);
/* Every event before end_ns. */
void sim_lab_run(struct sim_lab *L);
void sim_lab_free(struct sim_lab *L);

#endif
