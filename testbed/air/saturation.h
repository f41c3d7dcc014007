/*
 * saturation.h — a saturated downlink TCP-like load driving the air model
 * in virtual time (the calibration experiment of CALIBRATION.md).
 *
 * Each AP's queue toward its STA is kept backlogged with MTU-sized TCP
 * segments (004 §4.1, Fig. 7: "there is no dearth of packets at the AP
 * transmit buffers"); each STA answers every second delivered segment with
 * a TCP ACK that contends for the air like any uplink frame (delayed ACK,
 * RFC 1122 §4.2.3.2). Throughput counts TCP payload handed up at the STA.
 */
#ifndef SATURATION_H
#define SATURATION_H

#include <stdint.h>

#include "wlan_air.h"

#define SAT_MAX_PAIRS 4

struct sat_pair_result {
    double throughput_mbps;      /* TCP payload goodput at the STA (Mbit/s) */
    double mean_ampdu;           /* mean MPDUs per downlink A-MPDU */
    double mean_phy_mbps;        /* mean PHY rate of downlink PPDUs (Mbit/s) */
    double collided_frac;        /* downlink PPDUs overlapped at the STA (0..1) */
    double mpdu_loss_frac;       /* downlink MPDU transmissions lost (0..1) */
    double preamble_lost_frac;   /* downlink PPDUs missed by a STA locked elsewhere (0..1) */
    double airtime_frac;         /* downlink airtime / measured time (0..1) */
    double retry_drop_frac;      /* downlink segments given up at the MAC retry limit (0..1): what TCP sees as loss */
    double protected_frac;       /* downlink PPDUs sent after an RTS/CTS exchange (0..1; 004 §4.1: 3.7-36.8 %) */
    double rts_fail_frac;        /* the AP's RTS frames left without a CTS (0..1, whole run) */
    uint64_t ppdus;              /* downlink PPDUs in the measurement window */
};

struct sat_params {
    uint32_t segment_bytes;      /* Ethernet frame of a TCP segment (bytes) */
    uint32_t payload_bytes;      /* TCP payload per segment (bytes) */
    uint32_t ack_bytes;          /* Ethernet frame of a TCP ACK (bytes) */
    uint32_t backlog_pkts;       /* AP queue depth kept (frames) */
    uint64_t warmup_us;          /* excluded start (µs) */
    uint64_t duration_us;        /* measured time after warm-up (µs) */
    uint64_t seed;               /* model seed */
};

void sat_default_params(struct sat_params *p);

/* Runs n pairs (ap[i] -> sta[i]) at once; returns 0 or -1 on bad input. */
int sat_run(const struct wlan_air_config *c, const int *ap, const int *sta, int n,
            const struct sat_params *p, struct sat_pair_result *out);

#endif
