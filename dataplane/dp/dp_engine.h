/*
 * What both backends share: the configuration in force, the scheduling core,
 * the telemetry sinks, configuration reloads (SIGHUP re-reads --config;
 * Redis hands over validated versions), the counters and the slice-start
 * timing error.  The backends own the packets and the clock; every call here
 * takes the backend's now_ns (monotonic, ns) and never blocks on I/O except
 * the telemetry file write.
 */
#ifndef ADW_DP_ENGINE_H
#define ADW_DP_ENGINE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "adwiser/sched.h"
#include "dp_options.h"
#include "slice_lateness.h"

#define DP_ENGINE_MAX_PORTS (1 + DP_MAX_AP_PORTS)

struct telemetry_jsonl;
struct redis_link;
struct pacing_table;
struct sta_ip_map;

struct dp_counters {
    uint64_t rx_pkts;          /* packets handed to the core */
    uint64_t passed_pkts;      /* verdict ADW_PASS, forwarded at once */
    uint64_t queued_pkts;      /* verdict ADW_QUEUED, held by the core */
    uint64_t dropped_pkts;     /* verdict ADW_DROP (the core counts the cause) */
    uint64_t released_pkts;    /* returned by adw_sched_dequeue_burst */
    uint64_t flushed_pkts;     /* returned by adw_sched_flush at shutdown */
    uint64_t tx_pkts;          /* transmitted (DPDK: handed to the PMD or to the port's TX backlog, less what was
                                  lost after all, which is in tx_drops) or accepted by verdict (nfqueue) */
    uint64_t tx_drops;         /* could not be transmitted: backlog full (tx_backlog_drops), a peer that took nothing
                                  for 100 ms (tx_stall_drops), bad out_port, no mbuf for a VLAN tag or a copy */
    uint64_t tx_backlog_drops; /* DPDK: of tx_drops, frames a full TX ring left when the port's backlog was full */
    uint64_t tx_backlog_max;   /* DPDK: the most frames one port's TX backlog held at once */
    uint64_t tx_stall_drops;   /* DPDK: of tx_drops, frames of a port whose ring took nothing for 100 ms (peer gone):
                                  its backlog then, and what it refused after that until it took a frame again */
    uint64_t reloads_applied;  /* configurations swapped in */
    uint64_t reloads_rejected; /* configurations refused (file or Redis) */
    uint64_t frames_reported;  /* frame reports written to telemetry */
    uint64_t config_drops;     /* held packets of removed pairs handed out as ADW_PORT_DROP (freed) */
    uint64_t rx_missed;        /* packets the drivers could not receive (ring full, no mbuf) */
    uint64_t vlan_unknown;     /* frames on a VLAN trunk with a VLAN id of no AP (taken as its first AP's), and frames
                                * sent towards an AP behind a VLAN with a tag of another VLAN of their own (as they came) */
    uint64_t drained_pkts;     /* NFQUEUE shutdown: queued but not yet read, accepted unscheduled before the unbind */
    uint64_t unscheduled_pkts; /* NFQUEUE: read while running and accepted without the core (from an interface that
                                  is none of the ports, or no payload or memory to hold it): in tx_pkts, not rx_pkts */
    uint64_t routed_elsewhere_pkts; /* NFQUEUE: passed floods the kernel routed out of an interface that is none of
                                       the ports (a management one): in tx_pkts, on no port */
    uint64_t verdicts_retried; /* NFQUEUE: verdicts the kernel refused at first and took when given again */
    uint64_t fail_open_pkts;   /* NFQUEUE: accepted by the kernel itself, unscheduled, our socket being full (the
                                  ids it skipped; nfq_fail_open.h) */
    uint64_t shutdown_lost_pkts; /* NFQUEUE: queued in the kernel and never read when the queue was unbound at
                                    shutdown (the drain timed out, or queueing could not be stopped): dropped by the
                                    unbind, unscheduled (nfq_fail_open.h) */
    uint64_t telemetry_file_lost;  /* frames whose records the --telemetry file refused (write or flush failed) */
    uint64_t telemetry_redis_lost; /* frames of telemetry the Redis thread never sent (lagging or disconnected), or
                                      with a record Redis refused (an error reply) */
    uint64_t telemetry_redis_unconfirmed; /* frames it sent on a connection that broke before Redis answered them:
                                             stored or not, unknown (redis_link.h) */
};

#define DP_RX_SECONDS 120         /* loop seconds whose receive count --stats keeps */

