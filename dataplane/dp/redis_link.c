/* Redis thread of the dataplane; see redis_link.h and controller/REDIS.md. */
#include "redis_link.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "config_json.h"
#include "redis_addr.h"

#define HEARTBEAT_NS 200000000ull     /* heartbeat period, ns */
#define RECONNECT_NS 1000000000ull    /* retry period while Redis is unreachable, ns */
#define POLL_MS 20                    /* longest wait for a pub/sub message, ms */
#define BACKLOG_MAX 256               /* frames of telemetry queued for Redis before dropping the oldest */
#define KEY_LEN 256                   /* bytes of a Redis key */

struct tm_item {
    json_t *frame;
    json_t *pairs;
    struct tm_item *next;
};

struct redis_link {
    char addr[256];
    char id[ADW_ID_LEN];
    char backend[16];
    char pacing_chan[KEY_LEN];             /* adwiser:appliance:<id>:pacing (channel and hash) */
    uint64_t started_ns;                   /* wall-clock time this link (the dataplane instance) started, Unix ns:
                                              with the pid, the heartbeat's identity of the instance, since a
                                              restart in a container often gets its predecessor's pid back */
    char *password;                        /* $ADWISER_REDIS_PASSWORD at start, whole (Redis bounds none); "" = Redis
                                              asks for none */
    char connect_error[256];               /* the last refusal of a connection attempt logged; thread only */
    char write_error[256];                 /* the last write refusal logged, "" after a write Redis took; thread
                                              only */
    pthread_t thread;
    pthread_mutex_t mu;
    int stop;                              /* guarded by mu */
    /* loop -> thread */
    struct tm_item *head, *tail;           /* telemetry backlog, guarded by mu */
    unsigned backlog;                      /* frames in it */
    uint64_t tm_dropped;                   /* frames lost: never sent (Redis lagged or was not connected) or with
                                              a record Redis refused; guarded by mu */
    uint64_t tm_unconfirmed;               /* frames sent whose replies never came (the connection broke first):
                                              Redis may or may not have stored them; thread only until the join */
    int tm_refusal_logged;                 /* a refused record was reported on stderr; thread only */
    /* Outcomes not yet written, guarded by mu. An ack and a reject have a slot each: both can come from the loop
     * between two passes of the thread (a version refused right after the previous one went live). */
    int ack_due;                           /* ack_version is to be written as `active` */
    uint64_t ack_version;                  /* version to acknowledge; 0 = the --config file runs (SIGHUP) */
    uint64_t reject_version;               /* version to report refused, 0 if none */
    uint64_t reject_seq;                   /* the controller's apply (apply_seq) the refusal answers */
    char reject_error[512];
    uint64_t active_version;               /* version in force (for the heartbeat), guarded by mu */
    uint64_t handed_version;               /* version handed to the loop, neither acked nor refused yet; 0 if
                                              none; guarded by mu */
    uint64_t handed_seq;                   /* the newest apply (apply_seq) of handed_version; guarded by mu */
    uint64_t taken_version;                /* version of the copy the loop took last, not yet answered; 0 if none;
                                              guarded by mu */
    uint64_t taken_seq;                    /* the apply (apply_seq) of that copy: a second copy of the version, fetched
                                              for a later apply while the loop held the first, is answered with its
                                              own apply; guarded by mu */
    int overridden;                        /* the --config file runs by an operator's SIGHUP: `desired` is not
                                              applied again until a config message names a version; guarded by mu */
    uint64_t last_fetched;                 /* newest version fetched (and handed over or rejected); guarded by mu,
                                              as the loop forgets it when the --config file runs */
    uint64_t last_fetched_seq;             /* the apply (apply_seq) it was fetched for; guarded by mu */
    /* thread -> loop */
    struct adw_config *ready;              /* validated config waiting for the loop, guarded by mu */
    uint64_t ready_version;
    uint64_t ready_seq;                    /* the apply (apply_seq) it was fetched for */
    struct pacing_table *pacing_ready;     /* pacing hash waiting for the loop, guarded by mu */
    /* thread only */
    redisContext *cmd, *sub;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void disconnect(struct redis_link *l)
{
    if (l->cmd)
        redisFree(l->cmd);
    if (l->sub)
        redisFree(l->sub);
    l->cmd = l->sub = NULL;
}

/* This appliance's key adwiser:appliance:<id>:<suffix> (controller/REDIS.md). */
static void appliance_key(const struct redis_link *l, const char *suffix, char key[KEY_LEN])
{
    snprintf(key, KEY_LEN, "adwiser:appliance:%s:%s", l->id, suffix);
}

static redisReply *vcmd(struct redis_link *l, const char *fmt, va_list ap)
{
    redisReply *r = redisvCommand(l->cmd, fmt, ap);
    if (!r) {
        fprintf(stderr, "adwiser-dp: redis: %s; reconnecting\n", l->cmd->errstr);
        disconnect(l);
    }
    return r;
}

/* Runs a command on the command connection; NULL (and disconnects) on a connection error. */
static redisReply *cmd(struct redis_link *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = vcmd(l, fmt, ap);
    va_end(ap);
    return r;
}

/* Runs a command whose reply is not needed (a connection error disconnects, as for cmd): 1 if Redis took it, 0 if it
 * answered with an error (-OOM under maxmemory with noeviction: nothing stored; logged once until the refusal changes
 * or a write goes through), -1 if the connection broke. */
static int run(struct redis_link *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = vcmd(l, fmt, ap);
    va_end(ap);
    if (!r)
        return -1;
    int took = r->type != REDIS_REPLY_ERROR;
    if (!took && strncmp(r->str, l->write_error, sizeof(l->write_error) - 1) != 0)
        fprintf(stderr, "adwiser-dp: redis: write refused: %s\n", r->str);
    snprintf(l->write_error, sizeof(l->write_error), "%s", took ? "" : r->str);
    freeReplyObject(r);
    return took;
}

/* SETs this appliance's key <suffix> to j as compact JSON, expiring after ttl_ms unless 0; consumes j (NULL, a
 * record that could not be built, is logged and skipped: 1, as nothing would come of trying again). As run. */
static int set_json(struct redis_link *l, const char *suffix, json_t *j, unsigned ttl_ms)
{
    char key[KEY_LEN];
    appliance_key(l, suffix, key);
    char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;
    int took = 1;
    if (!s)
        fprintf(stderr, "adwiser-dp: redis: the %s record could not be built; not written\n", suffix);
    else if (ttl_ms)
        took = run(l, "SET %s %s PX %u", key, s, ttl_ms);
    else
        took = run(l, "SET %s %s", key, s);
    free(s);
    json_decref(j);
    return took;
}

/*
 * Replaces, in place, every byte of s that does not belong to a well-formed UTF-8 sequence (RFC 3629) with '?'.
 * Error texts quote bytes from outside (a Redis hash's values, a document's keys) and are cut at a byte count,
 * which can split a character; JSON strings must be UTF-8, so jansson refuses to pack such a text.
 */
static void utf8_scrub(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        unsigned n = 0, lo = 0x80, hi = 0xBF;    /* continuation bytes, bounds of the first of them */
        if (*p < 0x80)
            n = 0;
        else if (*p >= 0xC2 && *p <= 0xDF)
            n = 1;
        else if (*p >= 0xE0 && *p <= 0xEF) {
            n = 2;
            lo = *p == 0xE0 ? 0xA0 : 0x80;       /* no overlong forms */
            hi = *p == 0xED ? 0x9F : 0xBF;       /* no UTF-16 surrogates */
        } else if (*p >= 0xF0 && *p <= 0xF4) {
            n = 3;
            lo = *p == 0xF0 ? 0x90 : 0x80;
            hi = *p == 0xF4 ? 0x8F : 0xBF;       /* nothing above U+10FFFF */
        } else {
            *p++ = '?';
            continue;
        }
        unsigned ok = 1;
        for (unsigned i = 1; i <= n && ok; i++) {
            unsigned char c = p[i];
            ok = i == 1 ? c >= lo && c <= hi : c >= 0x80 && c <= 0xBF;
        }
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += 1 + n;
    }
}

