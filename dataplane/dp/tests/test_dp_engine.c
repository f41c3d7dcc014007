/*
 * The engine both backends share (dp/dp_engine.c, dp/frame_telemetry.c),
 * driven without a backend: the test is the clock, no packets.  Pins that a
 * frame's telemetry record describes the configuration the frame ran under
 * when SIGHUP reloads land in the middle of a frame: the core swaps the
 * staged configuration in at its next frame boundary, and the frame running
 * meanwhile is reported after that boundary, so its slices must still be the
 * old ones (its frame_ms, measured by the core, is their sum).
 * Also, against a real redis-server (redis_fixture.h), what such a reload tells the controller: a version staged
 * through Redis which it replaces before it runs is refused, and once the file runs `active` and the heartbeat say 0.
 * The lab JSON is configs/lab-2ap-2sta.yaml converted by dp.mk ($ADW_LAB_JSON).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "dp_engine.h"
#include "frame_builder.h"
#include "redis_fixture.h"

#define MS 1000000ull

struct rig {
    char dir[64];
    char active[128];        /* --config, rewritten before each SIGHUP */
    char telemetry[128];
    char stats[128];         /* --stats */
    struct dp_options o;
    struct dp_engine e;
    uint64_t now;
};

/* The lab document with slice durations a and b (ms). */
static json_t *lab_doc(int a, int b)
{
    const char *lab = getenv("ADW_LAB_JSON");
    assert_non_null(lab);
    json_error_t je;
    json_t *doc = json_load_file(lab, 0, &je);
    if (!doc)
        fail_msg("cannot read %s: %s", lab, je.text);
    json_t *slices = json_object_get(json_object_get(doc, "slice_map"), "slices");
    assert_int_equal(json_array_size(slices), 2);
    json_object_set_new(json_array_get(slices, 0), "duration_ms", json_integer(a));
    json_object_set_new(json_array_get(slices, 1), "duration_ms", json_integer(b));
    return doc;
}

/* Writes the lab document with slice durations a and b (ms) to path. */
static void write_lab(const char *path, int a, int b)
{
    json_t *doc = lab_doc(a, b);
    assert_int_equal(json_dump_file(doc, path, 0), 0);
    json_decref(doc);
}

/* The backend loop without packets: at each event (and at `until`) a tick, then what is due is dequeued. */
static void run_until(struct rig *r, uint64_t until)
{
    struct adw_pkt out[64];
    for (;;) {
        uint64_t due = adw_sched_next_event_ns(r->e.sched, r->now);
        uint64_t next = due < until ? due : until;
        if (next > r->now)
            r->now = next;
        dp_engine_tick(&r->e, r->now, due);
        while (adw_sched_dequeue_burst(r->e.sched, out, 64, r->now) == 64)
            ;
        if (r->now >= until)
            return;
    }
}

/* The core alone runs until `until` (frames end and configurations swap), the engine not ticked: reports pile up. */
static void run_core_until(struct rig *r, uint64_t until)
{
    struct adw_pkt out[64];
    while (r->now < until) {
        uint64_t due = adw_sched_next_event_ns(r->e.sched, r->now);
        r->now = due > r->now && due < until ? due : until;
        while (adw_sched_dequeue_burst(r->e.sched, out, 64, r->now) == 64)
            ;
    }
}

/* SIGHUP with the lab document of slices a and b ms in --config, handled at now + 1 ms. */
static void reload(struct rig *r, int a, int b)
{
    write_lab(r->active, a, b);
    dp_reload_requested = 1;
    run_until(r, r->now + 1 * MS);
    assert_int_equal(dp_reload_requested, 0);
}

/* The rig's files and options; a test may change the options before rig_start_engine. */
static void rig_prepare(struct rig *r)
{
    memset(r, 0, sizeof(*r));
    snprintf(r->dir, sizeof(r->dir), "/tmp/test_dp_engine.XXXXXX");
    assert_non_null(mkdtemp(r->dir));
    snprintf(r->active, sizeof(r->active), "%s/active.json", r->dir);
    snprintf(r->telemetry, sizeof(r->telemetry), "%s/telemetry.jsonl", r->dir);
    snprintf(r->stats, sizeof(r->stats), "%s/stats.json", r->dir);
    write_lab(r->active, 20, 20);
    r->o.config_path = r->active;
    r->o.telemetry_path = r->telemetry;
    r->o.hold_pkts = 1024;
}

