/*
 * test_redis_link_thread.c — the Redis thread of adwiser-dp (dp/redis_link.c), and the connections both programs
 * open (dp/redis_addr.c, also adwiser-sta-agent's), against a real redis-server started per test (redis_fixture.h).
 * The test plays the packet loop's part (take_config, ack, reject) and reads what the thread wrote with its own
 * hiredis connection.
 * Needs redis-server on PATH and $ADW_LAB_JSON (the lab document as JSON, appliance "lab").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <hiredis/hiredis.h>
#include <jansson.h>

#include "redis_addr.h"
#include "redis_fixture.h"
#include "redis_link.h"

static struct redis_link *start_link(struct server *s)
{
    char err[256];
    struct redis_link *l = redis_link_start(s->addr, "lab", "dpdk", err, sizeof err);
    assert_non_null(l);
    char *hb = wait_get(s, "adwiser:appliance:lab:heartbeat");   /* connected: the first heartbeat is written */
    if (!hb)
        fail_msg("the Redis thread never wrote its heartbeat");
    free(hb);
    return l;
}

/* The heartbeat's integer field `name`, or -1 if there is no heartbeat or no such integer in it. */
static long long heartbeat_field(struct server *s, const char *name)
{
    char *hb = wait_get(s, "adwiser:appliance:lab:heartbeat");
    json_error_t je;
    json_t *j = hb ? json_loads(hb, 0, &je) : NULL;
    json_t *v = json_object_get(j, name);
    long long n = json_is_integer(v) ? (long long)json_integer_value(v) : -1;
    json_decref(j);
    free(hb);
    return n;
}

/*
 * A dataplane in a container is often pid 1 at every start, so the pid alone does not tell the fabric manager that
 * the dataplane restarted (controller/REDIS.md, Liveness). The heartbeat also names when this instance started: a
 * link started again in the same process (the same pid, as a restart in a container) writes another started_ns.
 */
static void test_the_heartbeat_names_when_this_dataplane_instance_started(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    long long started = heartbeat_field(s, "started_ns"), beat = heartbeat_field(s, "ts_ns");
    assert_true(started > 0);
    assert_true(started <= beat);
    sleep_ms(250);   /* the next beat keeps it */
    assert_int_equal(heartbeat_field(s, "started_ns"), started);
    redis_link_stop(l);
    l = start_link(s);
    long long restarted = heartbeat_field(s, "started_ns");
    assert_true(restarted > started);
    assert_int_equal(heartbeat_field(s, "pid"), (long long)getpid());
    redis_link_stop(l);
}

/* Waits for the thread to hand over a configuration; its version, or 0 if none came. */
static uint64_t take_version(struct redis_link *l)
{
    for (int i = 0; i < WAIT_MS / 10; i++) {
        uint64_t v;
        struct adw_config *c = redis_link_take_config(l, &v);
        if (c) {
            free(c);
            return v;
        }
        sleep_ms(10);
    }
    return 0;
}

static char *lab_doc(const char *duration_ms_of_first_slice)
{
    json_error_t je;
    json_t *doc = json_load_file(getenv("ADW_LAB_JSON"), 0, &je);
    assert_non_null(doc);
    json_t *slice = json_array_get(json_object_get(json_object_get(doc, "slice_map"), "slices"), 0);
    json_object_set_new(slice, "duration_ms", json_integer(atoi(duration_ms_of_first_slice)));
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    return text;
}

/* Stores version n: the lab document with its first slice duration_ms_of_first_slice ms. */
static void put_version(struct server *s, unsigned n, const char *duration_ms_of_first_slice)
{
    char *doc = lab_doc(duration_ms_of_first_slice);
    command(s, "HSET adwiser:version:%u doc %s", n, doc);
    free(doc);
}

static void test_an_ack_and_a_refusal_given_together_are_both_written(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    /* The loop acknowledges the version that went live at a frame boundary and refuses the next one in the same
     * iteration: one slot for both kept only the later. */
    redis_link_ack(l, 5);
    redis_link_reject(l, 6, "topology.aps[0].port: not the port in use");
    char *active = wait_get(s, "adwiser:appliance:lab:active");
    char *rejected = wait_get(s, "adwiser:appliance:lab:rejected");
    assert_non_null(active);
    assert_string_equal(active, "5");
    assert_non_null(rejected);
    assert_non_null(strstr(rejected, "\"version\":6"));
    free(active);
    free(rejected);
    redis_link_stop(l);
}

