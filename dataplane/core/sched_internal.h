/*
 * sched_internal.h — the state behind the opaque struct adw_sched, shared by
 * the core's files (plan.c, classify.c, sched.c, release.c, deferral.c,
 * refill.c, realtime_release.c, paced_release.c, dynamic_slicing.c, report.c).
 *
 * A *plan* is a configuration made ready for the packet path: a private copy
 * of the struct adw_config, the MAC/IP lookup tables, conflict lists and the
 * mapping of each pair to a *state slot*. Per-pair runtime state (queues,
 * TS-ABR-QD, drain, A*) lives in slots that persist across configuration
 * versions, keyed by pair name "ap/sta": a new plan keeps the slot of every
 * pair it shares with the plan in force. Plans are built on the control path
 * (create, set_config) and swapped in at a frame boundary without allocating.
 */
#ifndef ADW_CORE_SCHED_INTERNAL_H
#define ADW_CORE_SCHED_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "adwiser/sched.h"
#include "ack_burst.h"
#include "ack_delay.h"
#include "astar.h"
#include "drain.h"
#include "pacer.h"
#include "pair_table.h"
#include "parse.h"
#include "queue.h"
#include "slice_clock.h"
#include "tsabr.h"

#define ADW_SLOT_NONE 0xffff

/* State slots: a new version's pairs take theirs when it is staged (set_config, the control path: the swap at a frame
 * boundary allocates nothing), while every pair of the version in force still holds its own, and a pair the new
 * version removes keeps its slot past the swap (its drain, and the held packets released to its AP then, hold back the
 * pairs it conflicted with: struct adw_plan, gone_*). So one change can need a slot for each pair of both versions:
 * with ADW_MAX_PAIRS slots, a version at capacity that only renamed or replaced one STA was refused, a valid document
 * (the controller and --check-config take it) refused depending on what ran. Twice ADW_MAX_PAIRS takes every valid
 * version whatever is in force, for about 19 MB more memory at create (ordinary pages, big_alloc.h; not the hugepages
 * reserved for DPDK). The gone slots of the plan in force are free for the next one: its gone_* lists end with it,
 * and their drains count as over a frame after its swap, by the first boundary that can swap another in. */
#define ADW_MAX_SLOTS (2u * ADW_MAX_PAIRS)
_Static_assert(ADW_MAX_SLOTS < ADW_SLOT_NONE, "slot indices are uint16_t, ADW_SLOT_NONE excluded");

#define ADW_TPUT_EWMA 0.2        /* weight of one frame in the per-pair throughput EWMA */
/* Marks of struct adw_sched.in_slice while a slice starts (0: not one of its pairs). */
#define ADW_IN_SLICE_IDLE 1      /* one of its pairs, nothing queued at the slice start */
#define ADW_IN_SLICE_SENDS 2     /* one of its pairs that sends in it: backlog at the slice start, or its batch
                                    went early (refill.c) */

struct adw_plan {
    struct adw_config *cfg;                  /* private copy */
    struct adw_pair_table table;
    uint16_t slot_of_pair[ADW_MAX_PAIRS];    /* pair index -> state slot */
    uint64_t s_ns[ADW_MAX_PAIRS];            /* slice time of each pair per frame, ns */
    uint64_t s_ref_ns[ADW_MAX_PAIRS];        /* length of the pair's first slice, ns: r is the batch for it and
                                                scales with the length of any other slice it is released into */
    uint64_t slice_mask[ADW_MAX_PAIRS];      /* bit s: the pair is one of slices[s].pairs (ADW_MAX_SLICES <= 64) */
    uint64_t frame_ns;                       /* frame length, ns */
    uint32_t *conflict_off;                  /* CSR: conflicts of pair p are conflict_list[off[p]..off[p+1]) */
    uint16_t *conflict_list;
    /* Pairs of the plan this one replaced that it does not keep (removed, or their STA moved to another AP): a version
     * swapped in at a frame boundary does not take off the air what the old one released, a batch draining past the
     * boundary (its slice's, or one that went early for the next slice 0, refill.c), nor what a removed pair still
     * held, released to its AP at the swap into its drain (sched.c, release_removed_pairs_held). Such a pair is in no
     * conflict list of the new version, and without these lists a pair that conflicted with it was released into it
     * (SPEC §3.1, 004 §5). So pair q's batches also wait while these drains are on the air (deferral.c): the state
     * slots listed for q's AP in gone_held (the old version had the gone pair conflict with a pair of that AP), and
     * those listed in gone_at for the AP of a pair q conflicts with (the gone pair was on that AP). Conflicts are
     * hidden or co-channel APs (004 §4.1): a pair new to the version, a moved STA's, has only its AP to go by. CSR by
     * AP index (n_aps + 1 offsets); n_gone: how many pairs are gone (0: nothing to look up). */
    uint32_t n_gone;
    uint32_t *gone_held_off, *gone_at_off;
    uint16_t *gone_held_slot, *gone_at_slot;
    bool dyn_taker[ADW_MAX_PAIRS];           /* pair may take idle slices (dynamic slicing) */
    bool rt_dscp[64];                        /* DSCP values classified real-time */
    /* "ap_id/sta_id" of each pair (adw_config_pair_name), made once per configuration: every frame report names
     * all pairs, and formatting 4096 names at each frame boundary was ~1.3 % of `make bench`'s samples. */
    char (*pair_name)[ADW_PAIR_NAME_LEN];
    uint8_t *pair_name_len;                  /* strlen of each */
};
_Static_assert(ADW_MAX_SLICES <= 64, "struct adw_plan.slice_mask has one bit per slice");

