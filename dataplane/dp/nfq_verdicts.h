/*
 * The NFQUEUE backend's verdicts for the core's decisions, apart from the
 * kernel queue (the sink is a function, so tests record what it is given).
 * A verdict reinjects the packet at once, in the order given: what the core
 * releases because of a burst (a real-time packet on arrival, a batch an
 * uplink ACK's closed drain let go) is given NF_ACCEPT before the burst's
 * passed packets, as the DPDK loop sends it first (the air is clear for it
 * now; the next batch follows a guard time later).
 */
#ifndef ADW_DP_NFQ_VERDICTS_H
#define ADW_DP_NFQ_VERDICTS_H

#include <stdint.h>

#include "dp_engine.h"
#include "nfq_retry.h"

#define NFQ_MAX_BURST 512u   /* packets handed to the core per enqueue_burst */

/*
 * A packet read from the queue: the verdict id and our own copy of the frame
 * (the netlink buffer is reused by the next recv), malloc'ed; it is the
 * adw_pkt's cookie and is freed once its verdict is given.
 */
struct nfq_held {
    uint32_t id;        /* nfqueue packet id for the verdict */
    uint32_t len;       /* bytes in frame */
    uint16_t route_port;   /* port of the kernel's output device (NFQ_ELSEWHERE: none of ours); a flood's count */
    uint8_t frame[];    /* Ethernet header + IP packet */
};

/* Gives verdict NF_ACCEPT or NF_DROP for packet id: 0, or -1 when the kernel did not take it. */
typedef int (*nfq_verdict_fn)(void *arg, uint32_t id, uint32_t verdict);

struct nfq_verdicts {
    struct dp_engine *e;
    unsigned n_ports;
    nfq_verdict_fn send;
    void *arg;
    uint64_t (*clock)(void);    /* CLOCK_MONOTONIC ns, read between a burst's verdicts; NULL: only its start counts */
    struct nfq_retry refused;   /* verdicts the kernel refused, given again before any later one */
    uint64_t errors;    /* refused NF_ACCEPTs given up, NFQ_RETRY_MAX waiting already (the unbind drops the packet) */
    uint64_t drops_given_up;   /* refused NF_DROPs given up likewise (still queued in the kernel until the unbind) */
};

/*
 * Gives packet id the verdict (NF_ACCEPT or NF_DROP): an accepted one is counted in tx_pkts and on port (NFQ_NO_PORT:
 * none).  Refused by the kernel, or behind one it refused, the verdict waits and is given again (verdicts_retried)
 * before any later one, by the next call here or nfq_verdicts_release_due.
 */
void nfq_verdicts_give(struct nfq_verdicts *v, uint32_t id, uint32_t verdict, uint16_t port);

/*
 * Accepts packet id without handing it to the core (not from one of the ports, or it could not be held): counted in
 * tx_pkts on no port and in unscheduled_pkts, so that what was accepted still adds up to what came in.
 */
void nfq_verdicts_pass_unscheduled(struct nfq_verdicts *v, uint32_t id);

/*
 * Hands pkts[0..n-1] (cookies: struct nfq_held *) to the core at now_ns and gives each the verdict it got, after
 * releasing what the burst made due (*due: the loop's awaited event, recorded and named again as the DPDK loop's
 * rx_dev does).  With a clock, the awaited event coming while the verdicts are given is released then, before the
 * rest: on this kernel a verdict takes about 4.5 µs, so a burst of 256 passed packets takes over a millisecond.
 */
void nfq_verdicts_burst(struct nfq_verdicts *v, struct adw_pkt *pkts, unsigned n, uint64_t now_ns, uint64_t *due);

/*
 * Gives the refused verdicts again, then releases what the core hands out at now_ns (NF_ACCEPT; NF_DROP for
 * ADW_PORT_DROP); returns how many it released.
 */
unsigned nfq_verdicts_release_due(struct nfq_verdicts *v, uint64_t now_ns);

/* Shutdown: a verdict for every packet the core holds; returns how many. */
unsigned nfq_verdicts_flush(struct nfq_verdicts *v);

/*
 * Before the unbind: the NF_ACCEPTs still refused after one more try, with those given up (--stats tx_drops); a
 * refused NF_DROP is not lost (the unbind drops its packet).
 */
uint64_t nfq_verdicts_lost(struct nfq_verdicts *v);

/* Packets read whose verdict the kernel has not taken (waiting, or given up): still in its queue. */
uint64_t nfq_verdicts_unanswered(const struct nfq_verdicts *v);

#endif