/* The refusal names the controller's apply it answers (apply_seq, 0 from a controller that counts none): the key
 * keeps the last refusal, and without it an old refusal of version n could not be told from the answer to applying
 * n again. */
static int set_rejected(struct redis_link *l, uint64_t version, uint64_t apply_seq, char *error)
{
    utf8_scrub(error);
    return set_json(l, "rejected", json_pack("{s:I, s:s, s:I}", "version", (json_int_t)version, "error", error,
                                             "apply_seq", (json_int_t)apply_seq), 0);
}

/* Refuses a version fetched from Redis. Only a refusal written counts it as fetched: when the connection broke
 * between the read of the version and this write, reading `desired` after reconnecting fetches and refuses it
 * again, since nothing else would ever write `rejected` for it. One Redis refused to store (-OOM) waits with the
 * loop's refusals and send_outcome writes it on a later pass (fetching it again would log it every pass). */
static void refuse_fetched(struct redis_link *l, uint64_t version, uint64_t apply_seq, char *error)
{
    int took = set_rejected(l, version, apply_seq, error);
    if (took < 0)
        return;
    pthread_mutex_lock(&l->mu);
    l->last_fetched = version;
    l->last_fetched_seq = apply_seq;
    if (took == 0) {
        l->reject_version = version;
        l->reject_seq = apply_seq;
        snprintf(l->reject_error, sizeof(l->reject_error), "%s", error);
    }
    pthread_mutex_unlock(&l->mu);
}