static void rig_start_engine(struct rig *r)
{
    char err[512];
    struct adw_config *cfg = dp_engine_load_config(r->active, err, sizeof(err));
    if (!cfg)
        fail_msg("%s", err);
    r->now = 1000 * MS;
    if (dp_engine_start(&r->e, &r->o, cfg, 3, "test", r->now, err, sizeof(err)) != 0)
        fail_msg("%s", err);
}

/* The engine on the lab document of 20+20 ms slices, following Redis at redis_addr unless NULL. */
static void rig_start(struct rig *r, const char *redis_addr)
{
    rig_prepare(r);
    r->o.redis_addr = redis_addr;
    rig_start_engine(r);
}

/* Counter `name` of the --stats document's object `object` ("counters": the backend's, "core": the core's) at path;
 * -1 if it has none. */
static json_int_t stats_object_counter(const char *path, const char *object, const char *name)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc)
        fail_msg("cannot read --stats %s: %s", path, je.text);
    json_t *v = json_object_get(json_object_get(doc, object), name);
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : -1;
    json_decref(doc);
    return n;
}

/* Counter `name` of the --stats document at path; -1 if it has none. */
static json_int_t stats_counter(const char *path, const char *name)
{
    return stats_object_counter(path, "counters", name);
}

/* The records of the telemetry file whose "type" is `type`, in file order, as a JSON array (the caller's to free); a
 * line that is no JSON fails the test. */
static json_t *telemetry_records(const char *path, const char *type)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    json_t *out = json_array();
    char line[65536];
    while (fgets(line, sizeof(line), f)) {
        json_error_t je;
        json_t *rec = json_loads(line, 0, &je);
        if (!rec)
            fail_msg("bad telemetry line: %s", je.text);
        if (strcmp(json_string_value(json_object_get(rec, "type")), type) == 0)
            json_array_append(out, rec);
        json_decref(rec);
    }
    fclose(f);
    return out;
}

/* The frame records written: per frame, its frame_ms and the sum of its slices' duration_ms. */
static unsigned read_frames(const char *path, double *frame_ms, double *slices_ms, unsigned max)
{
    json_t *frames = telemetry_records(path, "frame"), *rec;
    size_t n;
    json_array_foreach(frames, n, rec) {
        assert_true(n < max);
        frame_ms[n] = json_real_value(json_object_get(rec, "frame_ms"));
        json_t *s;
        size_t i;
        slices_ms[n] = 0;
        json_array_foreach(json_object_get(rec, "slices"), i, s)
            slices_ms[n] += json_real_value(json_object_get(s, "duration_ms"));
    }
    n = json_array_size(frames);
    json_decref(frames);
    return (unsigned)n;
}

/*
 * 20+20 ms slices; mid-frame a reload to 30+30 and, before that frame ends, another to 10+25 (replaces the
 * staged one, which never runs); in the 4th frame after that, mid-frame, back to 20+20.  Every frame record's slices
 * add up to its frame_ms, and the frames run 40 ms, then 35 ms, then 40 ms again, never 60 ms.
 */
