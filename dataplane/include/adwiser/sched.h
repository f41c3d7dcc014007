/*
 * adwiser/sched.h — the ADWISER scheduling core (modelled on DPDK's rte_sched.h).
 *
 * Model. The core sits between the wired uplink (port 0) and the APs
 * (port k = aps[k-1] of the configuration). It does no I/O and never reads a
 * clock: every entry point takes the current time now_ns (any monotonic ns
 * clock, the same for all calls). The backend hands it bursts of received
 * frames (adw_sched_enqueue_burst) and asks it for the frames that are due
 * (adw_sched_dequeue_burst), sleeping until adw_sched_next_event_ns.
 *
 * Downlink (port 0 -> AP) packets of managed STAs are held per AP-STA pair in
 * three queues: TCP data (a bare FIN or RST with it, in order), pure TCP ACKs (ACK isolation, SPEC §3.6: the
 * server's ACKs of an uplink transfer are what is batched) and real-time
 * (DSCP EF or configured UDP ports). Each queue is drop-tail with the A*
 * limit min(Q_eBDP, q_ALT) (003 §IV-V). Time is cut into frames of slices
 * (SPEC §3.1); at each slice start the core releases, in order,
 *   1. every real-time packet held for any pair (004 §6.4, SPEC §3.4),
 *   2. for each pair of the slice a batch of r_i(k) packets taken from its
 *      data and ACK queues (TS-ABR-QD, 004 §5 eq. (1)); r_i is the batch for
 *      the pair's first slice and is scaled by S/S_first in a slice of
 *      another length.
 * A pair with nothing queued at its slice start may give the slice to a
 * backlogged pair of another slice (dynamic slicing, 004 §6.3).
 * A pair given a pacing rate x_i (adw_sched_set_pacing; SPEC §3.7) is in
 * paced mode instead: no batches, its data and ACK queues are released by a
 * token bucket at x_i whenever dequeue is called, still under the A* limit.
 * Returning ACKs of every pair feed the aggregation-level estimator of
 * 001 §4.1 (adw_sched_set_ack_model), reported per frame.
 *
 * Uplink (AP -> port 0) packets always PASS to port 0; the core observes them
 * to infer the drain time V_i of the last batch: for downlink TCP the ACKs
 * covering the last released byte of every flow of the batch, for uplink TCP
 * the data bytes the released ACKs allowed (SPEC §3.2). r is then updated by
 * r(k+1) = max(0, r(k) + a(S_i - V_i)), bounded to [r_min, r_max].
 *
 * Unmanaged traffic passes straight through: ARP, DHCP, ICMP, non-TCP/UDP,
 * broadcast/multicast (out_port = ADW_PORT_FLOOD), packets to unknown MACs
 * from the uplink (ADW_PORT_FLOOD), from an AP to anything (port 0).
 * Malformed frames are counted and passed.
 *
 * Memory: everything is allocated by adw_sched_create/adw_sched_set_config;
 * the packet path (enqueue, dequeue, poll) never allocates. Not thread-safe:
 * one lcore/thread owns a struct adw_sched.
 */
#ifndef ADWISER_SCHED_H
#define ADWISER_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adwiser/ack_model.h"
#include "adwiser/config.h"
#include "adwiser/stats.h"

#define ADW_PORT_UPLINK 0
#define ADW_PORT_FLOOD  0xffff   /* send on every port except in_port */
#define ADW_PORT_DROP   0xfffe   /* only from dequeue/flush: the backend frees the packet (cause counted in stats) */
#define ADW_PAIR_NONE   0xffff

struct adw_sched;                /* opaque */

struct adw_sched_params {
    uint32_t pool_pkts;          /* packets the core can hold in total (all queues); 0 = 65536 */
    uint32_t report_frames;      /* finished frames kept for adw_sched_poll_frame; 0 = 4; oldest overwritten (counted) */
    uint16_t mtu_bytes;          /* bytes of one "MTU packet" (r counts packets): converts drain rates to
                                    rate_bps; 0 = 1500 */
};