static void test_an_ack_whose_write_lost_the_connection_is_written_after_reconnecting(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    /* Redis drops the thread's command connection (a restart, a timeout, CLIENT KILL) just before the loop
     * acknowledges: the SET of `active` is the first command on the dead connection. */
    command(s, "CLIENT KILL TYPE normal");
    redis_link_ack(l, 7);
    char *active = wait_get(s, "adwiser:appliance:lab:active");
    assert_non_null(active);
    assert_string_equal(active, "7");
    free(active);
    redis_link_stop(l);
}

static void test_a_refusal_whose_write_lost_the_connection_is_written_after_reconnecting(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    command(s, "CLIENT KILL TYPE normal");   /* the SET of `rejected` is the first command on the dead connection */
    redis_link_reject(l, 8, "topology.aps[0].port: not the port in use");
    char *rejected = wait_get(s, "adwiser:appliance:lab:rejected");
    assert_non_null(rejected);
    assert_non_null(strstr(rejected, "\"version\":8"));
    free(rejected);
    redis_link_stop(l);
}

/*
 * Redis refuses writes for a while (-OOM: the appliance's Redis runs with maxmemory and noeviction) just as a version
 * goes live and another is refused: the writes of `active` and `rejected` are answered with an error and stored
 * nothing, so they are written once Redis takes writes again; else the controller shows the version pending for good.
 */
static void test_an_ack_and_a_refusal_redis_refused_to_store_are_written_once_it_takes_writes(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    command(s, "CONFIG SET maxmemory 1");   /* below what Redis uses: every write is refused with -OOM */
    redis_link_ack(l, 7);
    redis_link_reject(l, 8, "topology.aps[0].port: not the port in use");
    sleep_ms(500);
    command(s, "CONFIG SET maxmemory 0");
    char *active = wait_get(s, "adwiser:appliance:lab:active");
    char *rejected = wait_get(s, "adwiser:appliance:lab:rejected");
    assert_non_null(active);
    assert_string_equal(active, "7");
    assert_non_null(rejected);
    assert_non_null(strstr(rejected, "\"version\":8"));
    free(active);
    free(rejected);
    redis_link_stop(l);
}

/* The refusal of a version the thread fetched itself (here: no doc), while Redis refuses writes (-OOM): written once
 * it takes writes again (it was counted as written and lost). PUBLISH and the fetch's HGET are not writes. */
static void test_a_refusal_of_a_fetched_version_redis_refused_to_store_is_written_once_it_takes_writes(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    command(s, "CONFIG SET maxmemory 1");
    command(s, "PUBLISH adwiser:appliance:lab:config 9");
    sleep_ms(500);
    command(s, "CONFIG SET maxmemory 0");
    char *rejected = wait_get(s, "adwiser:appliance:lab:rejected");
    assert_non_null(rejected);
    assert_non_null(strstr(rejected, "\"version\":9"));
    free(rejected);
    redis_link_stop(l);
}

static void test_a_refusal_of_a_fetched_version_whose_write_lost_the_connection_is_written_after_reconnecting(
    void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    command(s, "HSET adwiser:version:9 doc {}");
    command(s, "SET adwiser:appliance:lab:desired 9");
    /* Reads are answered, writes wait 2 s: the thread, reconnecting, reads `desired` and version 9, and the SET of
     * `rejected` times out (1 s), which breaks the connection between the read of the version and the write of its
     * refusal. */
    command(s, "CLIENT PAUSE 2000 WRITE");
    command(s, "CLIENT KILL TYPE normal");
    char *rejected = wait_get_within(s, "adwiser:appliance:lab:rejected", 2000 + WAIT_MS);
    assert_non_null(rejected);
    assert_non_null(strstr(rejected, "\"version\":9"));
    free(rejected);
    redis_link_stop(l);
}

/* Waits for ...:rejected to name `apply_seq`; its text (caller frees), or NULL. */
static char *wait_refusal_of_apply(struct server *s, const char *apply_seq)
{
    char want[64];
    snprintf(want, sizeof want, "\"apply_seq\":%s", apply_seq);
    for (int i = 0; i < WAIT_MS / 10; i++) {
        char *rejected = get(s, "adwiser:appliance:lab:rejected");
        if (rejected && strstr(rejected, want))
            return rejected;
        free(rejected);
        sleep_ms(10);
    }
    return get(s, "adwiser:appliance:lab:rejected");
}

