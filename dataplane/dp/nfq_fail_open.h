/*
 * Packets the kernel accepted itself because our socket was full.  The queue
 * gives each packet the next id (per queue, from 1) before it tries to hand
 * it to the socket; when the socket is full (NETLINK_NO_ENOBUFS: no error
 * reaches us) the fail-open queue accepts the packet, unscheduled and counted
 * nowhere in the kernel (its queue_dropped and queue_user_dropped count only
 * without fail-open).  Messages arrive in id order, so each id we skip is one
 * such packet, and so is each id the kernel gave after the last one we read
 * (/proc/net/netfilter/nfnetlink_queue's id_sequence, read before the unbind)
 * unless it is still queued then: the unbind drops those (nfq_trailing_ids).
 * A full queue (queue_maxlen) accepts before it assigns an id: those leave no
 * trace at all.
 */
#ifndef ADW_DP_NFQ_FAIL_OPEN_H
#define ADW_DP_NFQ_FAIL_OPEN_H

#include <stdint.h>
#include <stdio.h>

/* How many ids were skipped before id; *last_id (0 before the first packet) becomes id unless id is older. */
uint32_t nfq_ids_skipped(uint32_t *last_id, uint32_t id);

/* The queue's line of /proc/net/netfilter/nfnetlink_queue (queue_num, portid, queue_total, copy_mode, copy_range,
 * queue_dropped, queue_user_dropped, id_sequence, 1). */
struct nfq_queue_line {
    uint32_t queue_total;   /* packets in the queue waiting for a verdict: the unbind drops them */
    uint32_t id_sequence;   /* the last id the kernel gave */
};

/* Queue queue_num's line from f, in that format: 0 and *l set, or -1 if no line is that queue's. */
int nfq_queue_line_read(FILE *f, uint16_t queue_num, struct nfq_queue_line *l);

/*
 * Before the unbind: the ids given after *last_id (moved past them, as nfq_ids_skipped does), split.  Those still in
 * the queue, its entries less the `unanswered` packets read whose verdict the kernel never took, are dropped by the
 * unbind (*lost: a shutdown drain that timed out, or queueing that could not be stopped); the rest the kernel
 * accepted itself (*fail_open).  Both are added to.
 */
void nfq_trailing_ids(uint32_t *last_id, const struct nfq_queue_line *l, uint64_t unanswered, uint64_t *fail_open,
                      uint64_t *lost);

#endif