static void test_frame_records_describe_the_configuration_they_ran_under(void **state)
{
    (void)state;
    static struct rig r;
    rig_start(&r, NULL);
    uint64_t t0 = r.now;
    run_until(&r, t0 + 3 * 40 * MS + 10 * MS);   /* 10 ms into the 4th frame */
    reload(&r, 30, 30);
    reload(&r, 10, 25);                          /* still the 4th frame: replaces 30+30 before it runs */
    run_until(&r, t0 + 4 * 40 * MS + 3 * 35 * MS + 20 * MS);   /* 20 ms into the 4th frame of 35 ms (the 8th) */
    reload(&r, 20, 20);
    run_until(&r, r.now + 200 * MS);
    assert_int_equal(r.e.c.reloads_applied, 3);
    dp_engine_finish(&r.e);

    double frame_ms[64], slices_ms[64];
    unsigned n = read_frames(r.telemetry, frame_ms, slices_ms, 64);
    unlink(r.telemetry);
    unlink(r.active);
    rmdir(r.dir);
    assert_true(n >= 12);
    unsigned n40 = 0, n35 = 0;
    for (unsigned i = 0; i < n; i++) {
        printf("   frame %u: frame_ms %.3f, slices %.3f ms\n", i, frame_ms[i], slices_ms[i]);
        if (slices_ms[i] < frame_ms[i] - 1e-6 || slices_ms[i] > frame_ms[i] + 1e-6)
            fail_msg("frame %u ran %.3f ms but its record gives slices of %.3f ms", i, frame_ms[i], slices_ms[i]);
        n40 += (i < 4 || i >= 8) && frame_ms[i] == 40.0;
        n35 += i >= 4 && i < 8 && frame_ms[i] == 35.0;
    }
    assert_int_equal(n35, 4);       /* frames 4-7 under 10+25 (30+30 never ran; the 8th saw the third reload) */
    assert_int_equal(n40, n - 4);   /* frames 0-3 (the 4th saw the first two reloads) and 8- under 20+20 */
}

/* Removes the rig's files (after dp_engine_finish). */
static void rig_remove(struct rig *r)
{
    unlink(r->telemetry);
    unlink(r->stats);
    unlink(r->active);
    rmdir(r->dir);
}

/* Every frame record's slices add up to its frame_ms; returns how many frames ran ms_a and ms_b ms. */
static unsigned check_frames(struct rig *r, double ms_a, unsigned *n_a, double ms_b, unsigned *n_b)
{
    double frame_ms[128], slices_ms[128];
    unsigned n = read_frames(r->telemetry, frame_ms, slices_ms, 128);
    rig_remove(r);
    *n_a = *n_b = 0;
    for (unsigned i = 0; i < n; i++) {
        if (slices_ms[i] < frame_ms[i] - 1e-6 || slices_ms[i] > frame_ms[i] + 1e-6)
            fail_msg("frame %u ran %.3f ms but its record gives slices of %.3f ms", i, frame_ms[i], slices_ms[i]);
        *n_a += frame_ms[i] == ms_a;
        *n_b += frame_ms[i] == ms_b;
    }
    return n;
}

/*
 * A reload mid-frame, then the core runs 3 more frame boundaries before the engine polls: the frame that saw the
 * reload and the two after it are taken in one poll, old slices for the first, new for the others.
 */
static void test_reports_taken_together_across_the_swap(void **state)
{
    (void)state;
    static struct rig r;
    rig_start(&r, NULL);
    run_until(&r, r.now + 50 * MS);                  /* 10 ms into the 2nd frame */
    reload(&r, 10, 25);
    run_core_until(&r, r.now + 29 * MS + 2 * 35 * MS + 5 * MS);   /* 3 boundaries: 80, 115, 150 ms */
    run_until(&r, r.now + 1 * MS);
    dp_engine_finish(&r.e);
    unsigned n40, n35;
    unsigned n = check_frames(&r, 40.0, &n40, 35.0, &n35);
    assert_int_equal(n, 4);
    assert_int_equal(n40, 2);
    assert_int_equal(n35, 2);
}

/* Same, but 80 frames pass unpolled: the core overwrote the oldest reports (64 kept), the ones left are new. */
static void test_reports_overwritten_across_the_swap(void **state)
{
    (void)state;
    static struct rig r;
    rig_start(&r, NULL);
    run_until(&r, r.now + 50 * MS);
    reload(&r, 10, 25);
    run_core_until(&r, r.now + 29 * MS + 79 * 35 * MS + 5 * MS);   /* 80 boundaries */
    run_until(&r, r.now + 1 * MS);
    struct adw_stats st;
    adw_sched_stats_read(r.e.sched, &st);
    assert_true(st.reports_overwritten > 0);
    dp_engine_finish(&r.e);
    unsigned n40, n35;
    unsigned n = check_frames(&r, 40.0, &n40, 35.0, &n35);
    assert_int_equal(n, 1 + 64);   /* the first frame, polled before the reload, and the 64 kept */
    assert_int_equal(n40, 1);
    assert_int_equal(n35, 64);
}

