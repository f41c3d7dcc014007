/*
 * The --stats document written at exit: the backend's counters, per-port
 * driver counts, the core's adw_stats and the slice-start timing error.
 * The end-to-end tests and `make bench` read it; the testbed keeps it with
 * each experiment's results.
 */
#include "run_stats.h"

#include <stdio.h>
#include <string.h>

#include <jansson.h>

/* The real-time release's counters (core/realtime_release.c), added to the core object. */
static json_t *with_realtime_stats(json_t *core, const struct adw_stats *s)
{
    json_object_set_new(core, "rt_holds", json_integer((json_int_t)s->rt_holds));
    json_object_set_new(core, "rt_held_ns", json_integer((json_int_t)s->rt_held_ns));
    json_object_set_new(core, "rt_hold_timeouts", json_integer((json_int_t)s->rt_hold_timeouts));
    json_object_set_new(core, "rt_batch_waits", json_integer((json_int_t)s->rt_batch_waits));
    json_object_set_new(core, "rt_between_slices", json_integer((json_int_t)s->rt_between_slices));
    json_object_set_new(core, "batch_refills", json_integer((json_int_t)s->batch_refills));
    json_object_set_new(core, "early_slice_starts", json_integer((json_int_t)s->early_slice_starts));
    json_object_set_new(core, "early_slice_ns", json_integer((json_int_t)s->early_slice_ns));
    json_object_set_new(core, "drains_silent", json_integer((json_int_t)s->drains_silent));
    json_object_set_new(core, "drains_unmeasured", json_integer((json_int_t)s->drains_unmeasured));
    return core;
}

/* Frames of telemetry a sink lost (dp_engine.h); NFQUEUE: packets the kernel passed unscheduled, those the loop
 * accepted without the core, verdicts retried. */
static void with_telemetry_losses(json_t *counters, const struct dp_counters *c)
{
    json_object_set_new(counters, "fail_open_pkts", json_integer((json_int_t)c->fail_open_pkts));
    json_object_set_new(counters, "unscheduled_pkts", json_integer((json_int_t)c->unscheduled_pkts));
    json_object_set_new(counters, "verdicts_retried", json_integer((json_int_t)c->verdicts_retried));
    json_object_set_new(counters, "telemetry_file_lost", json_integer((json_int_t)c->telemetry_file_lost));
    json_object_set_new(counters, "telemetry_redis_lost", json_integer((json_int_t)c->telemetry_redis_lost));
    json_object_set_new(counters, "telemetry_redis_unconfirmed",
                        json_integer((json_int_t)c->telemetry_redis_unconfirmed));
}

/* DPDK: frames that waited for a full TX ring (dpdk_tx_backlog.h), those a full backlog could not keep, and those
 * lost to a peer gone (a ring that took nothing for 100 ms). */
static void with_tx_backlog(json_t *counters, const struct dp_counters *c)
{
    json_object_set_new(counters, "tx_backlog_max", json_integer((json_int_t)c->tx_backlog_max));
    json_object_set_new(counters, "tx_backlog_drops", json_integer((json_int_t)c->tx_backlog_drops));
    json_object_set_new(counters, "tx_stall_drops", json_integer((json_int_t)c->tx_stall_drops));
}

