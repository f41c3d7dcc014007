/*
 * frame_boundary.h — the STA-side aggregation-level estimator (SPEC §3.7;
 * 001 §4): which received packets came in one A-MPDU, from nothing but their
 * kernel receive timestamps.
 *
 * The MPDUs of one A-MPDU reach the STA's kernel close together (one per
 * MPDU airtime as the receiver decodes them, or in one driver poll), and the
 * next A-MPDU comes after a BlockAck, AIFS, backoff, a preamble and whatever
 * the other STAs had on the air. Kernel timestamps carry the driver's and the
 * scheduler's noise (001 §4, Fig 12), so the boundary is not a fixed gap:
 * the logistic-regression classifier of 001 §4.1 eqs. (3)-(4) labels each
 * packet "first of a new A-MPDU" from the last m inter-arrival times and
 * their standard deviation. Its coefficients are fitted offline on the
 * emulator's ground truth (testbed/runner/sta_frames.py) and shipped in the
 * format of adwiser/ack_model.h (configs/sta_frame_model.json; its scale is
 * applied to a period's mean by sta_periods.c, the per-STA-count tables are
 * not used).
 *
 * The aggregation level of an interval is the mean number of packets per
 * A-MPDU over the A-MPDUs that closed in it (000 (37)), each capped at the
 * model's n_max (001 §4.1: "capped at N_max"). Until m inter-arrival times
 * are known, packets join the current A-MPDU. Pure: no I/O, the time is
 * passed in.
 */
#ifndef ADW_AGENT_FRAME_BOUNDARY_H
#define ADW_AGENT_FRAME_BOUNDARY_H

#include <stdbool.h>
#include <stdint.h>

#include "adwiser/ack_model.h"

struct adw_frame_est {
    const struct adw_ack_model *model;       /* the classifier; not owned */
    bool have_last;
    uint64_t last_ns;                        /* receive time of the previous packet, ns */
    double ia_us[ADW_ACK_MODEL_MAX_M];       /* the last ia_n (<= m) inter-arrival times, µs, oldest first */
    uint16_t ia_n;
    uint32_t open_pkts;                      /* packets of the A-MPDU being received; 0 = none open */
    /* per report interval (adw_frame_est_take resets them): */
    uint32_t frames;                         /* A-MPDUs closed in the interval */
    uint64_t frame_pkts;                     /* their packets, each A-MPDU capped at n_max */
    uint64_t pkts;                           /* packets received in the interval */
};

void adw_frame_est_init(struct adw_frame_est *e, const struct adw_ack_model *model);
/* A packet was received at t_ns (kernel timestamp); true if the classifier put it first in a new A-MPDU. */
bool adw_frame_est_observe(struct adw_frame_est *e, uint64_t t_ns);
/*
 * End of a report interval at now_ns: the mean packets per A-MPDU closed in it (-1 if none closed), *frames their
 * number, *pkts the packets received in the interval; resets the interval. An A-MPDU still open is closed first if
 * nothing has come for idle_close_ns (the transfer paused or ended), else it is counted in the interval it ends in.
 */
double adw_frame_est_take(struct adw_frame_est *e, uint64_t now_ns, uint64_t idle_close_ns, uint32_t *frames,
                          uint64_t *pkts);
/* No packet will come any more (the agent is exiting): the A-MPDU still open is closed, counted at the next take. */
void adw_frame_est_close_open(struct adw_frame_est *e);

#endif