/* Fetches, parses and validates version n; a valid one waits in l->ready for the loop. */
static void fetch_version(struct redis_link *l, uint64_t version)
{
    char key[KEY_LEN], err[512];
    if (version == 0)
        return;
    /* Read before the version: the controller counts an apply in the transaction that sets `desired` and before it
     * publishes, so this is the count of the apply that named the version, or of a later one. */
    appliance_key(l, "apply_seq", key);
    redisReply *r = cmd(l, "GET %s", key);
    if (!r)
        return;
    uint64_t seq = r->type == REDIS_REPLY_STRING ? strtoull(r->str, NULL, 10) : 0;
    freeReplyObject(r);
    /* The version in force is fetched again only while another one is on its way to the loop: a rollback to it
     * must replace that one (skipped, the newer version would have gone live against the controller's wish). A
     * version fetched before is fetched again for a new apply of it, which must be answered (a refusal naming the
     * apply); one on its way to the loop is not, but its answer then names the new apply. */
    pthread_mutex_lock(&l->mu);
    int skip = (version == l->last_fetched && seq == l->last_fetched_seq)
               || (version == l->active_version && l->handed_version == 0);
    if (version == l->handed_version && version == l->last_fetched) {
        l->handed_seq = seq;
        if (l->ready && l->ready_version == version)
            l->ready_seq = seq;
        else if (l->taken_version == version)
            l->taken_seq = seq;
        l->last_fetched_seq = seq;   /* answered with the loop's answer: a reconnect must not hand it over again */
        skip = 1;
    }
    pthread_mutex_unlock(&l->mu);
    if (skip)
        return;
    snprintf(key, sizeof(key), "adwiser:version:%llu", (unsigned long long)version);
    r = cmd(l, "HGET %s doc", key);
    if (!r)
        return;
    if (r->type != REDIS_REPLY_STRING) {
        snprintf(err, sizeof(err), "%s has no doc", key);
        refuse_fetched(l, version, seq, err);
        freeReplyObject(r);
        return;
    }
    /* Redis strings may hold NUL bytes; read as a C string, the document was cut at the first one and what
     * followed it ignored. */
    size_t text_len = strlen(r->str);
    struct adw_config *cfg = text_len == r->len ? config_json_alloc() : NULL;
    if (!cfg || config_json_parse(r->str, cfg, err, sizeof(err)) != 0) {
        if (text_len != r->len)
            snprintf(err, sizeof(err), "%s: doc has a NUL byte at offset %zu: a document is JSON text", key, text_len);
        else if (!cfg)
            snprintf(err, sizeof(err), "out of memory");
        fprintf(stderr, "adwiser-dp: redis: version %llu refused: %s\n", (unsigned long long)version, err);
        refuse_fetched(l, version, seq, err);
        free(cfg);
        freeReplyObject(r);
        return;
    }
    freeReplyObject(r);
    if (strcmp(cfg->appliance_id, l->id) != 0) {
        snprintf(err, sizeof(err), "appliance_id: '%s' is not this appliance ('%s')", cfg->appliance_id, l->id);
        refuse_fetched(l, version, seq, err);
        free(cfg);
        return;
    }
    pthread_mutex_lock(&l->mu);
    free(l->ready);   /* a newer version replaces one the loop has not taken yet */
    l->ready = cfg;
    l->ready_version = version;
    l->ready_seq = seq;
    l->handed_version = version;
    l->handed_seq = seq;
    l->last_fetched = version;
    l->last_fetched_seq = seq;
    pthread_mutex_unlock(&l->mu);
}