/*
 * Per-pair runtime state, one per slot. With thousands of pairs (4096 in
 * `make bench`) a pair's state is rarely in the cache when its packet comes,
 * and every cache line the packet path reads is a miss. What it reads for each
 * packet (flags, queues, TS-ABR-QD's batch, A*, pacer, the ACK estimator,
 * whose index and burst state lead its struct) is in the first few hundred
 * bytes; the drain is last: its head and flow index are read for every uplink
 * packet, its 3 KB flow table only at the entry the index points to.
 */
struct adw_pair_state {
    /* Cache-line aligned, so that the lines prefetch_pair (sched.c) asks for are the struct's first ones: at its
     * size of 4688 bytes the slots started at every 16-byte offset of a line, and for 3 in 4 of them A*'s limit and
     * the pacer, read for every queued packet, lay past the prefetched lines (make bench: the A* limit check at
     * ~1.9 % of adwiser-dp's samples). */
    _Alignas(64) bool active;                /* the slot belongs to a pair of the plan in force */
    uint16_t pair;                           /* its pair index in the plan in force */
    struct adw_fifo q_data;                  /* downlink TCP data */
    struct adw_fifo q_ack;                   /* downlink pure ACKs / control segments but FINs, RSTs (ACK isolation) */
    struct adw_fifo q_rt;                    /* real-time */
    bool rt_listed;                          /* on the rt_pending list */
    uint64_t rt_guard_until_ns;              /* its batches wait until then: real-time packets of a conflicting
                                                pair were just released (realtime_release.c); in the slot of a pair
                                                a swap removed, the end of the guard after its own, released to its
                                                AP then (sched.c), which the pairs that wait for it take */
    struct adw_tsabr tsabr;
    struct adw_astar astar;
    struct adw_pacer pacer;                  /* paced mode (SPEC §3.7) when its rate is set */
    bool paced_listed;                       /* on the paced list */
    struct adw_ack_est ack;                  /* ACK-burst aggregation estimator, loss signals (001 §4.1, §5) */
    struct adw_ack_delay ack_delay;          /* release-to-ACK delay while paced (ack_delay.h) */
    /* the batch being drained: */
    uint64_t batch_s_ns;                     /* slice length it was released into, ns */
    uint32_t batch_pkts;                     /* packets released in it */
    bool batch_underfilled;
    uint64_t refill_slice_ns;                /* 1 + start of the slice whose time left it last had a refill in,
                                                0 = none (adw_refill_batch: one per slice) */
    uint64_t early_slice_ns;                 /* 1 + start of the slice whose batch went early, before it began
                                                (adw_start_next_slice_early), 0 = none */
    uint64_t idle_slice_ns;                  /* 1 + start of the last slice of its own it had nothing queued at
                                                (its share of it may be given away: dynamic slicing), 0 = none */
    uint64_t last_v_ns;                      /* last completed (or capped) drain time, ns */
    /* a batch held back at its slice start while a conflicting pair still drained (deferral.c): */
    bool deferred;
    uint64_t defer_start_ns;                 /* when it was held back */
    uint64_t defer_silence_ns;               /* a conflicting drain not heard from for this long is over */
    uint64_t defer_slice_end_ns;             /* end of the slice it belongs to */
    /* per frame (reset at each frame boundary): */
    uint32_t frame_released_pkts;
    uint64_t frame_released_bytes;
    uint32_t frame_drains;                   /* drains that ended this frame */
    uint64_t frame_v_sum_ns;                 /* sum of their V, ns */
    uint64_t frame_gave_slices;              /* bit s: it gave its share of slice s away this frame */
    uint64_t frame_s_ns;                     /* slice time it actually used this frame, ns */
    uint64_t last_frame_s_ns;                /* frame_s_ns of the last finished frame, ns (0: none, or all given
                                                away): the airtime share its eBDP sample is stretched by */
    /* cumulative, from counters_since_ns on (the pair's state was made then: adw_pair_state_init): */
    uint64_t counters_since_ns;
    uint64_t drops_tail, drops_other;
    double tput_bps;                         /* EWMA of released bytes*8 per frame time */
    struct adw_drain drain;                  /* last: see above */
};

