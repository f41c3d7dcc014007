/*
 * Packets the kernel accepted itself because our socket was full.  The queue
 * gives each packet the next id (per queue, from 1) before it tries to hand
 * it to the socket; when the socket is full (NETLINK_NO_ENOBUFS: no error
 * reaches us) the fail-open queue accepts the packet, unscheduled and counted
 * nowhere in the kernel (its queue_dropped and queue_user_dropped count only
 * without fail-open).  Messages arrive in id order, so each id we skip is one
 * such packet, and so is each id the kernel gave after the last one we read
 * (/proc/net/netfilter/nfnetlink_queue's id_sequence, read before the unbind).
 * A full queue (queue_maxlen) accepts before it assigns an id: those leave no
 * trace at all.
 */
#ifndef ADW_DP_NFQ_FAIL_OPEN_H
#define ADW_DP_NFQ_FAIL_OPEN_H

#include <stdint.h>
#include <stdio.h>

/* How many ids were skipped before id; *last_id (0 before the first packet) becomes id unless id is older. */
uint32_t nfq_ids_skipped(uint32_t *last_id, uint32_t id);

/*
 * The last id the kernel gave on queue queue_num, from f in the format of /proc/net/netfilter/nfnetlink_queue
 * (queue_num, portid, queue_total, copy_mode, copy_range, queue_dropped, queue_user_dropped, id_sequence, 1):
 * 0 and *id_sequence set, or -1 if no line is that queue's.
 */
int nfq_ids_given(FILE *f, uint16_t queue_num, uint32_t *id_sequence);

#endif