static void test_a_refused_version_applied_again_is_refused_again_naming_the_new_apply(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    /* The controller counts its applies (apply_seq); the refusal says which apply it answers, so the controller can
     * tell an old refusal of version 9 from the answer to applying it again. */
    command(s, "HSET adwiser:version:9 doc {}");
    command(s, "SET adwiser:appliance:lab:apply_seq 1");
    command(s, "PUBLISH adwiser:appliance:lab:config 9");
    char *first = wait_refusal_of_apply(s, "1");
    assert_non_null(first);
    assert_non_null(strstr(first, "\"apply_seq\":1"));
    free(first);
    command(s, "SET adwiser:appliance:lab:apply_seq 2");
    command(s, "PUBLISH adwiser:appliance:lab:config 9");
    char *again = wait_refusal_of_apply(s, "2");
    assert_non_null(again);
    assert_non_null(strstr(again, "\"version\":9"));
    assert_non_null(strstr(again, "\"apply_seq\":2"));
    free(again);
    redis_link_stop(l);
}

static void test_the_loops_refusal_names_the_apply_of_the_version_it_was_handed(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    put_version(s, 11, "25");
    command(s, "SET adwiser:appliance:lab:apply_seq 4");
    command(s, "PUBLISH adwiser:appliance:lab:config 11");
    assert_int_equal(take_version(l), 11);
    redis_link_reject(l, 11, "topology.aps[0].port: not the port in use");
    char *rejected = wait_refusal_of_apply(s, "4");
    assert_non_null(rejected);
    assert_non_null(strstr(rejected, "\"version\":11"));
    assert_non_null(strstr(rejected, "\"apply_seq\":4"));
    free(rejected);
    redis_link_stop(l);
}

static void reconnect(struct server *s);

/*
 * Version 11 is applied again (apply_seq 5) while the loop has it on its way: its refusal names apply 5, which is the
 * answer to that apply. A reconnect then reads `desired` (11) and apply_seq (5), an apply already answered: the
 * version is not handed to the loop again (it would be tried again, and refused or run, without any apply).
 */
static void test_a_version_refused_after_an_apply_of_it_on_its_way_is_not_handed_again_on_reconnecting(void **state)
{
    struct server *s = *state;
    put_version(s, 11, "25");
    command(s, "SET adwiser:appliance:lab:desired 11");
    command(s, "SET adwiser:appliance:lab:apply_seq 4");
    struct redis_link *l = start_link(s);
    assert_int_equal(take_version(l), 11);         /* staged by the loop, not yet live */
    command(s, "SET adwiser:appliance:lab:apply_seq 5");
    command(s, "PUBLISH adwiser:appliance:lab:config 11");
    sleep_ms(300);                                 /* the thread takes the message: apply 5 of the version on its way */
    redis_link_reject(l, 11, "topology.aps[0].port: not the port in use");
    char *rejected = wait_refusal_of_apply(s, "5");
    assert_non_null(rejected);
    assert_non_null(strstr(rejected, "\"apply_seq\":5"));
    free(rejected);
    reconnect(s);
    uint64_t v = 0;
    struct adw_config *c = redis_link_take_config(l, &v);
    int handed = c != NULL;
    free(c);
    assert_false(handed);
    redis_link_stop(l);
}

/*
 * The loop holds a copy of version 11 (apply 4, staged, not yet live) when version 12 (apply 5) and then 11 again
 * (apply 6) are applied: a second copy of 11 waits for the loop. Each refusal names the apply of the copy refused:
 * the first copy's apply 4, the second's apply 6. The first refusal took apply 6 and the second then named apply 0,
 * so the controller never saw an answer to apply 6 and showed it pending for good.
 */
