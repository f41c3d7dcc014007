/*
 * ack_delay.h — the release-to-ACK delay of one paced pair (SPEC §3.7): the time from the appliance releasing a
 * downlink TCP data segment to the first ACK from the STA that acknowledges all of it.
 *
 * Why: the aggregation-target loop reads the aggregation level and holds the round μ̃_N / x at T̄ (000 (9)),
 * which 000 §IV's model equates with the AP's queueing. An AP can keep a queue the model has no place for:
 * after the testbed's hidden step its A-MPDUs are cut by a duration cap that moves with its retry chain, MPDUs
 * wait behind full frames, and the mean frame size still sits at N_target (testbed/findings/aggregation-target.md, "Where the AP's
 * wait goes after the hidden step"). The release-to-ACK delay shows that queue from packets that cross the
 * appliance anyway: the AP's queue, its channel access, the A-MPDU's airtime and the STA's answer; nothing is
 * probed. Its least value over a window of many rounds is the path without a queue (a segment that reached the
 * AP just before its A-MPDU was built). Above that least it is not the AP's wait alone: the STA's ACK contends
 * with the AP's next frames and a segment behind a lost MPDU waits in the STA's reorder buffer; on the testbed
 * it follows the AP's wait per 0.5 s slot but sits 1-3.5 ms above it (testbed/findings/aggregation-target.md, "The release-to-ACK
 * delay sees that queue").
 *
 * One segment is timed at a time, as TCP times one segment per round trip (RFC 6298 §3): the next data segment
 * released after the last timed one was answered or given up. That is at most one sample per round trip, a few
 * hundred per 0.5 s step of the loop at a few ms, in 32 bytes per pair.
 *  - Answered: an ACK of the segment's flow (its key hash, flow_hash.h) at or beyond the segment's end sequence
 *    (serial arithmetic, RFC 1982). A receiver acknowledging every second segment answers it at the latest with
 *    the next one, which a paced pair releases one pacing interval later. SACK blocks are not taken: a block
 *    whose right edge reaches the segment may start after it, with the segment itself lost.
 *  - Not timed (Karn's rule, RFC 6298 §3): a segment of the flow ending at or before the timed one released
 *    again while it is open is a retransmission, and the ACK that covers the timed one then waits for it.
 *  - Given up: no answer within ADW_ACK_DELAY_GIVE_UP_NS (an ACK lost, a flow that ended).
 */
#ifndef ADW_CORE_ACK_DELAY_H
#define ADW_CORE_ACK_DELAY_H

#include <stdbool.h>
#include <stdint.h>

#include "queue.h"

#define ADW_ACK_DELAY_GIVE_UP_NS 500000000ull /* 500 ms: a hundred rounds at the loop's T̄ of a few ms */

struct adw_ack_delay {
    bool open;                   /* a segment is being timed */
    uint32_t hash;               /* flow key hash of the timed segment */
    uint32_t seq_end;            /* its end sequence (seq + payload) */
    uint64_t sent_ns;            /* when it was released, ns */
    /* per report interval: */
    uint32_t n;                  /* samples */
    uint64_t sum_ns;             /* sum of the samples, ns */
    uint64_t min_ns;             /* least sample, ns; UINT64_MAX if none */
};

void adw_ack_delay_init(struct adw_ack_delay *d);
/* A downlink segment of the pair (its parsed fields m) was released at now_ns. */
void adw_ack_delay_released(struct adw_ack_delay *d, const struct adw_tcp_meta *m, uint64_t now_ns);
/* An uplink TCP segment of the pair passed at now_ns. */
void adw_ack_delay_observe_ack(struct adw_ack_delay *d, const struct adw_tcp_meta *m, uint64_t now_ns);
/* The samples since the last take: their count, and their mean and least in *mean_ns / *min_ns (0 if none). */
uint32_t adw_ack_delay_take(struct adw_ack_delay *d, uint64_t *mean_ns, uint64_t *min_ns);

#endif