/* One packet as the I/O backend hands it over. */
struct adw_pkt {
    const uint8_t *data;         /* frame from the Ethernet header; must stay valid while the core holds it */
    uint32_t len;                /* bytes at data */
    uint16_t in_port;            /* 0 = uplink (wired side), k = AP k-1 in config order */
    uint16_t out_port;           /* set by the core: port to send it on, ADW_PORT_FLOOD or ADW_PORT_DROP */
    void *cookie;                /* backend handle (rte_mbuf *, NFQUEUE packet id); never touched by the core */
};

enum adw_verdict {
    ADW_PASS,                    /* forward now to pkts[i].out_port */
    ADW_QUEUED,                  /* the core holds it; it comes back from dequeue (or flush) */
    ADW_DROP                     /* queue limit / pool full: the backend frees it */
};

/* NULL on error (err says why: bad params, invalid config, out of memory). */
struct adw_sched *adw_sched_create(const struct adw_sched_params *p, const struct adw_config *cfg, uint64_t now_ns,
                                   char *err, size_t errlen);
/* Frees the core; packets still held are forgotten (call adw_sched_flush first). */
void adw_sched_free(struct adw_sched *s);

/* Parses and classifies each of pkts[0..n-1]; verdicts[i] says what happened to it. */
void adw_sched_enqueue_burst(struct adw_sched *s, struct adw_pkt *pkts, enum adw_verdict *verdicts, unsigned n,
                             uint64_t now_ns);

/* Advances the slice clock to now_ns (starting every slice that began, swapping in a staged configuration at a
 * frame boundary) and hands out up to max held packets that are due, in release order, with out_port set.
 * Returns how many were written to out. Call until it returns less than max. */
unsigned adw_sched_dequeue_burst(struct adw_sched *s, struct adw_pkt *out, unsigned max, uint64_t now_ns);

/* Time (ns, same clock) at which dequeue next has work: now_ns if packets are due already, else the next slice
 * start. */
uint64_t adw_sched_next_event_ns(const struct adw_sched *s, uint64_t now_ns);

/* Stages a new configuration: checked whole first (on error -1, err names the field, nothing changes); it takes
 * effect at the next frame boundary. Pairs keep their state across versions by name "ap/sta" (r scaled to a new
 * length of the pair's first slice, so its drain rate is kept); held packets of removed pairs are released to their
 * AP's port at the swap if that AP remains (counted as released_config; the new version's pairs that conflicted with
 * the removed one wait for them as for its drain), otherwise handed out with ADW_PORT_DROP (counted as drops_config).
 * Packets released before the boundary and not yet handed out go to their AP's port in the new version (APs matched
 * by id, so a reordered aps[] renumbers them), ADW_PORT_DROP (drops_config) if that AP is gone. A later set_config
 * before the boundary replaces the staged one. A configuration adw_config_check takes is taken whatever version is in
 * force: at capacity too, a version may replace every pair (the state of both versions' pairs fits; only running out of
 * memory refuses it). */
int adw_sched_set_config(struct adw_sched *s, const struct adw_config *cfg, uint64_t now_ns, char *err,
                         size_t errlen);
/* Version number of the configuration in force (cfg->version). */
uint32_t adw_sched_active_version(const struct adw_sched *s);

/* ---------------------------------------------------------------- aggregation target (SPEC §3.7) */

/* Paced mode of pair "ap/sta" of the configuration in force: rate_bps > 0 releases its queued downlink packets at
 * that rate of IP packet bytes (the frame less its 14-byte Ethernet header) (token bucket, one MTU frame of burst, release instants at µs precision) instead of in slice batches;
 * 0 returns it to its slices. Applied at now_ns, not at a frame boundary; no held packet is dropped or reordered.
 * Entering paced mode, the pair's batch still waiting for a conflicting drain is left to the pacer, and its own
 * open drain is dropped: what waited for that drain (conflicting pairs' batches, real-time packets) may go now.
 * The rate stays with the pair across configuration versions. -1 (err names it) for an unknown pair. */
int adw_sched_set_pacing(struct adw_sched *s, const char *pair_name, uint64_t rate_bps, uint64_t now_ns, char *err,
                         size_t errlen);