struct adw_report_entry {
    struct adw_frame_report f;
    struct adw_pair_report *pairs;           /* ADW_MAX_PAIRS entries */
};

struct adw_sched {
    struct adw_sched_params params;
    struct adw_plan *plan;                   /* in force */
    struct adw_plan *staged;                 /* waiting for the next frame boundary, or NULL */
    struct adw_pool pool;
    struct adw_pair_state *slots;            /* ADW_MAX_SLOTS */
    struct adw_fifo due;                     /* released, waiting to be handed out by dequeue */
    uint16_t *rt_pending;                    /* slots with real-time backlog */
    uint32_t n_rt_pending;
    uint64_t rt_hold_until_ns;               /* real-time packets held for a conflicting drain until then at the
                                                latest, 0 = none held (realtime_release.c) */
    uint64_t rt_hold_start_ns;               /* the slice start they were held at */
    struct adw_slice_clock clock;
    bool frame_open;                         /* a frame has begun (its report is owed at the next boundary) */
    uint64_t frame_index, frame_start_ns;    /* the open frame */
    uint32_t frame_version;
    uint32_t frame_reassignments;
    uint16_t given_to[ADW_MAX_SLICES];
    uint64_t slice_early_ns[ADW_MAX_SLICES]; /* this frame's slices: how early their batches went, ns */
    uint64_t next_frame_early_ns;            /* the same for slice 0 of the next frame, ns */
    uint64_t frame_skipped_slices;           /* bit s: slice s of this frame was over when the loop came to it */
    uint8_t *in_slice;                       /* scratch: marks of the current slice's pairs (ADW_IN_SLICE_*) */
    uint16_t *paced;                         /* slots in paced mode */
    uint16_t *deferred;                      /* slots with a deferred batch */
    uint32_t n_deferred;
    uint32_t n_paced;
    bool has_ack_model;
    struct adw_ack_model ack_model;
    struct adw_report_entry *ring;           /* params.report_frames entries */
    uint32_t ring_head, ring_count;
    struct adw_stats st;
};

/* plan.c */
struct adw_plan *adw_plan_build(const struct adw_config *cfg, const struct adw_plan *current, char *err,
                                size_t errlen);
void adw_plan_free(struct adw_plan *p);
bool adw_plan_conflict(const struct adw_plan *p, uint16_t a, uint16_t b);

/* classify.c */
enum adw_class_kind {
    ADW_CLASS_PASS,              /* forward to out_port now */
    ADW_CLASS_UPLINK,            /* AP -> uplink: pass to port 0, observe for drain inference */
    ADW_CLASS_DATA,              /* queue: downlink TCP data, and a bare FIN or RST (in order after it) */
    ADW_CLASS_ACK,               /* queue: downlink pure ACK / control segment other than a FIN, RST */
    ADW_CLASS_RT                 /* queue: real-time */
};
struct adw_class {
    uint8_t kind;                /* enum adw_class_kind */
    uint16_t pair;               /* pair index, ADW_PAIR_NONE if none */
    uint16_t out_port;
    uint64_t *counter;           /* stats counter of a pass, NULL for queued kinds */
};
void adw_classify(struct adw_sched *s, const struct adw_desc *d, bool parsed, const struct adw_pkt *pkt,
                  struct adw_class *c);
void adw_meta_from_desc(const struct adw_desc *d, bool downlink, struct adw_tcp_meta *m);
uint16_t adw_pair_out_port(const struct adw_plan *p, uint16_t pair);