static void test_each_staged_copy_of_a_version_is_refused_naming_the_apply_it_was_fetched_for(void **state)
{
    struct server *s = *state;
    put_version(s, 11, "25");
    put_version(s, 12, "20");
    command(s, "SET adwiser:appliance:lab:desired 11");
    command(s, "SET adwiser:appliance:lab:apply_seq 4");
    struct redis_link *l = start_link(s);
    assert_int_equal(take_version(l), 11);         /* the first copy: staged by the loop, not yet live */
    command(s, "SET adwiser:appliance:lab:apply_seq 5");
    command(s, "PUBLISH adwiser:appliance:lab:config 12");
    sleep_ms(300);
    command(s, "SET adwiser:appliance:lab:apply_seq 6");
    command(s, "PUBLISH adwiser:appliance:lab:config 11");
    sleep_ms(300);                                 /* the second copy of 11 waits for the loop */
    redis_link_reject(l, 11, "replaced by a reload of lab.json (SIGHUP) before it went live");
    char *first = wait_refusal_of_apply(s, "4");
    assert_int_equal(take_version(l), 11);
    redis_link_reject(l, 11, "topology.aps[0].port: not the port in use");
    char *second = wait_refusal_of_apply(s, "6");
    redis_link_stop(l);
    assert_non_null(first);
    assert_non_null(strstr(first, "\"apply_seq\":4"));
    assert_non_null(second);
    assert_non_null(strstr(second, "\"apply_seq\":6"));
    free(first);
    free(second);
}

static void test_a_rollback_to_the_running_version_replaces_the_version_on_its_way(void **state)
{
    struct server *s = *state;
    put_version(s, 1, "20");
    put_version(s, 2, "25");
    command(s, "SET adwiser:appliance:lab:desired 1");
    struct redis_link *l = start_link(s);
    assert_int_equal(take_version(l), 1);
    redis_link_ack(l, 1);                         /* version 1 runs */
    command(s, "SET adwiser:appliance:lab:desired 2");
    command(s, "PUBLISH adwiser:appliance:lab:config 2");
    assert_int_equal(take_version(l), 2);         /* staged by the loop, not yet live */
    command(s, "SET adwiser:appliance:lab:desired 1");
    command(s, "PUBLISH adwiser:appliance:lab:config 1");
    assert_int_equal(take_version(l), 1);         /* must replace 2 before its frame boundary */
    redis_link_stop(l);
}

/* Stores version n (the lab document, first slice 30 ms) and makes it the one desired. */
static void store_version(struct server *s, unsigned n)
{
    put_version(s, n, "30");
    command(s, "SET adwiser:appliance:lab:desired %u", n);
}

/* Redis drops the thread's connection; returns once the thread has reconnected, and so read `desired` again. */
static void reconnect(struct server *s)
{
    command(s, "CLIENT KILL TYPE normal");
    command(s, "DEL adwiser:appliance:lab:heartbeat");
    char *hb = wait_get(s, "adwiser:appliance:lab:heartbeat");   /* written after `desired` is read */
    assert_non_null(hb);
    free(hb);
}

/*
 * Version 4 runs, then an operator's SIGHUP reloads --config: the file runs (redis_link_file_runs). A reconnect does
 * not apply `desired` (4) again, which would undo the SIGHUP, but the controller publishing 4 again does: skipped as
 * the version already fetched, only a new version number took effect.
 */
static void test_a_version_published_again_after_a_reload_of_the_config_file_is_applied(void **state)
{
    struct server *s = *state;
    store_version(s, 4);
    struct redis_link *l = start_link(s);
    assert_int_equal(take_version(l), 4);
    redis_link_ack(l, 4);
    redis_link_file_runs(l);
    reconnect(s);
    uint64_t v = 0;
    struct adw_config *c = redis_link_take_config(l, &v);
    int handed = c != NULL;
    free(c);
    assert_false(handed);                          /* the operator's override stands */
    command(s, "PUBLISH adwiser:appliance:lab:config 4");
    assert_int_equal(take_version(l), 4);
    redis_link_stop(l);
}

/* Same, for version 4 refused because a SIGHUP reload replaced it before it went live. */
static void test_a_version_a_reload_replaced_is_applied_when_published_again(void **state)
{
    struct server *s = *state;
    store_version(s, 4);
    struct redis_link *l = start_link(s);
    assert_int_equal(take_version(l), 4);
    redis_link_reject(l, 4, "replaced by a reload of lab.json (SIGHUP) before it went live");
    redis_link_file_runs(l);
    command(s, "PUBLISH adwiser:appliance:lab:config 4");
    assert_int_equal(take_version(l), 4);
    redis_link_stop(l);
}

/*
 * A version fetched before a SIGHUP reload and taken by the loop after it replaces the file and runs: the override is
 * over, so a version the thread missed while disconnected is read from `desired` on reconnecting.
 */