struct dp_engine {
    const struct dp_options *opt;  /* command line (not owned) */
    struct adw_config *cfg;        /* configuration last handed to the core (owned); in force from the frame
                                      cfg_first_frame on */
    /* The NFQUEUE backend's per-packet lookup of a destination STA's MAC (sta_ip_map.h) must answer for the
     * configuration the core classifies by: a reload's map waits until the core swaps the reload in, at its frame
     * boundary (dp_engine_follow_core). NULL under DPDK, which reads the MAC from the frame. */
    struct sta_ip_map *cfg_ips;    /* STA IPv4 addresses -> MAC of the configuration the core runs (owned) */
    struct sta_ip_map *staged_ips; /* cfg's, while the core has not swapped it in yet (owned); NULL = none */
    uint64_t ips_swaps_seen;       /* core's config_swaps when staged_ips was staged */
    /* Frame telemetry names a frame's slices from the configuration it ran under.  A reload reaches the core at
     * its next frame boundary, and the frame running meanwhile is reported after that boundary: until a report
     * of frame cfg_first_frame is taken, the frames before it ran under frame_cfg.  Frames are counted from 1 in
     * the order they start (the core reports each one, in that order, when the next starts). */
    struct adw_config *frame_cfg;  /* configuration of frames before cfg_first_frame (owned); NULL = none left */
    uint64_t cfg_first_frame;      /* first frame run under cfg, counted from 1; 0 = since the start */
    uint64_t frames_polled;        /* frame reports taken from the core */
    uint64_t cfg_version;          /* Redis version in force, 0 = the --config file */
    uint64_t ack_pending;          /* Redis version handed to the core, acknowledged once active; 0 = none */
    int file_pending;              /* --config reloaded (SIGHUP) with --redis: reported as version 0 once active */
    uint64_t start_ns;             /* backend clock when the loop started, ns */
    int64_t epoch_offset_ns;       /* Unix time minus backend clock, ns: telemetry times are Unix epoch (REDIS.md) */
    uint64_t elapsed_ns;           /* loop run time, ns (set by the backend at exit) */
    struct adw_sched *sched;       /* the scheduling core (owned) */
    unsigned n_ports;              /* scheduler ports: uplink + APs */
    struct telemetry_jsonl *tm;    /* NULL without --telemetry */
    struct redis_link *redis;      /* NULL without --redis */
    struct slice_lateness lateness; /* slice-start timing error histogram */
    uint64_t last_due_ns;          /* slice start whose lateness was last recorded, ns */
    uint64_t timed_due_ns;         /* slice start awaited, ns; 0 = none */
    uint64_t due_named_at_ns;      /* when the backend last asked adw_sched_next_event_ns, ns */
    struct dp_counters c;          /* packet counters of the backend loop */
    uint64_t port_rx[DP_ENGINE_MAX_PORTS];        /* packets received per scheduler port */
    uint64_t port_tx[DP_ENGINE_MAX_PORTS];        /* packets transmitted per scheduler port (DPDK: handed to the
                                                     PMD or the TX backlog, less port_tx_lost) */
    uint64_t port_tx_lost[DP_ENGINE_MAX_PORTS];   /* DPDK: of those handed to TX, lost after all in the port's TX
                                                     backlog (full, or a peer gone at shutdown; in c.tx_drops) */
    const char *backend_name;      /* "dpdk" or "nfqueue" */
    struct pacing_table *pacing;   /* pacing rates in force (--pacing, then the Redis hash), NULL = none */
    uint64_t pacing_swaps_seen;    /* core's config_swaps when the rates were last applied */
    uint32_t ack_model_version;    /* version of the --ack-model file loaded, 0 = none */
    /* c.rx_pkts at each whole second of the loop (DPDK backend), for per-second rates like testpmd's
     * --stats-period 1 (`make bench` compares the two by the median of the same 1-s periods). */
    uint64_t rx_per_s[DP_RX_SECONDS];
    unsigned n_rx_per_s;
};

extern volatile sig_atomic_t dp_stop_requested;    /* SIGTERM / SIGINT */
extern volatile sig_atomic_t dp_reload_requested;  /* SIGHUP */

/* Loads --config (refused whole with the field named) into a fresh config. */
struct adw_config *dp_engine_load_config(const char *path, char *err, size_t errlen);

/* Loads --ack-model into the core s (*m: the model loaded); a refusal names the option and the file. */
int dp_engine_load_ack_model(const char *path, struct adw_sched *s, struct adw_ack_model *m, char *err,
                             size_t errlen);
/* Loads --pacing; NULL on a refusal, which names the option and the file. */
struct pacing_table *dp_engine_load_pacing(const char *path, char *err, size_t errlen);

/* Creates the core for n_ports ports and opens telemetry/Redis. */
int dp_engine_start(struct dp_engine *e, const struct dp_options *o, struct adw_config *cfg, unsigned n_ports,
                    const char *backend_name, uint64_t now_ns, char *err, size_t errlen);

/*
 * Once per loop iteration: records slice-start lateness for the event due at
 * due_ns if now_ns passed it, writes finished frame reports, and applies a
 * pending reload at the core's next frame boundary.
 */
void dp_engine_tick(struct dp_engine *e, uint64_t now_ns, uint64_t due_ns);

/*
 * Slice-start timing error.  The backend calls dp_engine_expect(now) right
 * before asking adw_sched_next_event_ns(now); dp_engine_note_due(now, due)
 * then records how late now is past due, once per event, and only for events
 * that lay in the future when named (slice starts, not "backlog due now").
 */
void dp_engine_expect(struct dp_engine *e, uint64_t now_ns);
void dp_engine_note_due(struct dp_engine *e, uint64_t now_ns, uint64_t due_ns);

/* Makes e->cfg_ips the map of the configuration the core runs, once it has swapped a reload in: the backend calls it
 * after anything that may cross a frame boundary (adw_sched_dequeue_burst), before it reads more packets. */
void dp_engine_follow_core(struct dp_engine *e);

/* Sets every pair's pacing rate from e->pacing (absent = not paced), at once (SPEC §3.7). */
void dp_engine_apply_pacing(struct dp_engine *e, uint64_t now_ns);

/* Writes --stats and closes everything. */
void dp_engine_finish(struct dp_engine *e);

/* Writes the process id to path (NULL = nothing), once the backend runs. */
void dp_write_pid_file(const char *path);
/* Removes the pid file at exit if it still holds this process's id (a stale one would name a reused PID). */
void dp_remove_pid_file(const char *path);

/* Installs SIGTERM/SIGINT/SIGHUP handlers; PR_SET_TIMERSLACK 1 ns. */
void dp_engine_install_signals(void);

#endif
