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

/* Frames of telemetry a sink lost (dp_engine.h); NFQUEUE: packets the kernel passed unscheduled, those its unbind
 * dropped unread at shutdown, those the loop accepted without the core, verdicts retried. */
static void with_telemetry_losses(json_t *counters, const struct dp_counters *c)
{
    json_object_set_new(counters, "fail_open_pkts", json_integer((json_int_t)c->fail_open_pkts));
    json_object_set_new(counters, "shutdown_lost_pkts", json_integer((json_int_t)c->shutdown_lost_pkts));
    json_object_set_new(counters, "unscheduled_pkts", json_integer((json_int_t)c->unscheduled_pkts));
    json_object_set_new(counters, "routed_elsewhere_pkts", json_integer((json_int_t)c->routed_elsewhere_pkts));
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

/* One member per counter, named as the struct names it: a json_pack format counted by hand left out the last two
 * counters once a field was added without its "s:I" (json_pack ignores arguments past its format). */
static json_t *core_stats_json(const struct adw_stats *s)
{
    json_t *o = json_object();
#define COUNTER(name) json_object_set_new(o, #name, json_integer((json_int_t)s->name))
    COUNTER(rx_pkts); COUNTER(rx_bytes); COUNTER(malformed); COUNTER(pass_uplink); COUNTER(pass_broadcast);
    COUNTER(pass_unknown); COUNTER(pass_arp); COUNTER(pass_other); COUNTER(queued_data); COUNTER(queued_ack);
    COUNTER(queued_rt); COUNTER(released_pkts); COUNTER(released_bytes); COUNTER(released_rt); COUNTER(drops_tail);
    COUNTER(drops_pool); COUNTER(drops_config); COUNTER(released_config); COUNTER(frames); COUNTER(frames_skipped);
    COUNTER(slices_skipped); COUNTER(batches); COUNTER(batches_underfilled); COUNTER(drains_completed);
    COUNTER(drains_capped); COUNTER(drains_overrun); COUNTER(drains_superseded); COUNTER(slice_deferrals);
    COUNTER(slice_deferrals_expired); COUNTER(slice_deferred_ns); COUNTER(tsabr_resets); COUNTER(reassignments);
    COUNTER(config_swaps); COUNTER(config_rejected); COUNTER(reports_overwritten); COUNTER(pool_size);
    COUNTER(pool_in_use); COUNTER(drain_flows_untracked);
#undef COUNTER
    return o;
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