static void test_desired_is_followed_again_once_a_version_runs_after_a_reload(void **state)
{
    struct server *s = *state;
    store_version(s, 5);
    struct redis_link *l = start_link(s);
    assert_int_equal(take_version(l), 5);
    redis_link_file_runs(l);                       /* the SIGHUP came before version 5 went live */
    redis_link_ack(l, 5);                          /* then version 5 replaced the file at the frame boundary */
    store_version(s, 6);                           /* applied while the message was missed */
    reconnect(s);
    assert_int_equal(take_version(l), 6);
    redis_link_stop(l);
}

/*
 * The appliance boots: Redis (AOF on) is still loading its data set when the dataplane connects, and answers the read
 * of `desired` with -LOADING. That is no answer: `desired` is read again once Redis has loaded, and the version applied.
 */
static void test_desired_is_read_again_when_redis_was_loading_its_data(void **state)
{
    struct server *s = *state;
    store_version(s, 3);
    command(s, "EVAL %s 0", "for i = 1, 2000 do redis.call('SET', 'fill:' .. i, string.rep('x', 100)) end");
    restart_server_loading_slowly(s, 1000);   /* about 2 s of loading */
    char err[256];
    struct redis_link *l = redis_link_start(s->addr, "lab", "dpdk", err, sizeof err);
    assert_non_null(l);
    uint64_t v = 0;
    for (int i = 0; i < (2000 + WAIT_MS) / 10 && !v; i++) {
        struct adw_config *c = redis_link_take_config(l, &v);
        free(c);
        if (!c)
            sleep_ms(10);
    }
    assert_int_equal(v, 3);
    redis_link_stop(l);
}

/* The connections Redis has accepted since it started (INFO stats). */
static long long connections_received(struct server *s)
{
    redisReply *r = redisCommand(s->c, "INFO stats");
    assert_non_null(r);
    char *at = r->type == REDIS_REPLY_STRING ? strstr(r->str, "total_connections_received:") : NULL;
    long long n = at ? atoll(at + strlen("total_connections_received:")) : -1;
    freeReplyObject(r);
    return n;
}

/* The deployed Redis requires a password (ansible's redis role); the dataplane is given it as
 * $ADWISER_REDIS_PASSWORD (ansible's dataplane.env). The test's own connection stays logged in. */
static void test_the_link_logs_in_with_the_password_of_the_environment(void **state)
{
    struct server *s = *state;
    command(s, "CONFIG SET requirepass a-redis-password");
    store_version(s, 3);
    setenv("ADWISER_REDIS_PASSWORD", "a-redis-password", 1);
    struct redis_link *l = start_link(s);
    unsetenv("ADWISER_REDIS_PASSWORD");
    assert_int_equal(take_version(l), 3);
    redis_link_ack(l, 3);
    char *active = wait_get(s, "adwiser:appliance:lab:active");
    assert_non_null(active);
    assert_string_equal(active, "3");
    free(active);
    redis_link_stop(l);
}

/* A password Redis refuses: the link writes nothing, tries again every second (not in a busy loop), and gets in once
 * Redis takes the password. */
/* Redis takes passwords of any length and ansible's redis role sets no bound: one of 600 bytes was cut to 511 and
 * refused (WRONGPASS) for good. */
static void test_a_password_longer_than_511_bytes_is_given_whole(void **state)
{
    struct server *s = *state;
    char password[601];
    for (size_t i = 0; i < sizeof(password) - 1; i++)
        password[i] = (char)('a' + i % 26);
    password[sizeof(password) - 1] = '\0';
    command(s, "CONFIG SET requirepass %s", password);
    store_version(s, 3);
    setenv("ADWISER_REDIS_PASSWORD", password, 1);
    struct redis_link *l = start_link(s);
    unsetenv("ADWISER_REDIS_PASSWORD");
    assert_int_equal(take_version(l), 3);
    redis_link_stop(l);
}