/* One pair's rate for adw_sched_set_pacing_table. */
struct adw_pacing_rate {
    const char *pair_name; /* "ap/sta" of the configuration in force */
    uint64_t rate_bps;     /* bit/s of IP packet bytes; 0 = back to its slices */
};
/* The rates of several pairs as one change (a pacing table): every rate is set and every pair entering paced mode
 * gives up its waiting batch before anything a dropped drain held back is released. Set one by one, a draining
 * pair paced first released the waiting batch of a conflicting pair paced next, as one burst. known[i] (unless
 * NULL) says whether rates[i] named a pair of the configuration in force; the others are skipped. */
void adw_sched_set_pacing_table(struct adw_sched *s, const struct adw_pacing_rate *rates, unsigned n,
                                uint64_t now_ns, bool *known);
/* Pacing rate of pair index `pair` in the configuration in force, bit/s (0 = not paced). */
uint64_t adw_sched_pacing(const struct adw_sched *s, uint16_t pair);

/* Coefficients of the ACK-burst frame-boundary classifier (adwiser/ack_model.h), copied; NULL stops estimation.
 * -1 (err names the field) for an invalid model, nothing changed. */
int adw_sched_set_ack_model(struct adw_sched *s, const struct adw_ack_model *m, char *err, size_t errlen);

/* Shutdown: hands out everything held (due first, then queued), out_port set as if released now. */
unsigned adw_sched_flush(struct adw_sched *s, struct adw_pkt *out, unsigned max);

/*
 * The packet budget (pool_pkts) shared with frames the backend keeps in buffers of the same pool after the core let
 * them go (the DPDK backend's TX backlogs, frames waiting for a full TX ring): the core holds at most pool_pkts less
 * what is lent, a packet past that being dropped as when the pool is full (drops_pool). room: what the budget has
 * left beside the packets held and lent; lent: what is lent now; lend counts n more outside (it may exceed room:
 * the caller's choice), give_back n fewer (no more than were lent).
 */
uint32_t adw_sched_pool_room(const struct adw_sched *s);
uint32_t adw_sched_pool_lent(const struct adw_sched *s);
void adw_sched_pool_lend(struct adw_sched *s, uint32_t n);
void adw_sched_pool_give_back(struct adw_sched *s, uint32_t n);

/* ---------------------------------------------------------------- telemetry (SPEC §4) */

enum adw_pair_mode { ADW_MODE_SLICED = 0, ADW_MODE_PACED = 1 };

/* One finished frame. */
struct adw_frame_report {
    uint64_t frame;                          /* frame index since create, from 0 */
    uint64_t ts_ns;                          /* start of the frame, ns */
    uint32_t version;                        /* configuration version in force during the frame */
    uint32_t frame_ns;                       /* frame length, ns */
    uint32_t reassignments;                  /* slices given away by dynamic slicing in this frame */
    unsigned n_pairs;                        /* pair reports of this frame (all pairs of the configuration) */
    unsigned n_slices;                       /* valid entries of given_to[] */
    uint16_t given_to[ADW_MAX_SLICES];       /* pair that received slice s, ADW_PAIR_NONE if not reassigned */
    uint64_t early_ns[ADW_MAX_SLICES];       /* how long before its scheduled start slice s's batch went, ns: the
                                                slice before ended its drain with no time for a refill (refill.c,
                                                adw_start_next_slice_early); 0 = at its start */
    uint64_t skipped_slices;                 /* bit s set: slice s was over when the loop came to it (the host did not
                                                run it for longer than the slice), a pair of it with packets waiting,
                                                and released no batch (release.c, counted in stats slices_skipped) */
};