/* HGETALL of the pacing hash, checked whole; a valid table waits in l->pacing_ready. */
static void fetch_pacing(struct redis_link *l)
{
    char key[KEY_LEN], err[512];
    appliance_key(l, "pacing", key);
    redisReply *r = cmd(l, "HGETALL %s", key);
    if (!r)
        return;
    struct pacing_table *t = pacing_table_new();
    int bad = t == NULL || r->type != REDIS_REPLY_ARRAY;
    snprintf(err, sizeof(err), "%s is not a hash", key);
    for (size_t i = 0; !bad && i + 1 < r->elements; i += 2) {
        redisReply *f = r->element[i], *v = r->element[i + 1];
        bad = f->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING;
        if (!bad && (strlen(f->str) != f->len || strlen(v->str) != v->len)) {
            /* read as a C string, "5\0junk" was the rate 5 */
            snprintf(err, sizeof(err), "pacing: %s: a NUL byte in the pair or its rate", f->str);
            bad = 1;
        }
        bad = bad || pacing_table_add_text(t, f->str, v->str, err, sizeof(err)) != 0;
    }
    freeReplyObject(r);
    if (bad) {
        pacing_table_free(t);
        fprintf(stderr, "adwiser-dp: redis: pacing refused, rates in force kept: %s\n", err);
        utf8_scrub(err);
        set_json(l, "pacing_rejected", json_pack("{s:s, s:I}", "error", err, "ts_ns", (json_int_t)wall_ns()), 0);
        return;
    }
    pthread_mutex_lock(&l->mu);
    pacing_table_free(l->pacing_ready);
    l->pacing_ready = t;
    pthread_mutex_unlock(&l->mu);
}

/* Runs a command of the connection's setup on c: its reply, or NULL (and disconnects) if Redis refused it or the
 * connection broke. A refusal (a wrong or missing password: WRONGPASS, NOAUTH; -LOADING) is logged once until it
 * changes or a connection succeeds, as the attempt is repeated every second. */
static redisReply *vsetup_reply(struct redis_link *l, redisContext *c, const char *fmt, va_list ap)
{
    redisReply *r = redisvCommand(c, fmt, ap);
    if (r && r->type != REDIS_REPLY_ERROR)
        return r;
    char why[sizeof(l->connect_error)];
    snprintf(why, sizeof(why), "%s", r ? r->str : c->errstr);
    if (strcmp(why, l->connect_error) != 0)
        fprintf(stderr, "adwiser-dp: redis: %s refused the connection: %s; retrying every second\n", l->addr, why);
    snprintf(l->connect_error, sizeof(l->connect_error), "%s", why);
    freeReplyObject(r);
    disconnect(l);
    return NULL;
}

static redisReply *setup_reply(struct redis_link *l, redisContext *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = vsetup_reply(l, c, fmt, ap);
    va_end(ap);
    return r;
}

/* setup_reply for a command whose reply is not needed: 0 if Redis took it, else -1. */
static int setup_command(struct redis_link *l, redisContext *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = vsetup_reply(l, c, fmt, ap);
    va_end(ap);
    freeReplyObject(r);
    return r ? 0 : -1;
}

/* Logs c in with the password of $ADWISER_REDIS_PASSWORD, if there is one; -1 (and disconnects) if refused. */
static int login(struct redis_link *l, redisContext *c)
{
    return l->password[0] ? setup_command(l, c, "AUTH %s", l->password) : 0;
}

