/*
 * ack_burst.h — the appliance-side aggregation-level estimator of one pair
 * (SPEC §3.7, 001 §4.1) and the loss signals the bottleneck classifier of
 * 001 §5 needs.
 *
 * Downlink data reaches the STA one A-MPDU at a time; the STA's TCP ACKs for
 * it come back through the appliance as a burst. The logistic-regression
 * classifier of adwiser/ack_model.h labels each returning ACK "first of a new
 * burst" or not from the last m inter-arrival times and their standard
 * deviation; the segments a burst acknowledges (ACK advance / MSS, summed over
 * the pair's flows) are the MPDUs of one A-MPDU, so their mean over the bursts
 * of an interval is mu~_N (capped at N_max). Until m inter-arrival times are
 * known, ACKs join the current burst.
 *
 * Loss signals (001 §5 eq. (6)): duplicate ACKs (no advance, no payload) and
 * retransmitted downlink segments (end sequence not beyond the flow's highest),
 * and L_p, the fraction of retransmissions among the last ADW_ACK_LOSS_WINDOW
 * downlink data segments.
 */
#ifndef ADW_CORE_ACK_BURST_H
#define ADW_CORE_ACK_BURST_H

#include <stdbool.h>
#include <stdint.h>

#include "adwiser/ack_model.h"
#include "queue.h"

#define ADW_ACK_FLOWS 8
#define ADW_ACK_LOSS_WINDOW 100     /* p of 001 §5 */
#define ADW_ACK_DEFAULT_MSS 1448
/* A STA counts as receiving (for the scale's STA count) while its ACKs acknowledge new data at least this often:
 * several rounds of an AP's STAs (a round is a few ms to ~10 ms in the aggtarget runs), so a STA is not dropped
 * between two of its A-MPDUs. */
#define ADW_ACK_ACTIVE_NS 100000000ull

struct adw_ack_flow {
    bool have_ack;
    bool have_seq;
    uint32_t last_ack;           /* highest ACK number seen from the STA */
    uint32_t high_seq_end;       /* highest end sequence seen from the server */
    uint64_t last_seen_ns;
};

/*
 * Every TCP packet of a pair updates this, so the fields each packet reads
 * come first and flows are found through an index (the mask of entries in
 * use and their key hashes, one cache line with the burst state) rather than
 * by reading all eight entries. A flow is its key's hash (flow_hash.h): two
 * connections of one STA whose hashes collide (odds 2^-32) count as one.
 */
struct adw_ack_est {
    bool have_last;
    bool burst_open;
    uint8_t used;                            /* bit i: flows[i] holds a flow */
    uint16_t ia_head, ia_n;
    uint32_t mss;                            /* largest downlink payload seen, bytes */
    uint64_t last_ns;                        /* arrival of the previous ACK */
    uint64_t last_adv_ns;                    /* arrival of the last ACK that acknowledged new data; 0 if none */
    uint64_t min_gap_ns;                     /* least inter-arrival time that starts a burst until the next report:
                                                the model's gap for the STAs receiving at the pair's AP */
    double burst_segs;                       /* segments acknowledged by the current burst */
    uint32_t hash[ADW_ACK_FLOWS];            /* flow key hash of flows[i] */
    /* loss signals: */
    uint16_t loss_head, loss_n, loss_ones;
    uint8_t loss_bits[(ADW_ACK_LOSS_WINDOW + 7) / 8]; /* 1 = that data segment was a retransmission */
    uint64_t dup_acks, retrans;              /* cumulative */
    double ia_us[ADW_ACK_MODEL_MAX_M];       /* ring of inter-arrival times, µs */
    struct adw_ack_flow flows[ADW_ACK_FLOWS];
    /* per report interval: */
    double sum_segs;                         /* segments of the bursts closed in the interval */
    uint32_t n_bursts;                       /* bursts closed in the interval */
    double acked_segs;                       /* segments every ACK of the interval acknowledged, unscaled */
};
_Static_assert(ADW_ACK_FLOWS <= 8, "struct adw_ack_est.used has one bit per entry");

void adw_ack_est_init(struct adw_ack_est *e);
/* A downlink TCP data segment of the pair (server -> STA) was accepted at now_ns. */
void adw_ack_est_observe_data(struct adw_ack_est *e, const struct adw_tcp_meta *m, uint64_t now_ns);
/* An uplink TCP segment of the pair (STA -> server) passed at now_ns; model may be NULL (no classification). */
void adw_ack_est_observe_ack(struct adw_ack_est *e, const struct adw_ack_model *model, const struct adw_tcp_meta *m,
                             uint64_t now_ns);
/* End of a report interval: the raw mean segments per burst closed in it (unscaled, uncapped), or -1 if none;
 * *bursts gets their number; resets. */
double adw_ack_est_take_raw(struct adw_ack_est *e, uint32_t *bursts);
/* The least inter-arrival time (µs) that starts a burst with `stas` receiving STAs at the pair's AP (0 without the
 * model's gap table). */
double adw_ack_model_min_gap_us(const struct adw_ack_model *model, uint32_t stas);
/* The pair's STA is receiving: an ACK of it acknowledged new data within ADW_ACK_ACTIVE_NS before now_ns (duplicate
 * ACKs and a connection's first ACK do not count). */
bool adw_ack_est_receiving(const struct adw_ack_est *e, uint64_t now_ns);
/* End of a report interval: the segments (ACK advance / MSS, all flows) the STA acknowledged in it, i.e. what it
 * received in order, whatever the burst classifier made of them; resets. */
double adw_ack_est_take_acked(struct adw_ack_est *e);
/* L_p: retransmitted fraction of the last ADW_ACK_LOSS_WINDOW data segments (0 if none seen). */
double adw_ack_est_loss_frac(const struct adw_ack_est *e);

#endif