/*
 * A version the controller staged through Redis is handed to the core, and before the frame boundary where it would
 * go live a SIGHUP reload of --config replaces it: it never runs, so it is refused, or the controller would show it
 * pending for good (never acknowledged, never refused).
 */
/* Stores the lab document with slices of 30+30 ms as version 4 and makes it the one desired. */
static void store_version_4(struct server *s)
{
    json_t *v4 = lab_doc(30, 30);
    char *doc = json_dumps(v4, JSON_COMPACT);
    json_decref(v4);
    command(s, "HSET adwiser:version:4 doc %s", doc);
    free(doc);
    command(s, "SET adwiser:appliance:lab:desired 4");
}

/* Ticks the engine, its clock standing still, until it has handed version 4 to the core: the Redis thread fetches
 * it in real time. */
static void wait_staged_4(struct rig *r)
{
    for (int i = 0; i < WAIT_MS / 10 && r->e.ack_pending != 4; i++) {
        sleep_ms(10);
        run_until(r, r->now);
    }
    assert_int_equal(r->e.ack_pending, 4);
}

/* Whether `active` reads `version` and the heartbeat names it within WAIT_MS (the Redis thread writes them in real
 * time); seen says what they read last. */
static int redis_reports(struct server *s, long long version, char *seen, size_t seen_len)
{
    char want[32];
    snprintf(want, sizeof(want), "%lld", version);
    int ok = 0;
    for (int i = 0; i < WAIT_MS / 10 && !ok; i++) {
        char *active = get(s, "adwiser:appliance:lab:active");
        char *beat = get(s, "adwiser:appliance:lab:heartbeat");
        json_t *hb = beat ? json_loads(beat, 0, NULL) : NULL;
        json_t *v = json_object_get(hb, "version");
        ok = active && strcmp(active, want) == 0 && json_is_integer(v) && json_integer_value(v) == version;
        snprintf(seen, seen_len, "active %s, heartbeat %s", active ? active : "unset", beat ? beat : "none");
        json_decref(hb);
        free(active);
        free(beat);
        if (!ok)
            sleep_ms(10);
    }
    return ok;
}

static void test_a_redis_version_a_reload_replaces_before_it_runs_is_refused(void **state)
{
    struct server *s = *state;
    store_version_4(s);
    static struct rig r;
    rig_start(&r, s->addr);
    run_until(&r, r.now + 10 * MS);                  /* 10 ms into the first frame of 40 ms */
    wait_staged_4(&r);                               /* the test's clock stands still: staged mid-frame */
    reload(&r, 10, 25);                              /* still the first frame */
    run_until(&r, r.now + 200 * MS);
    assert_int_equal(adw_sched_active_version(r.e.sched), 0);   /* the --config file runs, version 4 never did */
    char *rejected = wait_get(s, "adwiser:appliance:lab:rejected");
    char seen[512];
    int file_reported = redis_reports(s, 0, seen, sizeof(seen));
    dp_engine_finish(&r.e);
    unsigned n40, n35;
    unsigned n = check_frames(&r, 40.0, &n40, 35.0, &n35);
    assert_int_equal(n40, 1);        /* the frame the reload came in, */
    assert_int_equal(n35, n - 1);    /* then 10+25: 30+30 never ran */
    if (!rejected)
        fail_msg("version 4 was neither refused nor acknowledged (%s)", seen);
    assert_non_null(strstr(rejected, "\"version\":4"));
    free(rejected);
    if (!file_reported)
        fail_msg("the --config file runs, but Redis says %s", seen);
}

/*
 * Version 4 from Redis runs and is acknowledged; then an operator's SIGHUP reloads --config. Once the file runs,
 * `active` and the heartbeat say 0 (the --config file, no controller version): left at 4, they told the controller
 * the dataplane ran a version it no longer ran.
 */