/* release.c */
void adw_slice_start(struct adw_sched *s, const struct adw_slice_event *ev, uint64_t now_ns);
void adw_finish_drain(struct adw_sched *s, struct adw_pair_state *ps, uint64_t v_ns, bool capped, uint64_t now_ns);
/* r_i(k) for a slice of s_ns: the batch of the pair's reference slice S_ref, scaled to that length. */
uint32_t adw_batch_for(const struct adw_sched *s, const struct adw_pair_state *ps, uint64_t s_ns);
/* Releases up to adw_batch_for(s_ns) packets of the pair (ACKs and data alternating) and opens its drain; a drain
 * still open is closed first (capped). Returns how many went. */
uint32_t adw_release_batch(struct adw_sched *s, struct adw_pair_state *ps, uint64_t s_ns, uint64_t now_ns);
/* The batch of a slice: adw_release_batch, and V = 0 at once for a batch that leaves nothing to wait for. */
void adw_release_slice_batch(struct adw_sched *s, struct adw_pair_state *ps, uint64_t s_ns, uint64_t now_ns);
uint32_t adw_pair_queued(const struct adw_pair_state *ps);
void adw_pair_state_init(struct adw_sched *s, struct adw_pair_state *ps, uint16_t pair, uint64_t now_ns);

/* deferral.c */
/* A batch of pair may not go now: a conflicting drain is on the air, or the real-time guard holds it. */
bool adw_batch_held_back(const struct adw_sched *s, uint16_t pair, uint64_t now_ns);
/* Holds the pair's batch of slice ev (duration_ns long) until adw_release_deferred lets it go. */
void adw_defer_batch(struct adw_sched *s, struct adw_pair_state *ps, const struct adw_slice_event *ev,
                     uint64_t duration_ns, uint64_t now_ns);
/* The pair's drain still open at slice ev's start went in the slice just before (back-to-back slices). */
bool adw_drained_in_previous_slice(const struct adw_sched *s, const struct adw_pair_state *ps,
                                   const struct adw_slice_event *ev);
/* The later of at and the time the drains that pair waits for as drains of pairs of the version before that this one
 * does not have (struct adw_plan, gone_*) would all count as silent: no ACK heard for silence_ns. at itself if none
 * is open; UINT64_MAX stands for "none so far". The batches of deferral.c and the real-time packets of
 * realtime_release.c both wait for them. */
uint64_t adw_gone_drains_silent_at(const struct adw_sched *s, uint16_t pair, uint64_t silence_ns, uint64_t at);
/* How long a drain open with no ACK heard still counts as on the air: a frame (deferral.c says why). */
uint64_t adw_drain_silence_ns(const struct adw_sched *s);
/* Drops the pair's own deferred batch, if any, leaving its packets queued (the pair enters paced mode). */
void adw_cancel_deferred(struct adw_sched *s, struct adw_pair_state *ps, uint64_t now_ns);
/* Releases deferred batches whose conflicting drains ended or whose deferral ran out (all of them if force). */
void adw_release_deferred(struct adw_sched *s, uint64_t now_ns, bool force);
/* Earliest time a deferred batch may go (its conflicting drains silent, the real-time guard past) or its slice
 * ends (at or before now if one is free already: 0 when nothing holds it), UINT64_MAX if none is deferred. */
uint64_t adw_deferred_next_ns(const struct adw_sched *s);

/* refill.c */
/* The pair's drain just ended with time left in its slice: true if a batch for that time was released into the
 * same drain (V runs on from the first release; the drain is finished when that batch is drained). */
bool adw_refill_batch(struct adw_sched *s, struct adw_pair_state *ps, uint64_t now_ns);
/* The drain of pair `ended` ended in its own slice without a refill: with policies.ts_abr_qd.early_handover and
 * under ADW_REFILL_MIN_NS left, the next slice's pairs whose whole batch is queued and that nothing holds back get
 * their batches now, for the time to that slice's end. */
void adw_start_next_slice_early(struct adw_sched *s, const struct adw_pair_state *ended, uint64_t now_ns);

/* paced_release.c */
void adw_paced_release(struct adw_sched *s, uint64_t now_ns);
uint64_t adw_paced_next_ns(const struct adw_sched *s, uint64_t now_ns);
void adw_paced_prune(struct adw_sched *s);

/* dynamic_slicing.c */
uint16_t adw_dynslice_pick(struct adw_sched *s, uint16_t slice);

/* report.c */
void adw_report_frame(struct adw_sched *s, uint64_t end_ns);

#endif
