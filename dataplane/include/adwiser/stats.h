/*
 * adwiser/stats.h — global counters of the scheduling core, all cumulative since adw_sched_create
 * (packets unless the name says bytes). Every packet given to enqueue is counted once in rx_pkts and lands in
 * exactly one of: a pass_* counter, queued_*, or drops_tail / drops_pool.
 */
#ifndef ADWISER_STATS_H
#define ADWISER_STATS_H

#include <stdint.h>

struct adw_stats {
    uint64_t rx_pkts;            /* packets given to enqueue */
    uint64_t rx_bytes;           /* their bytes */
    uint64_t malformed;          /* frames the parser refused (truncated, bad IHL/offset...); passed */
    uint64_t pass_uplink;        /* AP -> uplink packets (observed for drain inference) */
    uint64_t pass_broadcast;     /* broadcast/multicast destination (flooded) */
    uint64_t pass_unknown;       /* unicast to/from a MAC/IP not in the topology */
    uint64_t pass_arp;           /* ARP */
    uint64_t pass_other;         /* managed STA but unmanaged kind: ICMP, DHCP, UDP of a sliced pair, other protocols */
    uint64_t queued_data;        /* TCP data queued (with bare FINs, RSTs, and UDP of a paced pair) */
    uint64_t queued_ack;         /* pure TCP ACKs queued (ACK isolation) */
    uint64_t queued_rt;          /* real-time packets queued */
    uint64_t released_pkts;      /* handed out by dequeue (incl. flush) */
    uint64_t released_bytes;
    uint64_t released_rt;        /* of which real-time */
    uint64_t rt_holds;           /* slice starts at which real-time packets waited for a conflicting drain */
    uint64_t rt_held_ns;         /* total time from those slice starts to the release of what was held, ns */
    uint64_t rt_hold_timeouts;   /* holds that ran out (hold_max_fraction of the slice) with a drain still open */
    uint64_t rt_batch_waits;     /* batches that waited behind held real-time packets or the guard after them */
    uint64_t rt_between_slices;  /* real-time packets released between slice starts (no conflicting drain open) */
    uint64_t drops_tail;         /* refused at the A* queue limit */
    uint64_t drops_pool;         /* refused because the packet pool was full */
    uint64_t drops_config;       /* held packets of pairs removed by a new configuration, and released ones not yet
                                    handed out whose AP it removed, handed out as DROP */
    uint64_t released_config;    /* held packets of pairs removed by a new configuration that kept their AP, released
                                    to it at the swap (then in released_pkts when handed out); the new version's
                                    pairs that conflicted with the removed one wait for them as for its drain */
    uint64_t frames;             /* frames started */
    uint64_t frames_skipped;     /* whole frames skipped because dequeue was called too late */
    uint64_t slices_skipped;     /* slices already over, packets of their pairs waiting, when dequeue came to them
                                    (called too late): no batch */
    uint64_t batches;            /* TS-ABR-QD batches released */
    uint64_t batches_underfilled;/* batches that held fewer packets than r (no growth of r) */
    uint64_t batch_refills;      /* of the batches, refills: released into the time left in the slice when the
                                    pair's drain ended early (refill.c, adw_refill_batch) */
    uint64_t drains_completed;   /* drains ended by inferred ACKs / data, or by released RSTs (some unmeasured) */
    uint64_t drains_capped;      /* drains still open after v_cap_factor * S (lost ACKs), closed at that value */
    uint64_t drains_superseded;  /* drains still open (under the cap) when the pair's next batch was released,
                                    closed at that time; like capped ones they give no rate sample */
    uint64_t drains_silent;      /* of the capped and superseded ones, not heard from for a slice before they were
                                    closed: V is the time to the last segment heard (release.c, silent_drain_v) */
    uint64_t drains_unmeasured;  /* drains that gave no V (release.c, adw_finish_drain): capped and superseded ones
                                    still waiting for data to a connection the STA had reset, and completed ones
                                    ended after a server's RST released behind data of its flow no ACK had
                                    reported yet (drain.h) */
    uint64_t drains_overrun;     /* drains longer than the slice S_i */
    uint64_t slice_deferrals;    /* batches held back at their slice start while a conflicting pair still drained */
    uint64_t slice_deferred_ns;  /* total time they were held back, ns */
    uint64_t slice_deferrals_expired; /* of which skipped: the conflicting drain was still in the air at the end
                                         of their slice */
    uint64_t early_slice_starts; /* batches released before their slice start (policies.ts_abr_qd.early_handover):
                                    the slice before drained with no time left for a refill (refill.c,
                                    adw_start_next_slice_early) */
    uint64_t early_slice_ns;     /* total time they went before their slice start, ns */
    uint64_t drain_flows_untracked; /* TCP flows beyond the per-batch tracking table */
    uint64_t tsabr_resets;       /* r reset to r_init on a sharp rate change */
    uint64_t reassignments;      /* slices given away by dynamic slicing */
    uint64_t config_swaps;       /* configurations swapped in at a frame boundary */
    uint64_t config_rejected;    /* set_config refused */
    uint64_t reports_overwritten;/* frame reports lost because nobody polled */
    uint32_t pool_size;          /* packets the pool can hold */
    uint32_t pool_in_use;        /* packets held now */
};

#endif
