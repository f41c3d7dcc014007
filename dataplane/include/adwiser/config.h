/*
 * adwiser/config.h — the scheduling core's in-memory configuration.
 *
 * The model: one appliance manages APs (each behind one AP-facing port) and
 * STAs (each associated with exactly one AP). Every STA makes exactly one
 * managed AP-STA *pair*, so a pair is named by the index of its STA:
 * "pair index" == index into stas[]. Time is divided into periodic frames;
 * a frame is the sequence slice_map.slices[], each slice lasting duration_ns
 * and releasing the pairs it lists (SPEC §3.1, 004 §2, §5). Pairs that
 * conflict (hidden terminals) must never share a slice.
 *
 * This struct mirrors the JSON/YAML document of configs/ (validated against
 * configs/schema/adwiser-config.schema.json) one to one; a loader in dp/
 * builds it from JSON, tests and the simulation build it in code. It is a
 * plain struct with fixed-size arrays (no pointers), large (~3 MB): allocate
 * it on the heap (calloc) and fill it. Strings are NUL-terminated.
 *
 * The core's capacity (SPEC, issue 2): 4096 STAs (pairs), 512 APs, 64 slices
 * per frame. A document beyond these limits is refused by adw_config_check.
 */
#ifndef ADWISER_CONFIG_H
#define ADWISER_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADW_MAX_APS        512
#define ADW_MAX_STAS       4096
#define ADW_MAX_PAIRS      ADW_MAX_STAS   /* one pair per STA */
#define ADW_MAX_SLICES     64
#define ADW_MAX_STA_ADDRS  16             /* the schema allows 16 IPs per STA */
#define ADW_MAX_CONFLICTS  16384
#define ADW_MAX_RT_DSCP    64
#define ADW_MAX_RT_PORTS   64
#define ADW_ID_LEN         65             /* identifiers: at most 64 characters + NUL */
#define ADW_PORT_NAME_LEN  129            /* port names: at most 128 characters + NUL */
#define ADW_PAIR_NAME_LEN  (2 * ADW_ID_LEN) /* "ap_id/sta_id" + NUL */
#define ADW_SCHEMA_VERSION 1

/* Limits the core enforces on slice lengths, as the schema does. */
#define ADW_SLICE_MIN_NS   1000000ull     /* 1 ms */
#define ADW_SLICE_MAX_NS   500000000ull   /* 500 ms */
#define ADW_FRAME_MAX_NS   1000000000ull  /* 1 s */

struct adw_ip_addr {
    uint8_t family;          /* 4 or 6 */
    uint8_t addr[16];        /* network byte order; IPv4 uses addr[0..3] */
};

struct adw_ap_cfg {
    char id[ADW_ID_LEN];             /* unique AP id, used in pair names */
    char port[ADW_PORT_NAME_LEN];    /* AP-facing port (interface or DPDK port name); in_port k+1 is aps[k] */
    uint16_t vlan;                   /* 802.1Q VLAN id towards the AP; 0 = untagged */
    uint16_t channel;                /* 802.11 channel number (informational) */
};

struct adw_sta_cfg {
    char id[ADW_ID_LEN];                       /* unique STA id, used in pair names */
    uint8_t mac[6];                            /* unicast MAC */
    uint8_t n_addrs;                           /* valid entries of addrs[] */
    struct adw_ip_addr addrs[ADW_MAX_STA_ADDRS];
    uint16_t ap;                               /* index into aps[] of its AP */
};

struct adw_conflict_cfg {
    uint16_t a, b;                   /* pair indices that must not share a slice */
};

struct adw_slice_cfg {
    uint64_t duration_ns;            /* S_s, ns (1 ms .. 500 ms) */
    uint16_t n_pairs;                /* valid entries of pairs[] */
    uint16_t pairs[ADW_MAX_PAIRS];   /* pair indices released in this slice */
};

