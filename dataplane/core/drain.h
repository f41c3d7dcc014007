/*
 * drain.h — inference of the drain time V of one pair's batch (004 §5,
 * "Determining when V_i(r_i(k)) ends"; SPEC §3.2), from packets that cross the
 * appliance anyway; nothing is probed.
 *
 *  - Downlink TCP (data released to the STA): per flow of the batch, the end
 *    sequence of the last released byte (seq + len, +1 for SYN/FIN) and the
 *    start of the segment that carries it. A receiver acknowledges at least
 *    every second full-sized segment but may hold the ACK of a lone last
 *    segment for its delayed-ACK timer (RFC 5681 §4.2; Linux: 40 ms and more,
 *    longer than a 20 ms slice), so an ACK that covers everything but the last
 *    segment already says the batch reached the STA: the flow is drained when
 *    an uplink segment of that flow acknowledges the start of its last
 *    released segment (ACK >= that start, serial arithmetic of RFC 1982 so
 *    sequence wrap-around is handled) or SACKs it (a SACK block that holds
 *    the byte before it, left edge below it, right edge at or past it, or
 *    one that holds the batch's last byte: the last segment arrived, whatever
 *    was lost before it; a block wholly above them reports data beyond a hole
 *    that a retransmission fills, received before it; the byte before the
 *    last segment counts only if the batch released the segment ending
 *    there: with two holes retransmitted in one batch, it is data below the
 *    second hole that the STA SACKed before the batch).
 *    The last segment is owed only if the STA holds nothing beyond it: one
 *    that fills a hole is acknowledged at once (RFC 5681 §4.2), so with two
 *    holes retransmitted in one batch the ACK of the first's repair (up to
 *    the second's start, the data beyond still SACKed) does not end the
 *    drain. A batch of a single segment of the flow needs the ACK of its end.
 *    Retransmissions never lower the end (max in serial order).
 *    A retransmission is often released after data above it: new data or a
 *    tail loss probe (RFC 8985) the server sent before it learned of the
 *    hole, kept in that order by the appliance's queue. The AP sends them in
 *    release order, so when the STA reports the highest segment the
 *    retransmission may still be in the AP's queue or the air; it fills a
 *    hole or arrives out of order and is acknowledged at once (RFC 5681
 *    §4.2), so such a flow also waits for the ACK, or a SACK block, that
 *    holds the last released segment's last byte.
 *  - Uplink TCP (the server's ACKs released to the STA): each released ACK
 *    lets the STA send as many new bytes as it acknowledges beyond the last
 *    ACK released before it on that flow (a pure ACK's, or the one carried by
 *    released data); the flow is drained when that many bytes of uplink
 *    payload of the flow have come back. ACKs released outside the batches
 *    (paced mode) are not seen here, so leaving paced mode forgets each
 *    flow's last released ACK, and the next batch's first ACK teaches it.
 *  - A flow closes mid-batch: a RST released to the STA drains it (nothing
 *    acknowledges a RST, so nothing more is awaited of the flow); a RST or
 *    FIN from the STA drains its uplink part, and its downlink part if the
 *    segment's ACK covers it as above. Data released before the STA closed
 *    is still in the AP's queue: the AP sends it whatever the STA's socket
 *    did, so the drain (and a conflicting pair waiting on it, deferral.c)
 *    waits for it like for lost ACKs. Data released after the STA's RST is
 *    never acknowledged, but it still goes over the air, and the STA answers
 *    every segment of it that arrives with a RST (RFC 9293 §3.10.7.1: a
 *    segment to a closed connection draws a reset; the lab's ground truth:
 *    one RST per MPDU delivered): such a flow is drained when as many RSTs
 *    as segments released to it have come back. Not waiting for it at all
 *    released the conflicting AP into the AP's transmission of it: a 475 ms
 *    hidden-terminal collision burst (~490 collided PPDUs, 0.6 points of
 *    slice overflow of each pair) at one of the three transfer ends of a
 *    downlink-20ms 3x20 s run. Taking the STA's RST as drained
 *    released the conflicting AP into that data at the end of every
 *    downlink transfer (iperf's receiver resets with 300-600 packets still
 *    queued): a 200 ms collision burst, 1.6 points of the 3.9-4.7 % slice
 *    overflow of downlink-20ms.
 *  V ends when every tracked flow of the batch is drained. A drain that never
 *  ends (lost final ACK) is closed by the caller (sched) and capped.
 *  A server's RST released after data of its flow not yet acknowledged ends
 *  that flow's wait with the data still in the AP's queue or the air (it goes
 *  before the RST, in release order): the drain then ends with no ACK having
 *  reported it, at once if the flow was the batch's last open one, so its
 *  length is no drain time (release.c, adw_finish_drain). Unless data of a
 *  tracked flow is released after the RST: the AP sends that after the reset
 *  flow's data, and its ACK (or the STA's RSTs to it) reports both.
 *
 * The flow table (ADW_DRAIN_MAX_FLOWS per pair) persists across batches, as
 * the uplink case needs the last ACK released per flow; flows beyond it in
 * one batch are not tracked (counted).
 *
 * Every uplink packet of a pair looks its flow up here. The entries are 104
 * bytes each on x86-64 (3.3 KB per pair, most of a pair's state), so the lookup reads an
 * index instead: a bit mask of the entries in use and each entry's key hash
 * (flow_hash.h), 132 bytes next to the drain's own fields; the full key of an
 * entry is compared only when its hash matches.
 */