/* Applies `desired`, unless the operator's SIGHUP overrode it: read at every reconnect, it would undo the
 * override within a second. An error reply is no answer (-LOADING from a Redis still loading its AOF after a
 * restart): the connection is dropped and `desired` read again on the next attempt, a second later; taken for "no
 * version", the version would never be applied, since nothing reads `desired` again until a reconnect. -1 if so. */
static int read_desired(struct redis_link *l)
{
    char key[KEY_LEN];
    pthread_mutex_lock(&l->mu);
    int overridden = l->overridden;
    pthread_mutex_unlock(&l->mu);
    if (overridden)
        return 0;
    appliance_key(l, "desired", key);
    redisReply *r = setup_reply(l, l->cmd, "GET %s", key);
    if (!r)
        return -1;
    uint64_t v = r->type == REDIS_REPLY_STRING ? strtoull(r->str, NULL, 10) : 0;
    freeReplyObject(r);
    fetch_version(l, v);
    return 0;
}

static int try_connect(struct redis_link *l)
{
    char chan[KEY_LEN];
    l->cmd = redis_addr_connect(l->addr, (struct timeval){1, 0});
    l->sub = l->cmd ? redis_addr_connect(l->addr, (struct timeval){1, 0}) : NULL;
    /* Commands time out after 1 s (redis_addr_connect): a Redis that stops answering would otherwise block this
     * thread for good, and with it the daemon's exit, which joins it (reconnects follow instead). */
    if (!l->cmd || !l->sub) {
        disconnect(l);
        return -1;
    }
    appliance_key(l, "config", chan);
    if (login(l, l->cmd) || login(l, l->sub) || setup_command(l, l->sub, "SUBSCRIBE %s", chan)
        || setup_command(l, l->sub, "SUBSCRIBE %s", l->pacing_chan))
        return -1;
    if (read_desired(l))   /* a message missed while disconnected is never fatal */
        return -1;
    l->connect_error[0] = '\0';
    fprintf(stderr, "adwiser-dp: redis: connected to %s, following %s and %s\n", l->addr, chan, l->pacing_chan);
    if (l->cmd)
        fetch_pacing(l);
    return 0;
}

static void heartbeat(struct redis_link *l)
{
    pthread_mutex_lock(&l->mu);
    uint64_t v = l->active_version;
    pthread_mutex_unlock(&l->mu);
    json_t *j = json_pack("{s:I, s:I, s:I, s:I, s:s}", "ts_ns", (json_int_t)wall_ns(), "pid", (json_int_t)getpid(),
                          "started_ns", (json_int_t)l->started_ns, "version", (json_int_t)v, "backend", l->backend);
    set_json(l, "heartbeat", j, 3000);
}

/* XADD key MAXLEN ~ 20000 * f1 v1 f2 v2 ... from a flat JSON object (nested values as JSON text). Every field is
 * sent: the arrays are sized by the record (fixed arrays of 64 arguments and 32 formatted values dropped the pair
 * record's fields beyond the 29th without a word once it had grown to 30). */
static void xadd_record(struct redis_link *l, const char *key, json_t *rec)
{
    size_t fields = json_object_size(rec), cap = 6 + 2 * fields; /* a few dozen fields: small on the stack */
    const char *argv[cap];
    size_t argl[cap];
    char *owned[fields + 1];
    int argc = 0, nown = 0;
    argv[argc++] = "XADD";
    argv[argc++] = key;
    argv[argc++] = "MAXLEN";
    argv[argc++] = "~";
    argv[argc++] = "20000";
    argv[argc++] = "*";
    const char *k;
    json_t *v;
    json_object_foreach(rec, k, v) {
        if (strcmp(k, "type") == 0)
            continue;
        argv[argc++] = k;
        if (json_is_string(v))
            argv[argc++] = json_string_value(v);
        else if (json_is_null(v))
            argv[argc++] = "";
        else {
            owned[nown] = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            argv[argc++] = owned[nown] != NULL ? owned[nown] : "";
            nown++;
        }
    }
    for (int i = 0; i < argc; i++)
        argl[i] = strlen(argv[i]);
    redisAppendCommandArgv(l->cmd, argc, argv, argl);
    for (int i = 0; i < nown; i++)
        free(owned[i]);
}

