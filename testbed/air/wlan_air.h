/*
 * wlan_air.h — the pure air model of the ADWISER WLAN emulator (issue 3).
 *
 * Model. A set of nodes (APs and STAs) share one 802.11n/ac channel. Every
 * node runs EDCA (IEEE 802.11-2016 §10.22.2): per access category (AC_BE,
 * AC_VO) a backoff entity waits AIFS = SIFS + AIFSN*slot of idle medium,
 * then counts down a backoff drawn from [0, CW]; CW doubles after a failed
 * exchange and resets after a success. A node senses the medium busy while
 * a transmission whose preamble it detected reaches it at or above the
 * carrier-sense threshold (-82 dBm, §19.3.19.5), while any transmission
 * reaches it at or above the energy-detect threshold (-62 dBm: a frame that
 * started while the node was transmitting or locked onto another frame has
 * no preamble left to detect), or while its NAV (set from a decoded frame's
 * Duration) runs. Received powers come from an RSS matrix (ADWISER paper,
 * 004 Table 2) plus a per-frame log-normal fading draw.
 *
 * An AP keeps one queue per (STA, AC); a STA one per AC toward its AP. A
 * winning entity sends an HT-mixed PPDU carrying an A-MPDU (§10.13) bounded
 * by the BlockAck window (64), the maximum A-MPDU length (65535 bytes) and a
 * maximum PPDU duration; the receiver answers SIFS later with a compressed
 * BlockAck (§10.24.7) at the highest basic rate not above the non-HT
 * reference rate of the A-MPDU's MCS (§10.7.6.5.2: 6 Mbit/s after BPSK). Each MPDU is decoded or lost
 * by its margin over two per-MCS thresholds, the receiver minimum
 * sensitivity (§19.3.19.1 Table 19-23) for its RSS and the SINR the MCS
 * needs (004 ref. [12]) for its SINR, through a logistic PER curve; a receiver that is already locked onto another frame's preamble
 * when a frame for it starts misses that whole PPDU (the hidden-AP effect of
 * 004 §4.1). Lost MPDUs are retransmitted until a retry limit; MPDUs are
 * handed up in sequence order (BlockAck reordering). A Minstrel-HT-like rate
 * control picks the MCS per link from EWMA delivery ratios. Like Linux
 * minstrel_ht, an AP protects an A-MPDU sent at a fallback entry of its
 * retry chain with RTS/CTS (rts_on_fallback): RTS and CTS at a legacy rate,
 * SIFS apart; every node that decodes either sets its NAV to the end of the
 * exchange (§10.3.2.4); a receiver locked onto another frame misses the RTS
 * (as it would data), and one whose NAV is set does not answer (§10.3.2.6).
 *
 * Time is virtual, in integer microseconds. The model does no I/O: the
 * caller enqueues frames at their arrival time and calls wlan_air_advance()
 * to run the model up to "now"; each delivered MPDU is reported through a
 * callback with its virtual delivery time, each transmitted PPDU through a
 * ground-truth callback. Call wlan_air_advance(now) before wlan_air_enqueue(now).
 */
#ifndef WLAN_AIR_H
#define WLAN_AIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WLAN_MAX_NODES 8
#define WLAN_MAX_MCS 20          /* HT MCS 0..15 (2 SS) or VHT (NSS-1)*10+MCS, 2 SS */
#define WLAN_NAME_LEN 16

enum wlan_ac { WLAN_AC_BE = 0, WLAN_AC_VO = 1, WLAN_AC_COUNT = 2 };
enum wlan_role { WLAN_ROLE_AP = 0, WLAN_ROLE_STA = 1 };
enum wlan_phy { WLAN_PHY_HT = 0, WLAN_PHY_VHT = 1 };

struct wlan_edca {
    uint32_t aifsn;              /* AIFS number (slots after SIFS) */
    uint32_t cw_min;             /* initial contention window (slots) */
    uint32_t cw_max;             /* maximum contention window (slots) */
    uint32_t txop_limit_us;      /* TXOP limit (µs); 0 = one exchange, bounded by max_ppdu_us */
};

struct wlan_node_config {
    char name[WLAN_NAME_LEN];    /* e.g. "ap1" */
    enum wlan_role role;         /* AP or STA */
    int ap;                      /* index of the AP a STA is associated with; -1 for APs */
};