static void test_a_reload_over_a_running_redis_version_reports_version_0(void **state)
{
    struct server *s = *state;
    store_version_4(s);
    static struct rig r;
    rig_start(&r, s->addr);
    wait_staged_4(&r);
    run_until(&r, r.now + 100 * MS);                 /* past the frame boundary: version 4 runs */
    assert_int_equal(adw_sched_active_version(r.e.sched), 4);
    char seen[512];
    int v4_reported = redis_reports(s, 4, seen, sizeof(seen));
    reload(&r, 10, 25);
    run_until(&r, r.now + 100 * MS);                 /* past the next one: the file runs */
    int file_runs = adw_sched_active_version(r.e.sched) == 0;
    int file_reported = v4_reported && redis_reports(s, 0, seen, sizeof(seen));
    dp_engine_finish(&r.e);
    rig_remove(&r);
    if (!v4_reported)
        fail_msg("version 4 runs, but Redis says %s", seen);
    assert_true(file_runs);
    if (!file_reported)
        fail_msg("the --config file runs, but Redis says %s", seen);
}

/* Runs the prepared rig 200 ms (5 frames of 40 ms) and checks --stats counts every frame reported in `lost`. */
static void run_counting_lost_frames(struct rig *r, const char *lost_counter)
{
    rig_start_engine(r);
    run_until(r, r->now + 200 * MS);
    dp_engine_finish(&r->e);
    json_int_t reported = stats_counter(r->stats, "frames_reported");
    json_int_t lost = stats_counter(r->stats, lost_counter);
    json_int_t unconfirmed = stats_counter(r->stats, "telemetry_redis_unconfirmed");
    rig_remove(r);
    assert_true(reported >= 4);
    assert_int_equal(lost, reported);
    assert_int_equal(unconfirmed, 0);   /* none sent, so none unconfirmed */
}

/* A telemetry file that refuses every write (a full disk: /dev/full): each frame's loss is in --stats. */
static void test_frames_the_telemetry_file_refused_are_counted_in_stats(void **state)
{
    (void)state;
    static struct rig r;
    rig_prepare(&r);
    r.o.telemetry_path = "/dev/full";
    r.o.stats_path = r.stats;
    run_counting_lost_frames(&r, "telemetry_file_lost");
}

/* A Redis that never answers (no server on the socket): every frame the thread could not send is in --stats. */
static void test_frames_redis_never_got_are_counted_in_stats(void **state)
{
    (void)state;
    static struct rig r;
    static char addr[160];
    rig_prepare(&r);
    snprintf(addr, sizeof(addr), "unix:%s/no-redis.sock", r.dir);
    r.o.telemetry_path = NULL;
    r.o.redis_addr = addr;
    r.o.stats_path = r.stats;
    run_counting_lost_frames(&r, "telemetry_redis_lost");
}

/* The frame record's slice `n` of the telemetry file: its given_to and given_by as "a,b" strings; 0 if no frame
 * record had a pair in given_to for that slice. */
static int first_given_slice(const char *path, unsigned n, char *to, char *by, size_t cap)
{
    json_t *frames = telemetry_records(path, "frame"), *rec;
    size_t f;
    int found = 0;
    json_array_foreach(frames, f, rec) {
        json_t *sl = json_array_get(json_object_get(rec, "slices"), n);
        if (!sl || json_array_size(json_object_get(sl, "given_to")) == 0)
            continue;
        const char *names[2] = {"given_to", "given_by"};
        char *out[2] = {to, by};
        for (unsigned k = 0; k < 2; k++) {
            json_t *a = json_object_get(sl, names[k]), *v;
            size_t i;
            out[k][0] = 0;
            json_array_foreach(a, i, v)
                snprintf(out[k] + strlen(out[k]), cap - strlen(out[k]), "%s%s", i ? "," : "", json_string_value(v));
        }
        found = 1;
        break;
    }
    json_decref(frames);
    return found;
}

/* n downlink TCP segments of 1448 bytes from the server to the lab's STA `sta` (1 or 2), handed to the engine's core
 * at r->now: how many it queued. At most 200; the buffers stay valid until the next call (the core keeps them). */
