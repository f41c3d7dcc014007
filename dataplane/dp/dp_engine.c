/* State both backends share; see dp_engine.h. */
#include "dp_engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "ack_model_json.h"
#include "config_json.h"
#include "dp_topology.h"
#include "redis_link.h"
#include "run_stats.h"
#include "sta_ip_map.h"
#include "frame_telemetry.h"
#include "pacing_table.h"
#include "telemetry_jsonl.h"

volatile sig_atomic_t dp_stop_requested;
volatile sig_atomic_t dp_reload_requested;

static void on_stop(int sig)
{
    (void)sig;
    dp_stop_requested = 1;
}

static void on_hup(int sig)
{
    (void)sig;
    dp_reload_requested = 1;
}

void dp_engine_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_hup;
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* Wake-ups within a few µs of the asked time (SPEC §7: 50 µs default slack). */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

void dp_write_pid_file(const char *path)
{
    if (!path)
        return;
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "adwiser-dp: --pid-file %s: %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    rename(tmp, path);   /* readers never see an empty pid file */
}

void dp_remove_pid_file(const char *path)
{
    if (!path)
        return;
    /* Only if it still names us: a failed start never wrote it, and then it may be another run's. */
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    long pid = 0;
    int got = fscanf(f, "%ld", &pid);
    fclose(f);
    if (got == 1 && pid == (long)getpid())
        unlink(path);
}

struct adw_config *dp_engine_load_config(const char *path, char *err, size_t errlen)
{
    struct adw_config *cfg = config_json_alloc();
    if (!cfg) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (config_json_load_file(path, cfg, err, errlen) != 0) {
        free(cfg);
        return NULL;
    }
    return cfg;
}

