/* Frame reports -> JSON records for the file and Redis; see frame_telemetry.h. */
#include "frame_telemetry.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "dp_engine.h"
#include "redis_link.h"
#include "telemetry_jsonl.h"

/* The core's time t (the backend's clock) as Unix epoch ns, the telemetry's times (REDIS.md). */
static json_int_t unix_ns(const struct dp_engine *e, uint64_t t)
{
    return (json_int_t)((int64_t)t + e->epoch_offset_ns);
}

/* counters_since_ns: when the pair's cumulative counters (drops_tail, drops_other, dup_acks, retx_pkts) began from
 * zero, its state made at the dataplane's start or by the version that added it (back), so that a reader can tell
 * their restart from a count that went on. */
static json_t *pair_record(const struct dp_engine *e, const struct adw_frame_report *f,
                           const struct adw_pair_report *p, json_int_t ts)
{
    json_t *r = json_pack("{s:s, s:I, s:I, s:s, s:s, s:f, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:i}",
                         "type", "pair", "ts_ns", ts, "frame", (json_int_t)f->frame, "pair", p->name,
                         "mode", p->mode == ADW_MODE_PACED ? "paced" : "sliced", "s_ms", (double)p->s_ns / 1e6,
                         "r_pkts", (json_int_t)p->r_pkts,
                         "v_ms", p->v_ns ? json_real((double)p->v_ns / 1e6) : json_null(),
                         "released_pkts", (json_int_t)p->released_pkts,
                         "released_bytes", (json_int_t)p->released_bytes,
                         "queue_pkts", (json_int_t)p->queue_pkts, "limit_pkts", (json_int_t)p->limit_pkts,
                         "drops_tail", (json_int_t)p->drops_tail, "drops_other", (json_int_t)p->drops_other,
                         "tput_mbps", (double)p->tput_bps / 1e6, "reassigned", (int)p->reassigned);
    json_object_set_new(r, "counters_since_ns", json_integer(unix_ns(e, p->counters_since_ns)));
    return r;
}

/* Every drain that ended in the frame, so a mean V over drains needs no sampling of v_ms (adwiser/sched.h). */
static json_t *pair_record_drains(json_t *r, const struct adw_pair_report *p)
{
    json_object_set_new(r, "drains", json_integer((json_int_t)p->drains));
    json_object_set_new(r, "v_sum_ms", json_real((double)p->v_sum_ns / 1e6));
    return r;
}

/* Aggregation-target fields (SPEC §3.7, REDIS.md): pacing rate, the 001 §4.1 estimate and the 001 §5 loss signals. */
static json_t *pair_record_agg(json_t *r, const struct adw_pair_report *p)
{
    json_object_set_new(r, "paced", json_integer(p->mode == ADW_MODE_PACED));
    json_object_set_new(r, "pace_bps", json_integer((json_int_t)p->pace_bps));
    json_object_set_new(r, "agg_est", p->agg_est >= 0 ? json_real(p->agg_est) : json_null());
    json_object_set_new(r, "agg_bursts", json_integer((json_int_t)p->agg_bursts));
    json_object_set_new(r, "agg_raw", p->agg_raw >= 0 ? json_real(p->agg_raw) : json_null());
    json_object_set_new(r, "agg_stas", json_integer((json_int_t)p->agg_stas));
    json_object_set_new(r, "acked_segs", json_real(p->acked_segs));
    json_object_set_new(r, "dup_acks", json_integer((json_int_t)p->dup_acks));
    json_object_set_new(r, "retx_pkts", json_integer((json_int_t)p->retx_pkts));
    json_object_set_new(r, "loss_frac", json_real(p->loss_frac));
    json_object_set_new(r, "ack_delay_samples", json_integer((json_int_t)p->ack_delay_samples));
    json_object_set_new(r, "ack_delay_ms", p->ack_delay_samples ? json_real((double)p->ack_delay_mean_ns / 1e6)
                                                                : json_null());
    json_object_set_new(r, "ack_delay_min_ms", p->ack_delay_samples ? json_real((double)p->ack_delay_min_ns / 1e6)
                                                                    : json_null());
    return r;
}

/* The frame's slices as the UI draws them: durations, pair names, whom a slice was given to (given_to), which of
 * its pairs gave their share of it (given_by: the pairs idle at its start; the others, if any, sent in it) and
 * whether it was skipped (over when the loop came to it, no batch: release.c; --stats has only the total). */