/* TS-ABR-QD, 004 §5 eq. (1): r(k+1) = max(0, r(k) + a(S - V(r(k)))). */
struct adw_tsabr_policy {
    double a_pkts_per_ms;            /* gain a, MTU packets per ms; stable for 0 < a < 2 beta */
    uint32_t r_init_pkts;            /* r at start and after a reset, MTU packets */
    uint32_t r_min_pkts;             /* lower bound of r, MTU packets */
    uint32_t r_max_pkts;             /* upper bound of r, MTU packets */
    double v_cap_factor;             /* a drain still open after v_cap_factor*S is closed at that value; > 1 */
    double rate_change_reset;        /* reset r to r_init when the drain rate moves by more than this fraction */
    bool early_handover;             /* a drain ending with no time for a refill starts the next slice's queued
                                        batches at once (refill.c, adw_start_next_slice_early); false: slices
                                        start on the clock */
};

/* Dynamic slicing, 004 §6.3 / SPEC §3.3. */
struct adw_dynslice_policy {
    bool enabled;                    /* give slices of idle pairs to backlogged pairs of other slices */
    uint16_t n_pairs;                /* 0 = every pair may take an idle slice */
    uint16_t pairs[ADW_MAX_PAIRS];   /* pair indices allowed to take idle slices */
};

/* Defaults of the real-time release (004 §6.4; core/realtime_release.c says why real-time packets wait). The guard
 * is the air time of one voice frame exchange at the AP, 802.11-2016 (5 GHz OFDM, AC_VO of Table 9-137):
 * AIFS[VO] = SIFS 16 + 1 slot of 9 us = 25 us, the largest first backoff CWmin[VO] = 3 slots = 27 us, a PPDU of
 * 90 octets (48-byte packet, 38 of MAC framing, 4 of A-MPDU delimiter) at the slowest HT rate, MCS0 6.5 Mbit/s:
 * 36 us preamble + 29 symbols of 4 us = 152 us, SIFS 16 us and the BlockAck at the highest basic rate not above
 * MCS0's non-HT reference rate (10.7.6.5.2), 6 Mbit/s: 20 us preamble + 12 symbols of 4 us = 68 us; 288 us; plus
 * about 50 us from release to the AP's queue (the lab's p99 delivery jitter is under 100 us): 340 us. */
#define ADW_RT_GUARD_US_DEFAULT 340u
#define ADW_RT_GUARD_US_MAX 10000u
/* At most half the slice (10 ms of a 20 ms slice). The downlink drain it waits for ends at the slice start on
 * average (E[V] = S, 004 §5), so most waits are short, but V spreads around S: on the emulated lab (voice-bulk,
 * 25 s x8, every slice given to AP1) AP1 was still on the air at 88 % of slice starts and stayed so p50 2.1,
 * p95 4.3, p99 7.1 ms (max 18) past the start; 2.3 % of slice starts were still busy at 5 ms, 0.3 % at 10 ms.
 * Voice released into AP1's transmissions took 20 or more of its 30 attempts 11 times in 276 (lost at 30 in an
 * earlier run), voice released into clear air never more than 15 in 9,724. The bound still keeps voice within
 * its delay budget (S + 10 ms at worst) when the drain's ACKs are lost. */
#define ADW_RT_HOLD_MAX_FRACTION_DEFAULT 0.5
/* Real-time first release, 004 §6.4 / SPEC §3.4. */
struct adw_realtime_policy {
    uint8_t n_dscp;                  /* valid entries of dscp[] */
    uint8_t dscp[ADW_MAX_RT_DSCP];   /* DSCP code points (0..63) classified real-time (46 = EF) */
    uint8_t n_udp_ports;             /* valid entries of udp_ports[] */
    uint16_t udp_ports[ADW_MAX_RT_PORTS]; /* UDP ports (either end) classified real-time */
    double hold_max_fraction;        /* real-time packets wait for a conflicting pair's downlink drain to end at
                                        most this fraction of the slice, [0, 1]; 0 = never wait */
    uint32_t guard_us;               /* a batch to a pair that conflicts with real-time packets just released
                                        waits this long per packet released, us; 0 = no guard */
};