static unsigned queue_downlink_data(struct rig *r, unsigned sta, unsigned n)
{
    static uint8_t bufs[200][1600];
    struct adw_pkt pkts[200];
    enum adw_verdict verdicts[200];
    assert_true(n <= 200);
    for (unsigned i = 0; i < n; i++) {
        struct fb_tcp t = {.ip_version = 4, .sport = 80, .dport = 40000, .seq = 1 + i * 1448, .ack = 1,
                           .flags = 0x10 /* ACK */, .payload_len = 1448,
                           .src_mac = {0x02, 0xad, 0, 0, 0, 1}, .dst_mac = {0x02, 0xad, 0, 0, (uint8_t)sta, 1},
                           .src_ip = {198, 18, 0, 1}, .dst_ip = {198, 18, 0, (uint8_t)(10 + sta)}};
        pkts[i] = (struct adw_pkt){.data = bufs[i], .len = fb_tcp(bufs[i], sizeof(bufs[i]), &t), .in_port = 0,
                                   .cookie = bufs[i]};
    }
    adw_sched_enqueue_burst(r->e.sched, pkts, verdicts, n, r->now);
    unsigned queued = 0;
    for (unsigned i = 0; i < n; i++)
        queued += verdicts[i] == ADW_QUEUED;
    return queued;
}

/*
 * --stats shows how many packets the core still held when it was written (pool_in_use: 0 after a shutdown that gave
 * every held packet its verdict) and how many TCP flows drain inference could not track (drain_flows_untracked).  The
 * core object's format string had one "s:I" fewer than the pairs it was given, so json_pack left pool_in_use out.
 */
static void test_stats_count_the_packets_the_core_still_holds(void **state)
{
    (void)state;
    static struct rig r;
    rig_prepare(&r);
    r.o.stats_path = r.stats;
    rig_start_engine(&r);
    unsigned held = queue_downlink_data(&r, 2, 10);
    assert_int_equal(held, 10);
    dp_engine_finish(&r.e);   /* no flush: the core still holds them */
    json_int_t in_use = stats_object_counter(r.stats, "core", "pool_in_use");
    json_int_t untracked = stats_object_counter(r.stats, "core", "drain_flows_untracked");
    rig_remove(&r);
    assert_int_equal(in_use, held);
    assert_int_equal(untracked, 0);
}

/* With dynamic slicing, STA2 idle and STA1 backlogged: STA2's slice (the second) goes to STA1, and the frame record
 * says so in both directions, given_to ap1/sta1 and given_by ap2/sta2 (dynamic slicing's partial give-away had no
 * field naming the pair that gave; `reassigned` on the pair said only that it gave some slice away). */
static void test_a_given_slice_names_its_taker_and_the_pair_that_gave_it(void **state)
{
    (void)state;
    static struct rig r;
    rig_prepare(&r);
    json_t *doc = lab_doc(20, 20);
    json_object_set_new(json_object_get(json_object_get(doc, "policies"), "dynamic_slicing"), "enabled", json_true());
    assert_int_equal(json_dump_file(doc, r.active, 0), 0);
    json_decref(doc);
    rig_start_engine(&r);
    assert_int_equal(queue_downlink_data(&r, 1, 200), 200);
    run_until(&r, r.now + 3 * 40 * MS);
    dp_engine_finish(&r.e);
    char to[128], by[128];
    int found = first_given_slice(r.telemetry, 1, to, by, sizeof(to));
    rig_remove(&r);
    assert_true(found);
    assert_string_equal(to, "ap1/sta1");
    assert_string_equal(by, "ap2/sta2");
}

/* Per frame record of the telemetry file, its slices' `skipped` as 1/0 (? if not a boolean), frames joined by
 * spaces, at most cap bytes. */
