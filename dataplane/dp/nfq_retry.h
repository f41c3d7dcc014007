/*
 * Verdicts the kernel refused (the netlink send failed, e.g. ENOBUFS when it
 * could not allocate the message): the packet is still queued in the kernel
 * and leaves only with a verdict, so the verdict waits here, in order, and is
 * given again before any later one (packets of a flow keep their order).
 */
#ifndef ADW_DP_NFQ_RETRY_H
#define ADW_DP_NFQ_RETRY_H

#include <stdint.h>

#define NFQ_NO_PORT UINT16_MAX   /* a verdict counted on no port (a drop, a packet drained at shutdown) */
/* An accepted packet that leaves on no port either, routed by the kernel out of an interface that is none of them:
 * counted apart (routed_elsewhere_pkts), so that the ports' tx_pkts still add up (dp/README.md, --stats). */
#define NFQ_ELSEWHERE (UINT16_MAX - 1)
#define NFQ_RETRY_MAX 4096u   /* refused verdicts kept at once; beyond it one is given up (the unbind drops it) */

struct nfq_refused {
    uint32_t id;        /* nfqueue packet id */
    uint32_t verdict;   /* NF_ACCEPT or NF_DROP */
    uint16_t port;      /* the scheduler port it leaves on (counted when accepted), or NFQ_NO_PORT */
};

struct nfq_retry {
    struct nfq_refused q[NFQ_RETRY_MAX];
    unsigned head, n;   /* oldest entry, entries */
};

/* Keeps a refused verdict at the tail: 0, or -1 when NFQ_RETRY_MAX are already waiting. */
int nfq_retry_push(struct nfq_retry *r, uint32_t id, uint32_t verdict, uint16_t port);

/* The oldest waiting verdict, or NULL if none. */
const struct nfq_refused *nfq_retry_head(const struct nfq_retry *r);

/* Forgets the oldest (it was given). */
void nfq_retry_pop(struct nfq_retry *r);

/* How many of the waiting verdicts are verdict. */
unsigned nfq_retry_count(const struct nfq_retry *r, uint32_t verdict);

#endif