/* One pair in one finished frame. */
struct adw_pair_report {
    uint16_t pair;                           /* pair index in the configuration */
    char name[ADW_PAIR_NAME_LEN];            /* "ap_id/sta_id" */
    uint8_t mode;                            /* enum adw_pair_mode */
    uint8_t reassigned;                      /* 1: this pair's slice was given away this frame (gave_slices != 0) */
    uint64_t gave_slices;                    /* bit s set: this pair was idle at slice s's start and gave its share of
                                                it away this frame (dynamic slicing; the taker is the frame's
                                                given_to[s]); a slice of several pairs may be given by some of them
                                                while the others send in it */
    uint64_t s_ns;                           /* slice time S_i of the pair in the frame, ns */
    uint32_t r_pkts;                         /* batch size r_i for the next frame, MTU packets */
    uint64_t v_ns;                           /* drain time of the last completed batch, ns; 0 if none yet */
    uint32_t drains;                         /* drains that ended in this frame (completed, capped or superseded) */
    uint64_t v_sum_ns;                       /* sum of their drain times V, ns. The mean V over drains is
                                                sum(v_sum_ns) / sum(drains): v_ns repeats the last drain in frames
                                                where none ended and shows one of two that ended in one frame, so a
                                                mean of v_ns under-weights drains that overrun the frame boundary */
    uint32_t released_pkts;                  /* packets released this frame (batch + real-time) */
    uint64_t released_bytes;                 /* bytes released this frame */
    uint32_t queue_pkts;                     /* packets held at frame end (all three queues) */
    uint32_t limit_pkts;                     /* A* queue limit at frame end, packets */
    uint64_t drops_tail;                     /* cumulative drops at the queue limit */
    uint64_t drops_other;                    /* cumulative drops of other causes (packet pool full) */
    uint64_t tput_bps;                       /* EWMA of released downlink throughput, bit/s */
    uint64_t rate_bps;                       /* service rate beta_i while draining full batches (EWMA of
                                                released/V), bit/s in MTU packets; 0 until measured. The
                                                utility bound of SPEC §6 is sum ln(rate_bps * s_ns / frame_ns) */
    uint64_t pace_bps;                       /* pacing rate x_i at frame end, bit/s; 0 = not paced (mode sliced) */
    double agg_est;                          /* mu~_N: mean MPDUs per A-MPDU over the ACK bursts that ended in the
                                                frame (001 §4.1 estimator); < 0 if none (or no model loaded) */
    uint32_t agg_bursts;                     /* ACK bursts (estimated A-MPDUs) that ended in the frame */
    double agg_raw;                          /* their mean segments per burst, before the model's scale; < 0 if
                                                none */
    uint16_t agg_stas;                       /* STAs of the pair's AP receiving at frame end (ACKs that
                                                acknowledged new data within ADW_ACK_ACTIVE_NS): the count the
                                                scale was looked up by; 0 without a model */
    double acked_segs;                       /* segments (ACK advance / MSS) the STA acknowledged in the frame: the
                                                MPDUs it received in order, counted without the classifier */
    uint64_t dup_acks;                       /* cumulative duplicate ACKs from the STA */
    uint64_t retx_pkts;                   /* cumulative retransmitted downlink TCP segments */
    double loss_frac;                        /* L_p of 001 §5: retransmitted share of the last 100 data segments */
    uint32_t ack_delay_samples;              /* paced segments timed from release to the STA's ACK in the frame
                                                (one per round trip, core/ack_delay.h) */
    uint64_t ack_delay_mean_ns;              /* their mean release-to-ACK delay, ns; 0 if none */
    uint64_t ack_delay_min_ns;               /* their least, ns; 0 if none */
    uint64_t counters_since_ns;              /* when the cumulative counters above (drops_tail, drops_other,
                                                dup_acks, retx_pkts) began from zero, on the clock the core is
                                                driven by: the pair's state was made then, when the scheduler was
                                                created or a version that added the pair (back) was swapped in */
};

/* 1 if the oldest finished frame not yet polled was written to f and pairs[0..min(n_pairs,max_pairs)-1]; 0 if
 * none. f->n_pairs is the pair count of the frame (may exceed max_pairs: the rest is skipped). */
int adw_sched_poll_frame(struct adw_sched *s, struct adw_frame_report *f, struct adw_pair_report *pairs,
                         unsigned max_pairs);

/* Global counters since create. */
void adw_sched_stats_read(const struct adw_sched *s, struct adw_stats *st);

#endif