static void skipped_per_frame(const char *path, char *out, size_t cap)
{
    json_t *frames = telemetry_records(path, "frame"), *rec;
    size_t f, len = 0;
    out[0] = 0;
    json_array_foreach(frames, f, rec) {
        json_t *sl;
        size_t i;
        if (len > 0 && len + 1 < cap)
            out[len++] = ' ';
        json_array_foreach(json_object_get(rec, "slices"), i, sl) {
            json_t *v = json_object_get(sl, "skipped");
            if (len + 1 < cap)
                out[len++] = json_is_true(v) ? '1' : json_is_false(v) ? '0' : '?';
        }
        out[len] = 0;
    }
    json_decref(frames);
}

/* A stall of the loop from 1 ms into the first frame to 45 ms (its second slice, 20-40 ms, over by then): the core
 * skips that slice (release.c) and the frame record says which one, so the Live page can show it; the total in
 * --stats slices_skipped said neither which slice nor which frame. */
static void test_a_slice_the_loop_came_to_too_late_is_marked_skipped_in_its_frame_record(void **state)
{
    (void)state;
    static struct rig r;
    rig_prepare(&r);
    rig_start_engine(&r);
    uint64_t start = r.now;
    /* STA2 has data waiting for its slice (20-40 ms), which the stall then misses: a slice with nothing to send
     * held nothing back and is not marked. */
    queue_downlink_data(&r, 2, 10);
    run_until(&r, start + 1 * MS);
    r.now = start + 45 * MS; /* the stall: no tick, no dequeue in between */
    run_until(&r, start + 125 * MS);
    dp_engine_finish(&r.e);
    char skipped[64];
    skipped_per_frame(r.telemetry, skipped, sizeof(skipped));
    rig_remove(&r);
    assert_string_equal(skipped, "01 00 00");
}

/* The pair records' counters_since_ns values, in file order, into since[0 .. max-1]: how many; a record without one
 * (or not an integer) gives -1. Each record's ts_ns must not be before it. */
static unsigned pair_counters_since(const char *path, json_int_t *since, unsigned max)
{
    json_t *pairs = telemetry_records(path, "pair"), *rec;
    size_t n;
    json_array_foreach(pairs, n, rec) {
        assert_true(n < max);
        json_t *v = json_object_get(rec, "counters_since_ns");
        since[n] = json_is_integer(v) ? json_integer_value(v) : -1;
        assert_true(json_integer_value(json_object_get(rec, "ts_ns")) >= since[n]);
    }
    n = json_array_size(pairs);
    json_decref(pairs);
    return (unsigned)n;
}

/* A pair's cumulative counters (drops_tail, ...) count from when its state was made, which its records give as
 * counters_since_ns in Unix epoch ns like their ts_ns (the core's clock converted where the records are written):
 * for the pairs of the configuration the engine started with, the engine's start. */
static void test_pair_records_give_the_unix_time_their_counters_began(void **state)
{
    (void)state;
    static struct rig r;
    rig_start(&r, NULL);
    uint64_t start = r.now;
    run_until(&r, start + 125 * MS);
    dp_engine_finish(&r.e);
    json_int_t since[64];
    unsigned n = pair_counters_since(r.telemetry, since, 64);
    rig_remove(&r);
    assert_int_equal(n, 6);   /* 3 frames of 2 pairs */
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(since[i], (int64_t)start + r.e.epoch_offset_ns);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_records_describe_the_configuration_they_ran_under),
        cmocka_unit_test(test_reports_taken_together_across_the_swap),
        cmocka_unit_test(test_reports_overwritten_across_the_swap),
        cmocka_unit_test_setup_teardown(test_a_redis_version_a_reload_replaces_before_it_runs_is_refused, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_a_reload_over_a_running_redis_version_reports_version_0, start_server,
                                        stop_server),
        cmocka_unit_test(test_frames_the_telemetry_file_refused_are_counted_in_stats),
        cmocka_unit_test(test_frames_redis_never_got_are_counted_in_stats),
        cmocka_unit_test(test_a_given_slice_names_its_taker_and_the_pair_that_gave_it),
        cmocka_unit_test(test_a_slice_the_loop_came_to_too_late_is_marked_skipped_in_its_frame_record),
        cmocka_unit_test(test_pair_records_give_the_unix_time_their_counters_began),
        cmocka_unit_test(test_stats_count_the_packets_the_core_still_holds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