static void free_items(struct tm_item *it)
{
    while (it) {
        struct tm_item *next = it->next;
        json_decref(it->frame);
        json_decref(it->pairs);
        free(it);
        it = next;
    }
}

/* Reads the replies to a frame's n records: 1 if Redis stored them all, 0 if it refused one (an error reply: out of
 * memory under maxmemory, a key of another type), -1 (and disconnects) when the connection broke first. */
static int read_replies(struct redis_link *l, size_t n)
{
    int stored = 1;
    for (size_t i = 0; i < n; i++) {
        void *reply;
        if (redisGetReply(l->cmd, &reply) != REDIS_OK) {
            fprintf(stderr, "adwiser-dp: redis: %s; reconnecting\n", l->cmd->errstr);
            disconnect(l);
            return -1;
        }
        redisReply *r = reply;
        if (r->type == REDIS_REPLY_ERROR) {
            if (!l->tm_refusal_logged)   /* once: Redis would say the same for every frame */
                fprintf(stderr, "adwiser-dp: redis: telemetry refused (counted lost): %s\n", r->str);
            l->tm_refusal_logged = 1;
            stored = 0;
        }
        freeReplyObject(reply);
    }
    return stored;
}

/* Reads back the replies to the records of the frames from `it` on, sent in that order. A frame is confirmed once the
 * replies to all its records are read, and lost if one of them is an error (Redis said it stored nothing of that
 * record). The frames left when the connection breaks are unconfirmed: a reply lost mid-send says nothing of its
 * command (never written, written and never run, or run with the reply on its way), so such a frame is neither lost
 * nor delivered. */
static void confirm_telemetry(struct redis_link *l, const struct tm_item *it)
{
    uint64_t refused = 0;
    for (; it; it = it->next) {
        int stored = read_replies(l, 1 + json_array_size(it->pairs));
        if (stored < 0)
            break;
        refused += !stored;
    }
    for (; it; it = it->next)
        l->tm_unconfirmed++;
    if (refused) {
        pthread_mutex_lock(&l->mu);
        l->tm_dropped += refused;
        pthread_mutex_unlock(&l->mu);
    }
}

static void flush_telemetry(struct redis_link *l)
{
    char fkey[KEY_LEN], pkey[KEY_LEN];
    appliance_key(l, "tm:frame", fkey);
    appliance_key(l, "tm:pair", pkey);
    pthread_mutex_lock(&l->mu);
    struct tm_item *head = l->head;
    l->head = l->tail = NULL;
    uint64_t frames = l->backlog;
    l->backlog = 0;
    if (!l->cmd)
        l->tm_dropped += frames;
    pthread_mutex_unlock(&l->mu);
    if (l->cmd) {
        for (const struct tm_item *it = head; it; it = it->next) {
            xadd_record(l, fkey, it->frame);
            size_t i;
            json_t *p;
            json_array_foreach(it->pairs, i, p)
                xadd_record(l, pkey, p);
        }
        confirm_telemetry(l, head);   /* pipelined: every reply read back */
    }
    free_items(head);
}

static void send_outcome(struct redis_link *l)
{
    char key[KEY_LEN];
    char error[sizeof(l->reject_error)];
    pthread_mutex_lock(&l->mu);
    int ack_due = l->ack_due;
    uint64_t acked = l->ack_version, refused = l->reject_version, refused_seq = l->reject_seq;
    memcpy(error, l->reject_error, sizeof(error));
    l->ack_due = 0;
    l->reject_version = 0;
    pthread_mutex_unlock(&l->mu);
    if (ack_due) {
        appliance_key(l, "active", key);
        int took = run(l, "SET %s %llu", key, (unsigned long long)acked);
        appliance_key(l, "ack", key);
        if (took > 0 && run(l, "PUBLISH %s %llu", key, (unsigned long long)acked) < 0)
            took = -1;
        if (took > 0) {
            fprintf(stderr, "adwiser-dp: redis: version %llu active%s\n", (unsigned long long)acked,
                    acked ? "" : " (the --config file, reloaded by SIGHUP)");
            ack_due = 0;
        }
    }
    if (refused && l->cmd && set_rejected(l, refused, refused_seq, error) > 0)
        refused = 0;
    if (!ack_due && !refused)
        return;
    /* The connection broke on them, or Redis refused to store them (-OOM): written again on the next pass, after
     * reconnecting if need be (unless a newer one came meanwhile), since reading `desired` then skips the version in
     * force and nothing else would set `active` or `rejected`. */
    pthread_mutex_lock(&l->mu);
    if (ack_due && !l->ack_due) {
        l->ack_due = 1;
        l->ack_version = acked;
    }
    if (refused && !l->reject_version) {
        l->reject_version = refused;
        l->reject_seq = refused_seq;
        memcpy(l->reject_error, error, sizeof(error));
    }
    pthread_mutex_unlock(&l->mu);
}