int dp_engine_load_ack_model(const char *path, struct adw_sched *s, struct adw_ack_model *m, char *err,
                             size_t errlen)
{
    char why[400];
    if (ack_model_json_load_file(path, ACK_MODEL_KIND_ACK_BURST, m, why, sizeof(why)) != 0
        || adw_sched_set_ack_model(s, m, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--ack-model %s: %s", path, why);
        return -1;
    }
    return 0;
}

struct pacing_table *dp_engine_load_pacing(const char *path, char *err, size_t errlen)
{
    char why[400];
    struct pacing_table *t = pacing_table_load_file(path, why, sizeof(why));
    if (!t)
        snprintf(err, errlen, "--pacing %s: %s", path, why);
    return t;
}

/* cfg's IPv4 -> STA MAC map into *out: built for the NFQUEUE backend alone, which looks a packet's STA up by its
 * IPv4 address (a DPDK frame carries the MAC; *out is NULL then). -1 if it cannot be built. */
static int build_sta_ip_map(const struct dp_options *o, const struct adw_config *cfg, struct sta_ip_map **out,
                            char *err, size_t errlen)
{
    *out = NULL;
    if (o->backend != DP_BACKEND_NFQUEUE)
        return 0;
    *out = sta_ip_map_build(cfg);
    if (*out)
        return 0;
    snprintf(err, errlen, "out of memory mapping the STAs' addresses");
    return -1;
}

int dp_engine_start(struct dp_engine *e, const struct dp_options *o, struct adw_config *cfg, unsigned n_ports,
                    const char *backend_name, uint64_t now_ns, char *err, size_t errlen)
{
    memset(e, 0, sizeof(*e));
    e->opt = o;
    e->cfg = cfg;
    if (build_sta_ip_map(o, cfg, &e->cfg_ips, err, errlen) != 0)
        return -1;
    e->n_ports = n_ports;
    e->backend_name = backend_name;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    e->epoch_offset_ns = (int64_t)((uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec) - (int64_t)now_ns;
    struct adw_sched_params p;
    memset(&p, 0, sizeof(p));
    p.pool_pkts = o->hold_pkts;
    p.report_frames = 64;   /* polled every loop iteration; 64 frames is slack for a slow telemetry write */
    e->sched = adw_sched_create(&p, cfg, now_ns, err, errlen);
    if (!e->sched)
        return -1;
    if (o->ack_model_path) {
        struct adw_ack_model m;
        if (dp_engine_load_ack_model(o->ack_model_path, e->sched, &m, err, errlen) != 0)
            return -1;
        e->ack_model_version = m.version;
        fprintf(stderr, "adwiser-dp: ACK-burst model version %u (m = %u) loaded from %s\n", m.version, m.m,
                o->ack_model_path);
    }
    if (o->pacing_path) {
        e->pacing = dp_engine_load_pacing(o->pacing_path, err, errlen);
        if (!e->pacing)
            return -1;
        dp_engine_apply_pacing(e, now_ns);
    }
    if (o->telemetry_path) {
        e->tm = telemetry_jsonl_open(o->telemetry_path, err, errlen);
        if (!e->tm)
            return -1;
    }
    if (o->redis_addr) {
        e->redis = redis_link_start(o->redis_addr, cfg->appliance_id, backend_name, err, errlen);
        if (!e->redis)
            return -1;
    }
    return 0;
}

/* Swaps in a validated configuration at the core's next frame boundary; takes ownership of next. */
static int apply_config(struct dp_engine *e, struct adw_config *next, uint64_t now_ns, char *err, size_t errlen)
{
    /* Built before the core takes next: once it has, the reload can no longer be refused. */
    struct sta_ip_map *ips;
    if (build_sta_ip_map(e->opt, next, &ips, err, errlen) != 0
        || dp_topology_same_aps(e->cfg, next, err, errlen) != 0
        || adw_sched_set_config(e->sched, next, now_ns, err, errlen) != 0) {
        sta_ip_map_free(ips);
        free(next);
        e->c.reloads_rejected++;
        return -1;
    }
    /* Every finished frame reported first: what is left to report is the frame running now and later ones. */
    frame_telemetry_poll(e);
    struct adw_stats st;
    adw_sched_stats_read(e->sched, &st);
    if (e->frame_cfg && e->cfg_first_frame > st.frames) {
        /* The configuration staged before has not reached the core yet and never will (replaced): the frame
         * running now still runs under frame_cfg. */
        free(e->cfg);
    } else {
        /* The frame running now runs under cfg (frame_cfg, if any, had no frame left to report). */
        free(e->frame_cfg);
        e->frame_cfg = e->cfg;
    }
    e->cfg = next;
    /* The core classifies by the configuration before next until its frame boundary: so does the map. A staged map
     * next replaces was never in force. */
    dp_engine_follow_core(e);
    sta_ip_map_free(e->staged_ips);
    e->staged_ips = ips;
    e->ips_swaps_seen = st.config_swaps;
    e->cfg_first_frame = st.frames + 1;   /* the core swaps it in as the next frame starts */
    e->c.reloads_applied++;
    return 0;
}

/* Tells Redis what the core runs once a configuration handed to it is in force: the Redis version (ack_pending),
 * acknowledged, or the --config file a SIGHUP reloaded (file_pending), version 0, the operator's override, which the
 * controller would otherwise never learn of (`active` and the heartbeat kept naming the version it replaced). */
static void report_when_live(struct dp_engine *e)
{
    uint32_t running = adw_sched_active_version(e->sched);
    if (e->ack_pending && running == e->ack_pending) {
        e->cfg_version = e->ack_pending;
        redis_link_ack(e->redis, e->ack_pending);
        e->ack_pending = 0;
    }
    if (e->file_pending && running == 0) {
        redis_link_file_runs(e->redis);
        e->file_pending = 0;
    }
}

/* A reload replaced the Redis version handed to the core: acknowledged if a frame boundary since the last tick put
 * it in force, refused otherwise, since it will never run and the controller would show it pending for good. */
static void settle_replaced_version(struct dp_engine *e)
{
    char err[512];
    report_when_live(e);
    if (!e->ack_pending)
        return;
    snprintf(err, sizeof(err), "replaced by a reload of %s (SIGHUP) before it went live", e->opt->config_path);
    fprintf(stderr, "adwiser-dp: version %llu refused: %s\n", (unsigned long long)e->ack_pending, err);
    redis_link_reject(e->redis, e->ack_pending, err);
    e->ack_pending = 0;
}

static void reload_from_file(struct dp_engine *e, uint64_t now_ns)
{
    char err[512];
    struct adw_config *next = dp_engine_load_config(e->opt->config_path, err, sizeof(err));
    if (!next) {
        e->c.reloads_rejected++;
        fprintf(stderr, "adwiser-dp: reload of %s refused, keeping the configuration in force: %s\n",
                e->opt->config_path, err);
        return;
    }
    if (apply_config(e, next, now_ns, err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-dp: reload of %s refused: %s\n", e->opt->config_path, err);
        return;
    }
    settle_replaced_version(e);
    e->file_pending = e->redis != NULL;
    e->cfg_version = 0;
    fprintf(stderr, "adwiser-dp: reloaded %s\n", e->opt->config_path);
}

static void reload_from_redis(struct dp_engine *e, uint64_t now_ns)
{
    char err[512];
    uint64_t version;
    struct adw_config *next = redis_link_take_config(e->redis, &version);
    if (!next)
        return;
    next->version = (uint32_t)version;
    if (apply_config(e, next, now_ns, err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-dp: version %llu refused: %s\n", (unsigned long long)version, err);
        redis_link_reject(e->redis, version, err);
        return;
    }
    report_when_live(e);        /* a reloaded --config file that went live at a boundary since the last tick */
    e->file_pending = 0;        /* otherwise it never runs: replaced */
    e->ack_pending = version;   /* acknowledged once the core runs it (next frame boundary) */
}

void dp_engine_apply_pacing(struct dp_engine *e, uint64_t now_ns)
{
    /* One change for the whole table (adw_sched_set_pacing_table), not pair by pair. Static: 4096 names of 128
     * bytes, and the loop is the only caller. */
    static char names[ADW_MAX_STAS][ADW_PAIR_NAME_LEN];
    static struct adw_pacing_rate rates[ADW_MAX_STAS];
    static bool in_force[ADW_MAX_STAS];
    unsigned n = e->cfg->n_stas, known = 0;
    for (uint16_t q = 0; q < n; q++) {
        adw_config_pair_name(e->cfg, q, names[q], sizeof(names[q]));
        rates[q] = (struct adw_pacing_rate){names[q], pacing_table_rate(e->pacing, names[q])};
    }
    /* A pair of a version not yet in force is refused by the core; it is set again after the swap. */
    adw_sched_set_pacing_table(e->sched, rates, n, now_ns, in_force);
    for (unsigned q = 0; q < n; q++)
        known += in_force[q] && rates[q].rate_bps > 0;
    struct adw_stats st;
    adw_sched_stats_read(e->sched, &st);
    e->pacing_swaps_seen = st.config_swaps;
    unsigned listed = 0;
    for (unsigned i = 0; e->pacing && i < e->pacing->n; i++)
        listed += e->pacing->e[i].bps > 0;
    if (listed != known)
        fprintf(stderr, "adwiser-dp: pacing: %u of %u paced pairs are not in the configuration in force\n",
                listed - known, listed);
}

static void pacing_tick(struct dp_engine *e, uint64_t now_ns)
{
    struct pacing_table *t = e->redis ? redis_link_take_pacing(e->redis) : NULL;
    if (t) {
        pacing_table_free(e->pacing);
        e->pacing = t;
        dp_engine_apply_pacing(e, now_ns);
        return;
    }
    if (!e->pacing)
        return;
    struct adw_stats st;
    adw_sched_stats_read(e->sched, &st);
    if (st.config_swaps != e->pacing_swaps_seen) /* new pairs may have come in with the version */
        dp_engine_apply_pacing(e, now_ns);
}

void dp_engine_follow_core(struct dp_engine *e)
{
    if (!e->staged_ips)
        return;
    struct adw_stats st;
    adw_sched_stats_read(e->sched, &st);
    if (st.config_swaps == e->ips_swaps_seen)
        return;
    sta_ip_map_free(e->cfg_ips);
    e->cfg_ips = e->staged_ips;
    e->staged_ips = NULL;
}

void dp_engine_note_due(struct dp_engine *e, uint64_t now_ns, uint64_t due_ns)
{
    /* Only events that were in the future when the core named them are slice starts; "due now" is backlog. */
    if (due_ns > e->due_named_at_ns && due_ns != UINT64_MAX && due_ns != e->last_due_ns)
        e->timed_due_ns = due_ns;
    if (e->timed_due_ns && now_ns >= e->timed_due_ns) {
        slice_lateness_record(&e->lateness, now_ns - e->timed_due_ns);
        e->last_due_ns = e->timed_due_ns;
        e->timed_due_ns = 0;
    }
}

void dp_engine_expect(struct dp_engine *e, uint64_t now_ns)
{
    e->due_named_at_ns = now_ns;
}

void dp_engine_tick(struct dp_engine *e, uint64_t now_ns, uint64_t due_ns)
{
    dp_engine_note_due(e, now_ns, due_ns);
    dp_engine_follow_core(e);
    frame_telemetry_poll(e);
    if (dp_reload_requested) {
        dp_reload_requested = 0;
        reload_from_file(e, now_ns);
    }
    pacing_tick(e, now_ns);
    if (e->redis) {
        reload_from_redis(e, now_ns);
        report_when_live(e);
    }
}

void dp_engine_finish(struct dp_engine *e)
{
    /* The Redis thread first: its last pass may still drop telemetry, which --stats counts. */
    if (e->redis) {
        struct redis_link_tm_losses tm = redis_link_stop(e->redis);
        e->c.telemetry_redis_lost = tm.lost;
        e->c.telemetry_redis_unconfirmed = tm.unconfirmed;
        e->redis = NULL;
    }
    if (e->opt->stats_path)
        run_stats_write(e, e->opt->stats_path);
    fprintf(stderr,
            "adwiser-dp: rx %llu passed %llu queued %llu released %llu flushed %llu dropped %llu tx %llu tx_drops %llu\n",
            (unsigned long long)e->c.rx_pkts, (unsigned long long)e->c.passed_pkts,
            (unsigned long long)e->c.queued_pkts, (unsigned long long)e->c.released_pkts,
            (unsigned long long)e->c.flushed_pkts, (unsigned long long)e->c.dropped_pkts,
            (unsigned long long)e->c.tx_pkts, (unsigned long long)e->c.tx_drops);
    if (e->c.telemetry_file_lost || e->c.telemetry_redis_lost || e->c.telemetry_redis_unconfirmed)
        fprintf(stderr,
                "adwiser-dp: telemetry of %llu frames not written to --telemetry, of %llu not sent to Redis, of %llu "
                "sent to Redis but unconfirmed (the connection broke first)\n",
                (unsigned long long)e->c.telemetry_file_lost, (unsigned long long)e->c.telemetry_redis_lost,
                (unsigned long long)e->c.telemetry_redis_unconfirmed);
    if (e->tm)
        telemetry_jsonl_close(e->tm);
    adw_sched_free(e->sched);
    pacing_table_free(e->pacing);
    e->pacing = NULL;
    free(e->cfg);
    e->cfg = NULL;
    sta_ip_map_free(e->cfg_ips);
    e->cfg_ips = NULL;
    sta_ip_map_free(e->staged_ips);
    e->staged_ips = NULL;
    free(e->frame_cfg);
    e->frame_cfg = NULL;
}