static json_t *slices_of(const struct adw_config *cfg, const struct adw_frame_report *f,
                         const struct adw_pair_report *pairs, unsigned n_pairs)
{
    json_t *given_by[ADW_MAX_SLICES];
    for (unsigned s = 0; s < cfg->n_slices; s++)
        given_by[s] = json_array();
    for (unsigned i = 0; i < n_pairs; i++)
        for (uint64_t m = pairs[i].gave_slices; m; m &= m - 1) {
            unsigned s = (unsigned)__builtin_ctzll(m);
            if (s < cfg->n_slices)
                json_array_append_new(given_by[s], json_string(pairs[i].name));
        }
    json_t *slices = json_array();
    char name[ADW_PAIR_NAME_LEN];
    for (unsigned s = 0; s < cfg->n_slices; s++) {
        json_t *pair_names = json_array(), *given = json_array();
        for (unsigned k = 0; k < cfg->slices[s].n_pairs; k++) {
            adw_config_pair_name(cfg, cfg->slices[s].pairs[k], name, sizeof(name));
            json_array_append_new(pair_names, json_string(name));
        }
        if (s < f->n_slices && f->given_to[s] != ADW_PAIR_NONE && f->given_to[s] < cfg->n_stas) {
            adw_config_pair_name(cfg, f->given_to[s], name, sizeof(name));
            json_array_append_new(given, json_string(name));
        }
        json_array_append_new(slices, json_pack("{s:f, s:o, s:o, s:o, s:f, s:b}", "duration_ms",
                                                (double)cfg->slices[s].duration_ns / 1e6, "pairs", pair_names,
                                                "given_to", given, "given_by", given_by[s], "early_ms",
                                                s < f->n_slices ? (double)f->early_ns[s] / 1e6 : 0.0, "skipped",
                                                s < f->n_slices && (f->skipped_slices >> s & 1u)));
    }
    return slices;
}

/*
 * The configuration the frame of the report just taken ran under (dp_engine.h: frame_cfg); frame_cfg is freed
 * once no frame before cfg_first_frame is left to report.  The reports the core overwrote were the oldest.
 */
static const struct adw_config *config_of_frame(struct dp_engine *e)
{
    e->frames_polled++;
    if (!e->frame_cfg)
        return e->cfg;
    struct adw_stats st;
    adw_sched_stats_read(e->sched, &st);
    uint64_t frame = e->frames_polled + st.reports_overwritten;   /* counted from 1 as frames start */
    if (frame < e->cfg_first_frame)
        return e->frame_cfg;
    free(e->frame_cfg);
    e->frame_cfg = NULL;
    return e->cfg;
}

/*
 * One frame's records to the --telemetry file, flushed at once so that a failed write (full disk, a reader that went
 * away) is known to be this frame's: it is counted (--stats telemetry_file_lost), never silently gone.
 */
static void write_frame(struct dp_engine *e, const json_t *frame, const json_t *records)
{
    int failed = telemetry_jsonl_write(e->tm, frame) != 0;
    size_t i;
    json_t *r;
    json_array_foreach(records, i, r)
        failed |= telemetry_jsonl_write(e->tm, r) != 0;
    failed |= telemetry_jsonl_flush(e->tm) != 0;
    e->c.telemetry_file_lost += (uint64_t)failed;
}

void frame_telemetry_poll(struct dp_engine *e)
{
    static struct adw_pair_report pairs[ADW_MAX_PAIRS];
    struct adw_frame_report f;
    if (!e->tm && !e->redis) {
        /* Nobody reads them: drain anyway so the core's report ring never overwrites. */
        while (adw_sched_poll_frame(e->sched, &f, pairs, 0) == 1)
            config_of_frame(e);
        return;
    }
    while (adw_sched_poll_frame(e->sched, &f, pairs, ADW_MAX_PAIRS) == 1) {
        const struct adw_config *cfg = config_of_frame(e);
        unsigned n = f.n_pairs < ADW_MAX_PAIRS ? f.n_pairs : ADW_MAX_PAIRS;
        json_int_t ts = unix_ns(e, f.ts_ns);
        double utility = 0;
        unsigned with_traffic = 0;
        json_t *records = json_array();
        for (unsigned i = 0; i < n; i++) {
            if (pairs[i].tput_bps > 0) {
                utility += log((double)pairs[i].tput_bps / 1e6);
                with_traffic++;
            }
            json_t *rec = pair_record_drains(pair_record(e, &f, &pairs[i], ts), &pairs[i]);
            json_array_append_new(records, pair_record_agg(rec, &pairs[i]));
        }
        json_t *frame = json_pack("{s:s, s:I, s:I, s:I, s:f, s:o, s:n, s:I, s:o}", "type", "frame", "ts_ns",
                                  ts, "frame", (json_int_t)f.frame, "version",
                                  (json_int_t)f.version, "frame_ms", (double)f.frame_ns / 1e6, "utility",
                                  with_traffic ? json_real(utility) : json_null(), "utility_bound",
                                  "reassignments", (json_int_t)f.reassignments, "slices", slices_of(cfg, &f, pairs, n));
        if (e->tm)
            write_frame(e, frame, records);
        if (e->redis)
            redis_link_publish_frame(e->redis, frame, records);   /* takes both */
        else {
            json_decref(frame);
            json_decref(records);
        }
        e->c.frames_reported++;
    }
}