static void test_a_refused_password_is_retried_every_second(void **state)
{
    struct server *s = *state;
    command(s, "CONFIG SET requirepass the-right-password");
    setenv("ADWISER_REDIS_PASSWORD", "a-wrong-password", 1);
    char err[256];
    long long before = connections_received(s);
    struct redis_link *l = redis_link_start(s->addr, "lab", "dpdk", err, sizeof err);
    unsetenv("ADWISER_REDIS_PASSWORD");
    assert_non_null(l);
    sleep_ms(2500);
    long long attempts = connections_received(s) - before;
    char *hb = get(s, "adwiser:appliance:lab:heartbeat");
    assert_null(hb);
    assert_true(attempts >= 2);    /* retried: more than the first attempt's connection */
    assert_true(attempts <= 10);   /* about one attempt a second (at most two connections each), no busy loop */
    command(s, "CONFIG SET requirepass a-wrong-password");   /* the operator fixes Redis's side */
    hb = wait_get(s, "adwiser:appliance:lab:heartbeat");
    assert_non_null(hb);
    free(hb);
    redis_link_stop(l);
}

/* Waits for ...:pacing_rejected to name `pair`; its "error" text (caller frees), or NULL. */
static char *pacing_refusal_naming(struct server *s, const char *pair)
{
    for (int i = 0; i < WAIT_MS / 10; i++) {
        char *rejected = get(s, "adwiser:appliance:lab:pacing_rejected");
        json_error_t je;
        json_t *j = rejected ? json_loads(rejected, 0, &je) : NULL;
        const char *error = json_string_value(json_object_get(j, "error"));
        char *out = error && strstr(error, pair) ? strdup(error) : NULL;
        json_decref(j);
        free(rejected);
        if (out)
            return out;
        sleep_ms(10);
    }
    return NULL;
}