static json_t *core_stats_json(const struct adw_stats *s)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
                     " s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
                     " s:I}",
                     "rx_pkts", (json_int_t)s->rx_pkts, "rx_bytes", (json_int_t)s->rx_bytes,
                     "malformed", (json_int_t)s->malformed, "pass_uplink", (json_int_t)s->pass_uplink,
                     "pass_broadcast", (json_int_t)s->pass_broadcast, "pass_unknown", (json_int_t)s->pass_unknown,
                     "pass_arp", (json_int_t)s->pass_arp, "pass_other", (json_int_t)s->pass_other,
                     "queued_data", (json_int_t)s->queued_data, "queued_ack", (json_int_t)s->queued_ack,
                     "queued_rt", (json_int_t)s->queued_rt, "released_pkts", (json_int_t)s->released_pkts,
                     "released_bytes", (json_int_t)s->released_bytes, "released_rt", (json_int_t)s->released_rt,
                     "drops_tail", (json_int_t)s->drops_tail, "drops_pool", (json_int_t)s->drops_pool,
                     "drops_config", (json_int_t)s->drops_config, "released_config", (json_int_t)s->released_config,
                     "frames", (json_int_t)s->frames,
                     "frames_skipped", (json_int_t)s->frames_skipped,
                     "slices_skipped", (json_int_t)s->slices_skipped, "batches", (json_int_t)s->batches,
                     "batches_underfilled", (json_int_t)s->batches_underfilled,
                     "drains_completed", (json_int_t)s->drains_completed, "drains_capped", (json_int_t)s->drains_capped,
                     "drains_overrun", (json_int_t)s->drains_overrun, "drains_superseded", (json_int_t)s->drains_superseded,
                     "slice_deferrals", (json_int_t)s->slice_deferrals,
                     "slice_deferrals_expired", (json_int_t)s->slice_deferrals_expired,
                     "slice_deferred_ns", (json_int_t)s->slice_deferred_ns, "tsabr_resets", (json_int_t)s->tsabr_resets,
                     "reassignments", (json_int_t)s->reassignments, "config_swaps", (json_int_t)s->config_swaps,
                     "config_rejected", (json_int_t)s->config_rejected,
                     "reports_overwritten", (json_int_t)s->reports_overwritten, "pool_size", (json_int_t)s->pool_size,
                     "pool_in_use", (json_int_t)s->pool_in_use,
                     "drain_flows_untracked", (json_int_t)s->drain_flows_untracked);
}

void run_stats_write(const struct dp_engine *e, const char *path)
{
    json_t *ports = json_array();
    for (unsigned i = 0; i < e->n_ports; i++)
        json_array_append_new(ports, json_pack("{s:I, s:I, s:I}", "rx_pkts", (json_int_t)e->port_rx[i], "tx_pkts",
                                               (json_int_t)e->port_tx[i], "tx_lost", (json_int_t)e->port_tx_lost[i]));
    struct adw_stats st;
    memset(&st, 0, sizeof(st));
    adw_sched_stats_read(e->sched, &st);
    json_t *doc = json_pack(
        "{s:s, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}, s:o, s:o,"
        " s:{s:I, s:f, s:f, s:f, s:f, s:I}}",
        "backend", e->backend_name, "elapsed_ns", (json_int_t)e->elapsed_ns,
        "counters", "rx_pkts", (json_int_t)e->c.rx_pkts, "passed_pkts", (json_int_t)e->c.passed_pkts,
        "queued_pkts", (json_int_t)e->c.queued_pkts, "dropped_pkts", (json_int_t)e->c.dropped_pkts,
        "released_pkts", (json_int_t)e->c.released_pkts, "flushed_pkts", (json_int_t)e->c.flushed_pkts,
        "tx_pkts", (json_int_t)e->c.tx_pkts, "tx_drops", (json_int_t)e->c.tx_drops,
        "reloads_applied", (json_int_t)e->c.reloads_applied, "reloads_rejected", (json_int_t)e->c.reloads_rejected,
        "frames_reported", (json_int_t)e->c.frames_reported, "config_drops", (json_int_t)e->c.config_drops,
        "rx_missed", (json_int_t)e->c.rx_missed, "vlan_unknown", (json_int_t)e->c.vlan_unknown,
        "drained_pkts", (json_int_t)e->c.drained_pkts,
        "ports", ports, "core", with_realtime_stats(core_stats_json(&st), &st),
        "slice_start_error", "events", (json_int_t)e->lateness.count,
        "p50_us", slice_lateness_quantile_us(&e->lateness, 0.5),
        "p99_us", slice_lateness_quantile_us(&e->lateness, 0.99),
        "p999_us", slice_lateness_quantile_us(&e->lateness, 0.999),
        "max_us", (double)e->lateness.max_ns / 1000.0,
        "over_10ms_events", (json_int_t)slice_lateness_overflow_events(&e->lateness));
    json_t *per_s = json_array();
    for (unsigned i = 0; i < e->n_rx_per_s; i++)
        json_array_append_new(per_s, json_integer((json_int_t)e->rx_per_s[i]));
    if (doc) {
        json_object_set_new(doc, "rx_pkts_at_each_second", per_s);
        with_telemetry_losses(json_object_get(doc, "counters"), &e->c);
        with_tx_backlog(json_object_get(doc, "counters"), &e->c);
    } else {
        json_decref(per_s);
    }
    if (!doc || json_dump_file(doc, path, JSON_INDENT(1)) != 0)
        fprintf(stderr, "adwiser-dp: cannot write --stats %s\n", path);
    json_decref(doc);
}