struct wlan_air_config {
    /* PHY */
    enum wlan_phy phy;           /* HT (802.11n) or VHT (802.11ac) */
    uint32_t bandwidth_mhz;      /* channel width (MHz): 20, 40 or 80 */
    uint32_t spatial_streams;    /* NSS of the links (1..2) */
    bool short_gi;               /* 400 ns guard interval (3.6 µs symbols) */
    uint32_t n_mcs;              /* number of MCS in the rate set */
    double sensitivity_dbm[WLAN_MAX_MCS]; /* receiver minimum input sensitivity per MCS (dBm) */
    double snr_required_db[WLAN_MAX_MCS]; /* SINR each MCS needs (dB) */
    double noise_floor_dbm;      /* thermal noise + receiver noise figure (dBm) */
    double cs_threshold_dbm;     /* carrier sense / preamble detection threshold (dBm) */
    double ed_threshold_dbm;     /* energy detect: CCA busy for a signal whose preamble was not detected (dBm) */
    double preamble_capture_db;  /* a new frame stronger by this (dB) than the locked one takes the receiver */
    double per_slope_per_db;     /* steepness of the logistic PER-vs-SINR curve (1/dB) */
    uint32_t per_ref_bytes;      /* PSDU length (bytes) at which sensitivity is defined (10 % PER) */
    double fading_sigma_db;      /* std dev of per-frame log-normal fading (dB) */
    /* MAC timing */
    uint32_t slot_us;            /* aSlotTime (µs) */
    uint32_t sifs_us;            /* aSIFSTime (µs) */
    uint32_t ba_rate_mbps;       /* highest basic rate (Mbit/s): the BlockAck goes at the highest of it and the
                                    mandatory 6, 12, 24 not above the A-MPDU's non-HT reference rate */
    uint32_t ba_bytes;           /* compressed BlockAck frame length incl. FCS (bytes) */
    uint32_t rts_rate_mbps;      /* legacy rate of RTS and CTS (Mbit/s) */
    uint32_t rts_bytes;          /* RTS frame length incl. FCS (bytes) */
    uint32_t cts_bytes;          /* CTS frame length incl. FCS (bytes) */
    struct wlan_edca edca_ap[WLAN_AC_COUNT];  /* EDCA parameters used by APs */
    struct wlan_edca edca_sta[WLAN_AC_COUNT]; /* EDCA parameters used by STAs */
    /* Aggregation */
    uint32_t ba_window;          /* BlockAck window (MPDUs) */
    uint32_t max_ampdu_bytes;    /* maximum A-MPDU length (bytes) */
    uint32_t max_ampdu_subframes;/* AP/STA driver limit on MPDUs per A-MPDU */
    uint32_t max_ppdu_us;        /* driver limit on the PPDU duration (µs) */
    uint32_t mac_overhead_bytes; /* MAC header + LLC/SNAP + FCS added to an Ethernet payload (bytes) */
    uint32_t eth_header_bytes;   /* Ethernet header stripped from enqueued frames (bytes) */
    uint32_t mpdu_retry_limit;   /* transmissions of one MPDU before it is dropped */
    uint32_t queue_limit_pkts;   /* per (node, destination, AC) queue limit (frames) */
    /* Rate control (Minstrel-HT-like) */
    uint32_t rc_update_interval_us; /* statistics update period (µs) */
    double rc_ewma_weight;       /* weight of the old probability in the EWMA (0..1) */
    double rc_sample_ratio;      /* fraction of PPDUs sent as single-MPDU probes at a sample rate */
    double rc_prob_cap;          /* success probability cap used in throughput estimates */
    uint32_t rc_initial_mcs;     /* MCS used before statistics exist */
    bool rc_rts_on_fallback;     /* APs precede an A-MPDU sent at a fallback rate of the retry chain with RTS/CTS */
    /* Topology */
    uint32_t n_nodes;            /* number of nodes */
    struct wlan_node_config nodes[WLAN_MAX_NODES];
    double rss_dbm[WLAN_MAX_NODES][WLAN_MAX_NODES]; /* [i][j]: RSS at i from j (dBm) */
};

/* One frame handed to the model. */
struct wlan_frame {
    uint64_t id;                 /* caller's identifier, returned on delivery */
    uint32_t len_bytes;          /* Ethernet frame length (bytes) */
    uint8_t src;                 /* transmitting node index */
    uint8_t dst;                 /* receiving node index */
    uint8_t ac;                  /* enum wlan_ac */
};

struct wlan_delivery {
    uint64_t id;                 /* the frame's id */
    uint32_t len_bytes;          /* Ethernet frame length (bytes) */
    uint8_t src, dst, ac;        /* as enqueued */
    uint64_t enqueue_us;         /* virtual enqueue time (µs) */
    uint64_t deliver_us;         /* virtual delivery time (µs) */
};