static void test_a_refusal_quoting_bytes_that_are_not_utf8_is_written_scrubbed(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    /* A rate whose quote in the error (40 bytes) cuts a two-byte character in half. */
    command(s, "HSET adwiser:appliance:lab:pacing ap2/sta2 %s",
            "x\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
    command(s, "PUBLISH adwiser:appliance:lab:pacing 1");
    char *error = pacing_refusal_naming(s, "ap2/sta2");
    assert_non_null(error);
    assert_non_null(strstr(error, "\xc3\xa9?"));   /* whole characters kept, the half one replaced */
    free(error);
    /* A rate that is not UTF-8 at all. */
    command(s, "HDEL adwiser:appliance:lab:pacing ap2/sta2");
    command(s, "HSET adwiser:appliance:lab:pacing ap1/sta1 %b", "\xff\xfe", (size_t)2);
    command(s, "PUBLISH adwiser:appliance:lab:pacing 1");
    error = pacing_refusal_naming(s, "ap1/sta1");
    assert_non_null(error);
    assert_non_null(strstr(error, "??"));
    free(error);
    redis_link_stop(l);
}

/* Redis strings may hold NUL bytes; read as C strings, a document or a rate was cut at the first one and the rest
 * ignored: a valid document with anything after a NUL ran, "5\0junk" paced at 5 bit/s. Both are refused. */
static void test_a_version_or_a_rate_holding_a_nul_byte_is_refused(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    char *doc = lab_doc("20");
    size_t len = strlen(doc);
    char *with_nul = malloc(len + 6);
    assert_non_null(with_nul);
    memcpy(with_nul, doc, len);
    memcpy(with_nul + len, "\0junk", 6);
    command(s, "HSET adwiser:version:7 doc %b", with_nul, len + 6);
    free(with_nul);
    free(doc);
    command(s, "SET adwiser:appliance:lab:apply_seq 1");
    command(s, "PUBLISH adwiser:appliance:lab:config 7");
    char *rejected = wait_refusal_of_apply(s, "1");
    assert_non_null(rejected);
    assert_non_null(strstr(rejected, "\"version\":7"));
    assert_non_null(strstr(rejected, "NUL byte"));
    free(rejected);
    assert_int_equal(take_version(l), 0);
    command(s, "HSET adwiser:appliance:lab:pacing ap1/sta1 %b", "5\0junk", (size_t)7);
    command(s, "PUBLISH adwiser:appliance:lab:pacing 1");
    char *error = pacing_refusal_naming(s, "ap1/sta1");
    assert_non_null(error);
    assert_non_null(strstr(error, "NUL byte"));
    free(error);
    redis_link_stop(l);
}

/* Hands the thread one frame of telemetry: a frame record and two pair records. */
static void publish_frame(struct redis_link *l, int frame)
{
    redis_link_publish_frame(l, json_pack("{s:s, s:i}", "type", "frame", "frame", frame),
                             json_pack("[{s:s, s:s}, {s:s, s:s}]", "type", "pair", "pair", "ap1/sta1", "type", "pair",
                                       "pair", "ap2/sta2"));
}

/* The command (e.g. "xadd", "set") of the client that CLIENT PAUSE WRITE holds, into out; "" if none is held within
 * ms. */
static void held_command(struct server *s, char *out, size_t outlen, unsigned ms)
{
    out[0] = '\0';
    for (unsigned t = 0; t < ms / 10 && !out[0]; t++, sleep_ms(10)) {
        redisReply *r = redisCommand(s->c, "CLIENT LIST");
        assert_non_null(r);
        for (char *line = r->type == REDIS_REPLY_STRING ? r->str : NULL; line && *line && !out[0];) {
            char *eol = strchr(line, '\n');
            if (eol)
                *eol = '\0';
            char *flags = strstr(line, " flags="), *cmd = strstr(line, " cmd="), f[32] = "";
            if (flags)
                snprintf(f, sizeof(f), "%.*s", (int)strcspn(flags + 7, " "), flags + 7);
            if (strchr(f, 'b') && cmd)   /* b: blocked, here by the pause */
                snprintf(out, outlen, "%.*s", (int)strcspn(cmd + 5, " "), cmd + 5);
            line = eol ? eol + 1 : NULL;
        }
        freeReplyObject(r);
    }
}

/* A heartbeat was just written: the next one is HEARTBEAT_NS (200 ms) away. */
static void fresh_heartbeat(struct server *s)
{
    command(s, "DEL adwiser:appliance:lab:heartbeat");
    char *hb = wait_get(s, "adwiser:appliance:lab:heartbeat");
    assert_non_null(hb);
    free(hb);
}

/*
 * Redis drops the connection while a frame's records are sent and unanswered (a restart, a timeout, CLIENT KILL): the
 * frame may or may not be in the streams. It was sent, so it is not among the frames never sent (`lost`); it is
 * counted as unconfirmed. CLIENT PAUSE WRITE holds the XADD (reads still answered), CLIENT KILL breaks the connection
 * under it. The pause holds whichever write comes first; a heartbeat due in between is let through and the frame
 * tried again.
 */
static void test_frames_sent_on_a_connection_that_broke_before_redis_answered_are_counted_unconfirmed(void **state)
{
    struct server *s = *state;
    struct redis_link *l = start_link(s);
    char held[32] = "";
    for (int attempt = 0; attempt < 10 && strcmp(held, "xadd") != 0; attempt++) {
        fresh_heartbeat(s);
        command(s, "CLIENT PAUSE 5000 WRITE");
        publish_frame(l, attempt);
        held_command(s, held, sizeof(held), 500);   /* well before the thread's own 1 s command timeout */
        if (strcmp(held, "xadd") == 0)
            command(s, "CLIENT KILL TYPE normal");
        command(s, "CLIENT UNPAUSE");
    }
    if (strcmp(held, "xadd") != 0)
        fail_msg("the pause never held the frame's XADD (last held: \"%s\")", held);
    fresh_heartbeat(s);   /* reconnected */
    struct redis_link_tm_losses tm = redis_link_stop(l);
    assert_int_equal(tm.unconfirmed, 1);
    assert_int_equal(tm.lost, 0);
}

/* The number of entries of stream key once it has n (or after WAIT_MS). */
static long long wait_stream_len(struct server *s, const char *key, long long n)
{
    long long len = -1;
    for (int i = 0; i < WAIT_MS / 10 && len != n; i++) {
        redisReply *r = redisCommand(s->c, "XLEN %s", key);
        assert_non_null(r);
        len = r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
        freeReplyObject(r);
        if (len != n)
            sleep_ms(10);
    }
    return len;
}

/*
 * Redis answers a record with an error (out of memory under maxmemory with noeviction, a key of another type): it
 * stored nothing of it, and said so. A frame with such a record is lost, as one never sent is. Here the pair stream's
 * key holds a string, so each frame's record is stored and its pair records are refused (WRONGTYPE).
 */
static void test_frames_with_a_record_redis_refused_are_counted_lost(void **state)
{
    struct server *s = *state;
    command(s, "SET adwiser:appliance:lab:tm:pair not-a-stream");
    struct redis_link *l = start_link(s);
    for (int f = 0; f < 3; f++)
        publish_frame(l, f);
    assert_int_equal(wait_stream_len(s, "adwiser:appliance:lab:tm:frame", 3), 3);
    struct redis_link_tm_losses tm = redis_link_stop(l);
    assert_int_equal(tm.lost, 3);
    assert_int_equal(tm.unconfirmed, 0);
}

struct stopper {
    struct redis_link *l;
    volatile int done;
};

static void *stop_in_thread(void *arg)
{
    struct stopper *st = arg;
    redis_link_stop(st->l);
    st->done = 1;
    return NULL;
}

static void test_stop_returns_while_redis_has_stopped_answering(void **state)
{
    struct server *s = *state;
    struct stopper st = {start_link(s), 0};
    kill(s->pid, SIGSTOP);   /* accepts nothing, answers nothing: a hung or partitioned Redis */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, stop_in_thread, &st), 0);
    for (int i = 0; i < 500 && !st.done; i++)
        sleep_ms(10);
    int returned = st.done;
    kill(s->pid, SIGCONT);   /* lets a stuck thread finish, so the test ends either way */
    pthread_join(t, NULL);
    assert_true(returned);
}

