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

#include "config_json.h"
#include "dp_topology.h"
#include "redis_link.h"
#include "frame_telemetry.h"
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

int dp_engine_start(struct dp_engine *e, const struct dp_options *o, struct adw_config *cfg, unsigned n_ports,
                    const char *backend_name, uint64_t now_ns, char *err, size_t errlen)
{
    memset(e, 0, sizeof(*e));
    e->opt = o;
    e->cfg = cfg;
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
    if (dp_topology_same_aps(e->cfg, next, err, errlen) != 0
        || adw_sched_set_config(e->sched, next, now_ns, err, errlen) != 0) {
        free(next);
        e->c.reloads_rejected++;
        return -1;
    }
    free(e->cfg);
    e->cfg = next;
    e->c.reloads_applied++;
    return 0;
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
    e->ack_pending = version;   /* acknowledged once the core runs it (next frame boundary) */
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
    frame_telemetry_poll(e);
    if (dp_reload_requested) {
        dp_reload_requested = 0;
        reload_from_file(e, now_ns);
    }
    if (e->redis) {
        reload_from_redis(e, now_ns);
        if (e->ack_pending && adw_sched_active_version(e->sched) == e->ack_pending) {
            e->cfg_version = e->ack_pending;
            redis_link_ack(e->redis, e->ack_pending);
            e->ack_pending = 0;
        }
    }
}

static json_t *core_stats_json(const struct adw_stats *s)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
                     " s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                     "rx_pkts", (json_int_t)s->rx_pkts, "rx_bytes", (json_int_t)s->rx_bytes,
                     "malformed", (json_int_t)s->malformed, "pass_uplink", (json_int_t)s->pass_uplink,
                     "pass_broadcast", (json_int_t)s->pass_broadcast, "pass_unknown", (json_int_t)s->pass_unknown,
                     "pass_arp", (json_int_t)s->pass_arp, "pass_other", (json_int_t)s->pass_other,
                     "queued_data", (json_int_t)s->queued_data, "queued_ack", (json_int_t)s->queued_ack,
                     "queued_rt", (json_int_t)s->queued_rt, "released_pkts", (json_int_t)s->released_pkts,
                     "released_bytes", (json_int_t)s->released_bytes, "released_rt", (json_int_t)s->released_rt,
                     "drops_tail", (json_int_t)s->drops_tail, "drops_pool", (json_int_t)s->drops_pool,
                     "drops_config", (json_int_t)s->drops_config, "frames", (json_int_t)s->frames,
                     "frames_skipped", (json_int_t)s->frames_skipped, "batches", (json_int_t)s->batches,
                     "batches_underfilled", (json_int_t)s->batches_underfilled,
                     "drains_completed", (json_int_t)s->drains_completed, "drains_capped", (json_int_t)s->drains_capped,
                     "drains_overrun", (json_int_t)s->drains_overrun, "tsabr_resets", (json_int_t)s->tsabr_resets,
                     "reassignments", (json_int_t)s->reassignments, "config_swaps", (json_int_t)s->config_swaps,
                     "config_rejected", (json_int_t)s->config_rejected,
                     "reports_overwritten", (json_int_t)s->reports_overwritten, "pool_size", (json_int_t)s->pool_size,
                     "pool_in_use", (json_int_t)s->pool_in_use);
}

static void write_stats(const struct dp_engine *e)
{
    json_t *ports = json_array();
    for (unsigned i = 0; i < e->n_ports; i++)
        json_array_append_new(ports, json_pack("{s:I, s:I, s:I}", "rx_pkts", (json_int_t)e->port_rx[i], "tx_pkts",
                                               (json_int_t)e->port_tx[i], "rx_missed", (json_int_t)e->port_rx_missed[i]));
    struct adw_stats st;
    memset(&st, 0, sizeof(st));
    adw_sched_stats_read(e->sched, &st);
    json_t *doc = json_pack(
        "{s:s, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:o, s:o,"
        " s:{s:I, s:f, s:f, s:f, s:f}}",
        "backend", e->backend_name, "elapsed_ns", (json_int_t)e->elapsed_ns,
        "counters", "rx_pkts", (json_int_t)e->c.rx_pkts, "passed_pkts", (json_int_t)e->c.passed_pkts,
        "queued_pkts", (json_int_t)e->c.queued_pkts, "dropped_pkts", (json_int_t)e->c.dropped_pkts,
        "released_pkts", (json_int_t)e->c.released_pkts, "flushed_pkts", (json_int_t)e->c.flushed_pkts,
        "tx_pkts", (json_int_t)e->c.tx_pkts, "tx_drops", (json_int_t)e->c.tx_drops,
        "reloads_applied", (json_int_t)e->c.reloads_applied, "reloads_rejected", (json_int_t)e->c.reloads_rejected,
        "frames_reported", (json_int_t)e->c.frames_reported,
        "ports", ports, "core", core_stats_json(&st),
        "slice_start_error", "events", (json_int_t)e->lateness.count,
        "p50_us", slice_lateness_quantile_us(&e->lateness, 0.5),
        "p99_us", slice_lateness_quantile_us(&e->lateness, 0.99),
        "p999_us", slice_lateness_quantile_us(&e->lateness, 0.999),
        "max_us", (double)e->lateness.max_ns / 1000.0);
    if (!doc || json_dump_file(doc, e->opt->stats_path, JSON_INDENT(1)) != 0)
        fprintf(stderr, "adwiser-dp: cannot write --stats %s\n", e->opt->stats_path);
    json_decref(doc);
}

void dp_engine_finish(struct dp_engine *e)
{
    if (e->opt->stats_path)
        write_stats(e);
    fprintf(stderr,
            "adwiser-dp: rx %llu passed %llu queued %llu released %llu flushed %llu dropped %llu tx %llu tx_drops %llu\n",
            (unsigned long long)e->c.rx_pkts, (unsigned long long)e->c.passed_pkts,
            (unsigned long long)e->c.queued_pkts, (unsigned long long)e->c.released_pkts,
            (unsigned long long)e->c.flushed_pkts, (unsigned long long)e->c.dropped_pkts,
            (unsigned long long)e->c.tx_pkts, (unsigned long long)e->c.tx_drops);
    if (e->redis)
        redis_link_stop(e->redis);
    if (e->tm)
        telemetry_jsonl_close(e->tm);
    adw_sched_free(e->sched);
    free(e->cfg);
    e->cfg = NULL;
}