/* Ground truth for one transmitted data PPDU. */
struct wlan_gt_record {
    uint8_t tx, rx;              /* transmitter and receiver node index */
    uint8_t ac;                  /* access category */
    uint8_t mcs;                 /* MCS index */
    uint64_t start_us;           /* PPDU start (µs) */
    uint32_t duration_us;        /* PPDU duration, preamble included (µs) */
    uint32_t n_mpdu;             /* MPDUs in the A-MPDU */
    uint32_t n_ok;               /* MPDUs decoded by the receiver */
    uint32_t bytes;              /* A-MPDU length (bytes) */
    double phy_mbps;             /* PHY data rate (Mbit/s) */
    bool collided;               /* another transmission overlapped it at the receiver */
    bool preamble_lost;          /* receiver was locked onto another frame at its start */
    bool ba_ok;                  /* the BlockAck reached the transmitter */
    bool rts;                    /* sent after a successful RTS/CTS exchange */
    const uint64_t *ids;         /* n_mpdu frame ids (valid during the callback) */
    const uint8_t *ok;           /* n_mpdu flags, 1 = decoded (valid during the callback) */
    const uint64_t *enq_us;      /* n_mpdu enqueue times (µs): start_us - enq_us[i] is MPDU i's wait in the
                                    transmitter's queue, the AP queueing delay of 000 (9) (valid during the callback) */
};

struct wlan_air_callbacks {
    void (*deliver)(void *ctx, const struct wlan_delivery *d);
    void (*ground_truth)(void *ctx, const struct wlan_gt_record *r); /* at exchange end; may be NULL */
    void (*dropped)(void *ctx, const struct wlan_delivery *d); /* MPDU given up at the retry limit; may be NULL */
    void *ctx;
};

/* Per (transmitter, receiver) counters. */
struct wlan_link_counters {
    uint64_t ppdus;              /* data PPDUs sent */
    uint64_t mpdus_tx;           /* MPDU transmissions (first + retries) */
    uint64_t mpdus_ok;           /* MPDU transmissions decoded */
    uint64_t mpdus_retx;         /* MPDU retransmissions */
    uint64_t mpdus_dropped;      /* MPDUs dropped at the retry limit */
    uint64_t delivered;          /* frames handed up at the receiver */
    uint64_t delivered_bytes;    /* Ethernet bytes handed up (bytes) */
    uint64_t queue_drops;        /* frames refused because the queue was full */
    uint64_t airtime_us;         /* data PPDU airtime (µs) */
    uint64_t collided;           /* PPDUs overlapped at the receiver */
    uint64_t preamble_lost;      /* PPDUs missed by a receiver locked elsewhere */
    uint64_t ba_lost;            /* exchanges without BlockAck */
    uint64_t rts_tx;             /* RTS frames sent */
    uint64_t rts_failed;         /* RTS frames not answered by a CTS the transmitter decoded */
    uint64_t ppdus_protected;    /* data PPDUs sent after a successful RTS/CTS exchange */
    uint64_t sum_ampdu;          /* sum over PPDUs of MPDUs per A-MPDU */
    double sum_phy_mbps;         /* sum over PPDUs of the PHY rate (Mbit/s) */
};

typedef struct wlan_air wlan_air_t;

/* Loads and validates a JSON air config; on error returns -1 with a message
 * naming the offending key in err and leaves *out unspecified. */
int wlan_air_config_load(const char *path, struct wlan_air_config *out, char *err, size_t errlen);

wlan_air_t *wlan_air_create(const struct wlan_air_config *cfg, uint64_t seed);
void wlan_air_destroy(wlan_air_t *air);

int wlan_air_node_index(const wlan_air_t *air, const char *name); /* -1 if unknown */
const struct wlan_air_config *wlan_air_config(const wlan_air_t *air);

/* Queues a frame at virtual time now_us. Returns 0, or -1 if the queue is
 * full or src/dst/ac are invalid (the frame is dropped and counted). */
int wlan_air_enqueue(wlan_air_t *air, const struct wlan_frame *f, uint64_t now_us);

/* Runs the model up to now_us inclusive, calling back each delivery and PPDU. */
void wlan_air_advance(wlan_air_t *air, uint64_t now_us, const struct wlan_air_callbacks *cb);

/* Virtual time of the next internal event (µs); UINT64_MAX when idle. */
uint64_t wlan_air_next_event_us(const wlan_air_t *air);

void wlan_air_link_counters(const wlan_air_t *air, int tx, int rx, struct wlan_link_counters *out);

/* Frames queued at node (all destinations and ACs, in flight included). */
uint32_t wlan_air_queued(const wlan_air_t *air, int node, int dst);

/* For a caller that stops: from now on no node starts a transmission (an RTS that got its CTS still sends its
 * A-MPDU), so the exchanges under way run to their end (BlockAck or its timeout, ground truth), after which
 * wlan_air_next_event_us() returns UINT64_MAX. Queued frames stay queued. Not undone. */
void wlan_air_finish_exchanges(wlan_air_t *air);

/* Shifts the RSS between nodes a and b by delta_db, both ways (path gain is
 * reciprocal: an obstacle or the STA moving changes both cells of the
 * rss_dbm matrix alike). Takes effect from the next PPDU on; rate control
 * learns it from the losses it causes, as minstrel_ht does. Returns -1, with
 * nothing changed, for an unknown or identical pair of nodes or a result
 * outside the config's [-150, 0] dBm. */
int wlan_air_shift_link_rss(wlan_air_t *air, int a, int b, double delta_db);

#endif