#ifndef ADW_CORE_DRAIN_H
#define ADW_CORE_DRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "queue.h"

#define ADW_DRAIN_MAX_FLOWS 32

static inline bool adw_seq_lt(uint32_t a, uint32_t b) { return (int32_t)(a - b) < 0; }
static inline bool adw_seq_geq(uint32_t a, uint32_t b) { return (int32_t)(a - b) >= 0; }

struct adw_drain_flow {
    struct adw_flow_key key;
    uint64_t last_seen_ns;       /* for eviction */
    bool have_last_ack;          /* last_ack_released valid (persists across batches) */
    bool sta_reset;              /* the STA reset the connection: nothing released later is acknowledged (persists
                                    until a SYN reopens the flow) */
    uint32_t last_ack_released;  /* highest ACK number released to the STA on this flow */
    /* per batch: */
    bool in_batch;
    bool down_open;              /* released data not yet acknowledged */
    uint32_t end_seq;            /* end sequence of the last released byte */
    uint32_t first_seq;          /* lowest start sequence released in this batch */
    uint32_t last_start;         /* start sequence of the segment that ends at end_seq */
    bool tail_joined;            /* this batch also released the segment that ends at last_start */
    bool rst_open;               /* segments released after the STA's reset not yet answered by its RSTs */
    bool up_open;                /* uplink bytes still expected */
    uint32_t rst_expected;       /* segments released to the reset connection in this batch */
    uint32_t rst_seen;           /* RSTs from the STA since */
    uint32_t rel_end;            /* end sequence of the segment released last (below end_seq: a retransmission
                                    released after data above it) */
    uint64_t up_expected;        /* uplink payload bytes the released ACKs allowed */
    uint64_t up_seen;            /* uplink payload bytes seen since the batch */
};

struct adw_drain {
    bool open;                   /* a batch is draining */
    bool reset_unacked;          /* a server's RST closed a flow of the batch whose released data was not yet
                                    acknowledged, and no tracked flow's data was released after it */
    uint64_t start_ns;           /* release time of the batch, ns (a refill's keeps its first release: refill.c) */
    uint64_t release_ns;         /* time of the last release into the drain (a refill's), ns */
    uint64_t last_heard_ns;      /* last uplink segment of a flow the batch still waits for (or the release), ns:
                                    while they keep coming the batch is still being delivered over the air */
    uint16_t n_open;             /* flows of the batch not yet drained */
    uint16_t n_tracked;          /* flows of the batch tracked */
    uint32_t untracked;          /* flows of this batch beyond the table */
    uint32_t used;               /* bit i: flows[i] holds a flow */
    uint32_t hash[ADW_DRAIN_MAX_FLOWS]; /* adw_flow_key_hash of flows[i].key */
    struct adw_drain_flow flows[ADW_DRAIN_MAX_FLOWS];
};
_Static_assert(ADW_DRAIN_MAX_FLOWS <= 32, "struct adw_drain.used has one bit per entry");

void adw_drain_reset(struct adw_drain *d);
/* A new batch is being released at now_ns (an open drain must have been closed first). */
void adw_drain_begin(struct adw_drain *d, uint64_t now_ns);
/* A packet of the batch is released (downlink). */
void adw_drain_note_released(struct adw_drain *d, const struct adw_tcp_meta *m, uint64_t now_ns);
/* All packets of the batch are released: false if nothing is awaited (no drain to measure; d is closed). */
bool adw_drain_end_release(struct adw_drain *d);
/* An uplink TCP segment of the pair passed. True if it completed the drain (d closed; V = now_ns - start_ns). */
bool adw_drain_observe_uplink(struct adw_drain *d, const struct adw_tcp_meta *m, uint64_t now_ns);
/* True if the open batch still waits for the ACK of released downlink data, or the RSTs that answer data released
 * to a connection the STA reset (not only for uplink bytes): that data is still in the AP's queue or the air. */
bool adw_drain_awaits_downlink_acks(const struct adw_drain *d);
/* The tracked flow with key k whose hash is `hash`, or NULL. Takes the hash so that tests can look a key up under
 * another key's hash (a collision); the packet path passes adw_flow_key_hash(k). */
struct adw_drain_flow *adw_drain_lookup(struct adw_drain *d, const struct adw_flow_key *k, uint32_t hash);
/* True if a flow of the batch still waits for the ACK of released data that the STA has reset: that ACK will never
 * come (the STA answers each segment still delivered with a RST), so the drain's length is no drain time. */
bool adw_drain_awaits_reset_flow(const struct adw_drain *d);
/* True if the batch (open or closed since) released a server's RST that ended the wait for data of its flow not
 * yet acknowledged, and no tracked flow's data after it: the drain's end does not say that data left the AP. */
bool adw_drain_reset_unacked(const struct adw_drain *d);
/* True if the batch (open or closed since) waits only for uplink bytes: the server's ACKs released to an uplink
 * sender, with no flow of it awaiting the ACK of released data or RSTs, and every flow of it tracked. */
bool adw_drain_awaits_only_uplink_bytes(const struct adw_drain *d);
/* Closes an open drain without completion (capped or abandoned). */
void adw_drain_abandon(struct adw_drain *d);
/* Packets of the pair went to the STA outside any batch (paced mode, SPEC §3.7): the last ACK released on each flow
 * is no longer known, so the next batch's first ACK of a flow only teaches it again, as for a new flow. */
void adw_drain_forget_released_acks(struct adw_drain *d);

#endif