/* A version published on the config channel: the controller applies it, which ends an operator's override. */
static void follow_published(struct redis_link *l, uint64_t version)
{
    if (version == 0)
        return;
    pthread_mutex_lock(&l->mu);
    l->overridden = 0;
    pthread_mutex_unlock(&l->mu);
    fetch_version(l, version);
}

/* Reads pub/sub messages for up to POLL_MS. */
static void poll_subscription(struct redis_link *l)
{
    struct pollfd p = {.fd = l->sub->fd, .events = POLLIN};
    if (poll(&p, 1, POLL_MS) <= 0)
        return;
    if (redisBufferRead(l->sub) != REDIS_OK) {
        fprintf(stderr, "adwiser-dp: redis: subscription lost; reconnecting\n");
        disconnect(l);
        return;
    }
    void *reply;
    while (l->sub && redisGetReplyFromReader(l->sub, &reply) == REDIS_OK && reply) {
        redisReply *r = reply;
        if (r->type == REDIS_REPLY_ARRAY && r->elements == 3 && r->element[0]->type == REDIS_REPLY_STRING
            && strcmp(r->element[0]->str, "message") == 0 && r->element[1]->type == REDIS_REPLY_STRING
            && r->element[2]->type == REDIS_REPLY_STRING) {
            if (strcmp(r->element[1]->str, l->pacing_chan) == 0)
                fetch_pacing(l);   /* applied by the loop at once, not at a frame boundary */
            else
                follow_published(l, strtoull(r->element[2]->str, NULL, 10));
        }
        freeReplyObject(r);
    }
}

static void *redis_thread(void *arg)
{
    struct redis_link *l = arg;
    uint64_t next_beat = 0, next_connect = 0;
    for (;;) {
        pthread_mutex_lock(&l->mu);
        int stop = l->stop;
        pthread_mutex_unlock(&l->mu);
        uint64_t now = mono_ns();
        if (!l->cmd && now >= next_connect) {
            if (try_connect(l) != 0)
                next_connect = now + RECONNECT_NS;
        }
        if (l->cmd)
            send_outcome(l);
        if (l->cmd && now >= next_beat) {
            heartbeat(l);
            next_beat = now + HEARTBEAT_NS;
        }
        flush_telemetry(l);   /* without a connection the backlog is dropped */
        if (stop)
            break;
        if (l->sub)
            poll_subscription(l);
        else
            usleep(POLL_MS * 1000);
    }
    if (l->cmd) {
        char key[KEY_LEN];
        appliance_key(l, "heartbeat", key);
        run(l, "DEL %s", key);   /* stopped cleanly: no longer alive */
    }
    disconnect(l);
    return NULL;
}

struct redis_link *redis_link_start(const char *addr, const char *appliance_id, const char *backend, char *err,
                                    size_t errlen)
{
    if (redis_addr_check(addr, err, errlen) != 0)
        return NULL;
    struct redis_link *l = calloc(1, sizeof(*l));
    if (!l) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->started_ns = wall_ns();
    snprintf(l->addr, sizeof(l->addr), "%s", addr);
    snprintf(l->id, sizeof(l->id), "%s", appliance_id);
    snprintf(l->backend, sizeof(l->backend), "%s", backend);
    appliance_key(l, "pacing", l->pacing_chan);
    const char *password = getenv("ADWISER_REDIS_PASSWORD");
    l->password = strdup(password ? password : "");
    if (l->password == NULL) {
        snprintf(err, errlen, "out of memory");
        free(l);
        return NULL;
    }
    pthread_mutex_init(&l->mu, NULL);
    if (pthread_create(&l->thread, NULL, redis_thread, l) != 0) {
        snprintf(err, errlen, "cannot start the Redis thread: %s", strerror(errno));
        free(l->password);
        free(l);
        return NULL;
    }
    return l;
}