static void test_a_command_to_a_redis_that_stopped_answering_times_out(void **state)
{
    struct server *s = *state;
    redisContext *c = redis_addr_connect(s->addr, (struct timeval){0, 200000});
    assert_non_null(c);
    kill(s->pid, SIGSTOP);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    redisReply *r = redisCommand(c, "PING");   /* blocked in read() for good before the command timeout */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    kill(s->pid, SIGCONT);
    assert_null(r);
    assert_int_not_equal(c->err, 0);
    assert_true(t1.tv_sec - t0.tv_sec < 5);
    redisFree(c);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);   /* as adwiser-dp does: a write to a connection Redis closed fails, not kills */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_an_ack_and_a_refusal_given_together_are_both_written, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_the_heartbeat_names_when_this_dataplane_instance_started, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_an_ack_whose_write_lost_the_connection_is_written_after_reconnecting,
                                        start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_a_refusal_whose_write_lost_the_connection_is_written_after_reconnecting,
                                        start_server, stop_server),
        cmocka_unit_test_setup_teardown(
            test_an_ack_and_a_refusal_redis_refused_to_store_are_written_once_it_takes_writes, start_server,
            stop_server),
        cmocka_unit_test_setup_teardown(
            test_a_refusal_of_a_fetched_version_redis_refused_to_store_is_written_once_it_takes_writes, start_server,
            stop_server),
        cmocka_unit_test_setup_teardown(
            test_a_refusal_of_a_fetched_version_whose_write_lost_the_connection_is_written_after_reconnecting,
            start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_a_refused_version_applied_again_is_refused_again_naming_the_new_apply,
                                        start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_the_loops_refusal_names_the_apply_of_the_version_it_was_handed,
                                        start_server, stop_server),
        cmocka_unit_test_setup_teardown(
            test_a_version_refused_after_an_apply_of_it_on_its_way_is_not_handed_again_on_reconnecting,
            start_server, stop_server),
        cmocka_unit_test_setup_teardown(
            test_each_staged_copy_of_a_version_is_refused_naming_the_apply_it_was_fetched_for, start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_a_rollback_to_the_running_version_replaces_the_version_on_its_way,
                                        start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_a_version_published_again_after_a_reload_of_the_config_file_is_applied,
                                        start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_a_version_a_reload_replaced_is_applied_when_published_again, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_desired_is_followed_again_once_a_version_runs_after_a_reload,
                                        start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_desired_is_read_again_when_redis_was_loading_its_data, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_the_link_logs_in_with_the_password_of_the_environment, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_a_password_longer_than_511_bytes_is_given_whole, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_a_refused_password_is_retried_every_second, start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_a_refusal_quoting_bytes_that_are_not_utf8_is_written_scrubbed,
                                        start_server, stop_server),
        cmocka_unit_test_setup_teardown(test_a_version_or_a_rate_holding_a_nul_byte_is_refused, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(
            test_frames_sent_on_a_connection_that_broke_before_redis_answered_are_counted_unconfirmed, start_server,
            stop_server),
        cmocka_unit_test_setup_teardown(test_frames_with_a_record_redis_refused_are_counted_lost, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_stop_returns_while_redis_has_stopped_answering, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_a_command_to_a_redis_that_stopped_answering_times_out, start_server,
                                        stop_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
