/*
 * astar.h — A* queue sizing of one pair's queues (003 §IV-V, SPEC §3.5):
 * drop-tail limit = min(Q_eBDP, q_ALT), clamped to [q_min, q_max].
 *
 *  - eBDP (003 §IV, Algorithms 1-2): Q_eBDP = min(T_max / T_serv + c, Q_max)
 *    with T_serv an EWMA (weight W = ewma_alpha) of the per-packet service
 *    time. A time-sliced pair is served only in its slices, so its effective
 *    per-packet service time is V/released scaled by frame/S_i (the frame
 *    repeats every frame_ns, the pair drains during S_i of it: the slice time
 *    it had in the last frame, idle pairs' slices taken included); the caller
 *    passes that sample.
 *  - ALT (003 §V-A eq. (1), Algorithm 3): q_ALT += a1 t_idle - b1 t_busy per
 *    observation interval (here: each frame), clamped. The queue is "busy"
 *    while it holds more than its threshold: for a batched pair the threshold
 *    is the next batch r, since only packets beyond one batch wait a whole
 *    frame more (standing delay); at or below it the next slice could have
 *    carried more (the link may idle).
 * Units: times in ns, a1/b1 in packets per ms, limits in packets.
 */
#ifndef ADW_CORE_ASTAR_H
#define ADW_CORE_ASTAR_H

#include <stdbool.h>
#include <stdint.h>

#include "adwiser/config.h"

struct adw_astar {
    double t_serv_ns;            /* EWMA per-packet (effective) service time, ns; 0 = no sample yet */
    double q_ebdp;               /* current Q_eBDP, packets */
    double q_alt;                /* current q_ALT, packets */
    uint64_t idle_ns, busy_ns;   /* accumulated in the current interval */
    uint64_t last_ns;            /* time of the last observation */
    bool busy;                   /* state since last_ns */
    uint32_t floor;              /* the limit never goes below this (two TS-ABR-QD batches), packets; 0 = none */
    uint32_t limit;              /* max(floor, min(Q_eBDP, q_ALT)) clamped, packets */
};

void adw_astar_init(struct adw_astar *a, const struct adw_queue_sizing_policy *p, uint64_t now_ns);
/* Re-clamps after a policy change. */
void adw_astar_rebound(struct adw_astar *a, const struct adw_queue_sizing_policy *p);
/*
 * Floor of the limit for a batched pair: a queue limit under the batch size r starves every batch, and a
 * batch that finds fewer than r packets is under-filled, gives no eBDP sample and cannot grow r, so a limit
 * that once fell under r (a slow drain during a collision burst) stayed there for good (measured: 56 packets
 * for r = 101 at 100 ms slices, all batches under-filled). The floor is two batches: the one being released
 * and one bandwidth-delay product of the time-sliced link (its RTT is about a frame, in which it serves r),
 * the buffer a TCP flow needs to keep the link busy after a multiplicative decrease (003 §III).
 */
void adw_astar_set_floor(struct adw_astar *a, const struct adw_queue_sizing_policy *p, uint32_t floor_pkts);
/*
 * Smallest batch whose drain time V gives a per-packet service sample V / n for a time-sliced pair. V is a fixed
 * latency L (one channel access, the A-MPDU and its BlockAck, the STA's TCP ACK on its way back: about a
 * millisecond, tens of ms while hidden APs collide) plus n per-packet service times, so V / n = t + L / n. A
 * batch that fits in one A-MPDU (the lab aggregates 16-19 MPDUs, 004 Table 3) is a single transmission: its V is
 * L, not n service times. Measured in http-bulk: after a collision burst had driven r to r_min = 2, a 2-packet
 * batch with V = 25-40 ms gave 40 ms "per packet", the first such sample cut the limit from 777 to 77 in one
 * frame, and the next page's slow start lost 81-155 packets at the tail (retransmissions, one RTO).
 */
#define ADW_EBDP_MIN_BATCH_PKTS 16u

/* One per-packet service time sample (ns): EWMA update of T_serv and Q_eBDP (003 Algorithm 2). */
void adw_astar_service_sample(struct adw_astar *a, const struct adw_queue_sizing_policy *p, double t_pkt_ns);
/* The queue length or its threshold changed at now_ns: account the time since the last observation. */
void adw_astar_observe(struct adw_astar *a, uint64_t now_ns, uint32_t queue_pkts, uint32_t threshold_pkts);
/* End of an observation interval at now_ns: the ALT step (003 Algorithm 3). */
void adw_astar_interval(struct adw_astar *a, const struct adw_queue_sizing_policy *p, uint64_t now_ns);

#endif