struct adw_config *redis_link_take_config(struct redis_link *l, uint64_t *version)
{
    pthread_mutex_lock(&l->mu);
    struct adw_config *c = l->ready;
    *version = l->ready_version;
    if (c) {
        l->taken_version = l->ready_version;
        l->taken_seq = l->ready_seq;
    }
    l->ready = NULL;
    pthread_mutex_unlock(&l->mu);
    return c;
}

struct pacing_table *redis_link_take_pacing(struct redis_link *l)
{
    pthread_mutex_lock(&l->mu);
    struct pacing_table *t = l->pacing_ready;
    l->pacing_ready = NULL;
    pthread_mutex_unlock(&l->mu);
    return t;
}

void redis_link_ack(struct redis_link *l, uint64_t version)
{
    pthread_mutex_lock(&l->mu);
    l->ack_due = 1;
    l->ack_version = version;
    l->active_version = version;
    l->overridden = 0;   /* a controller version runs again: `desired` is followed on reconnect */
    if (l->handed_version == version)
        l->handed_version = 0;
    if (l->taken_version == version)
        l->taken_version = 0;
    pthread_mutex_unlock(&l->mu);
}

void redis_link_file_runs(struct redis_link *l)
{
    pthread_mutex_lock(&l->mu);
    l->ack_due = 1;
    l->ack_version = 0;
    l->active_version = 0;
    l->overridden = 1;
    l->last_fetched = 0;   /* the controller publishing a version again, even the one that ran before, applies it */
    pthread_mutex_unlock(&l->mu);
}

void redis_link_reject(struct redis_link *l, uint64_t version, const char *error)
{
    pthread_mutex_lock(&l->mu);
    l->reject_version = version;
    /* The loop refuses the copy it took last; another copy of the version may wait in ready, still handed over. */
    l->reject_seq = l->taken_version == version ? l->taken_seq : l->handed_version == version ? l->handed_seq : 0;
    snprintf(l->reject_error, sizeof(l->reject_error), "%s", error);
    if (l->taken_version == version)
        l->taken_version = 0;
    if (l->handed_version == version && !(l->ready && l->ready_version == version))
        l->handed_version = 0;
    pthread_mutex_unlock(&l->mu);
}

void redis_link_publish_frame(struct redis_link *l, json_t *frame, json_t *pairs)
{
    struct tm_item *it = malloc(sizeof(*it));
    if (!it) {
        json_decref(frame);
        json_decref(pairs);
        pthread_mutex_lock(&l->mu);
        l->tm_dropped++;
        pthread_mutex_unlock(&l->mu);
        return;
    }
    it->frame = frame;
    it->pairs = pairs;
    it->next = NULL;
    pthread_mutex_lock(&l->mu);
    if (l->backlog == BACKLOG_MAX) {
        struct tm_item *old = l->head;
        l->head = old->next;
        if (!l->head)
            l->tail = NULL;
        l->backlog--;
        l->tm_dropped++;
        json_decref(old->frame);
        json_decref(old->pairs);
        free(old);
    }
    if (l->tail)
        l->tail->next = it;
    else
        l->head = it;
    l->tail = it;
    l->backlog++;
    pthread_mutex_unlock(&l->mu);
}

struct redis_link_tm_losses redis_link_stop(struct redis_link *l)
{
    pthread_mutex_lock(&l->mu);
    l->stop = 1;
    pthread_mutex_unlock(&l->mu);
    pthread_join(l->thread, NULL);
    /* After the join: the thread's last pass (above) may have dropped or sent some. */
    struct redis_link_tm_losses out = {.lost = l->tm_dropped, .unconfirmed = l->tm_unconfirmed};
    free(l->ready);
    pacing_table_free(l->pacing_ready);
    pthread_mutex_destroy(&l->mu);
    free(l->password);
    free(l);
    return out;
}