/* A* queue sizing, 003 §IV-V / SPEC §3.5: limit = min(Q_eBDP, q_ALT). */
struct adw_queue_sizing_policy {
    uint64_t t_max_ns;               /* delay target T_max of Q_eBDP = T_max/T_serv + c, ns */
    uint32_t c_pkts;                 /* headroom c, packets */
    uint32_t q_max_pkts;             /* upper clamp of the limit, packets */
    uint32_t q_min_pkts;             /* lower clamp of the limit, packets */
    double a1;                       /* q_ALT growth, packets per ms of idle time */
    double b1;                       /* q_ALT shrink, packets per ms of busy time */
    double ewma_alpha;               /* EWMA weight W of the per-packet service time, (0, 1] */
};

/* Bounds of policies.aggregation_target (and of its overrides' n_target_max and t_bar_ms), one set for the JSON
 * loader (dp/config_json.c) and adw_config_check, so a document built in code is held to what a file is:
 * n_target_max in [1, 256] (an 802.11ax A-MPDU holds at most 256 MPDUs), t_bar_ms in (0, 1000], k1 in (0, 2),
 * k2 in (0, 1), delta_s in [0.01, 60]: the bounds of the controller's model (configs/schema), K1 < 2 and K2 < 1 being
 * where 000 §VI's loops are stable (its Lemma 2 asks 0 < K2 < 1). */
#define ADW_AGG_N_TARGET_MAX_MIN 1u
#define ADW_AGG_N_TARGET_MAX_MAX 256u
#define ADW_AGG_T_BAR_MS_MAX 1000.0
#define ADW_AGG_K1_BELOW 2.0
#define ADW_AGG_K2_BELOW 1.0
#define ADW_AGG_DELTA_S_MIN 0.01
#define ADW_AGG_DELTA_S_MAX 60.0
/* Aggregation target (SPEC §3.7); carried for the controller and paced mode, not run by this core yet. */
struct adw_aggregation_policy {
    bool enabled;                    /* pace listed pairs instead of slicing them */
    uint32_t n_target_max;           /* N-bar, MPDUs per A-MPDU */
    double t_bar_ms;                 /* T-bar, target AP queueing delay, ms */
    double k1;                       /* inner-loop gain, dimensionless */
    double k2;                       /* outer-loop gain, dimensionless */
    double delta_s;                  /* loop update interval, s */
    uint16_t n_pairs;                /* valid entries of pairs[] */
    uint16_t pairs[ADW_MAX_PAIRS];   /* pair indices in paced mode */
};

struct adw_policies {
    struct adw_tsabr_policy ts_abr_qd;
    struct adw_dynslice_policy dynamic_slicing;
    struct adw_realtime_policy realtime;
    struct adw_queue_sizing_policy queue_sizing;
    struct adw_aggregation_policy aggregation_target;
};

struct adw_config {
    uint32_t schema_version;                   /* document format, must be ADW_SCHEMA_VERSION */
    uint32_t version;                          /* configuration version number (controller's <n>; 0 = from a file) */
    char appliance_id[ADW_ID_LEN];
    uint16_t n_aps;                            /* valid entries of aps[] */
    struct adw_ap_cfg aps[ADW_MAX_APS];
    uint16_t n_stas;                           /* valid entries of stas[] == number of pairs */
    struct adw_sta_cfg stas[ADW_MAX_STAS];
    uint32_t n_conflicts;                      /* valid entries of conflicts[] */
    struct adw_conflict_cfg conflicts[ADW_MAX_CONFLICTS];
    uint16_t n_slices;                         /* valid entries of slices[] */
    struct adw_slice_cfg slices[ADW_MAX_SLICES];
    struct adw_policies policies;
};

/* Fills the policies with the defaults of configs/lab-2ap-2sta.yaml (a = 1 pkt/ms, ...). */
void adw_config_default_policies(struct adw_policies *p);

/* Checks the whole document. 0 if valid; otherwise -1 and err (if errlen > 0)
 * holds one message naming the field, e.g.
 * "slice_map.slices[1].pairs[0]: pair index 9 out of range (2 pairs)" or
 * "slice_map.slices[0]: pairs ap1/sta1 and ap2/sta2 conflict". */
int adw_config_check(const struct adw_config *c, char *err, size_t errlen);

/* "ap_id/sta_id" of pair index i into buf (always NUL-terminated). */
void adw_config_pair_name(const struct adw_config *c, uint16_t pair, char *buf, size_t buflen);

#endif
