/* tm_sta_writer.c — adwiser-sta-agent's reports to Redis; see tm_sta_writer.h. */
#include "tm_sta_writer.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "redis_addr.h"

#define STREAM_MAXLEN 20000            /* entries kept in tm:sta (REDIS.md) */

void tm_sta_writer_init(struct tm_sta_writer *w, const struct agent_options *o)
{
    w->o = o;
    w->rc = NULL;
    w->reports = w->errors = 0;
    w->auth_said = w->xadd_said = false;
    /* A write to a connection Redis has closed (restarted, CLIENT KILL, its idle timeout) must fail and be retried
     * like any other lost report: on a unix socket it raised SIGPIPE, whose default action ended the agent. */
    signal(SIGPIPE, SIG_IGN);
}

void tm_sta_writer_close(struct tm_sta_writer *w)
{
    if (w->rc)
        redisFree(w->rc);
    w->rc = NULL;
}

/* Connects, and logs in as the --redis-auth user if there is one; NULL if either fails. */
static redisContext *connect_as_agent(struct tm_sta_writer *w)
{
    const struct agent_options *o = w->o;
    redisContext *rc = redis_addr_connect(o->redis, (struct timeval){0, 200000});
    if (rc == NULL || !o->auth_file)
        return rc;
    redisReply *a = redisCommand(rc, "AUTH %s %s", o->auth_user, o->auth_pass);
    bool ok = a != NULL && a->type != REDIS_REPLY_ERROR;
    if (!ok && !w->auth_said) {
        fprintf(stderr, "adwiser-sta-agent: AUTH %s: %s\n", o->auth_user, a ? a->str : rc->errstr);
        w->auth_said = true;
    }
    if (a)
        freeReplyObject(a);
    if (!ok) {
        redisFree(rc);
        return NULL;
    }
    return rc;
}

/* XADD to tm:sta, reconnecting first if the last attempt failed. */
void tm_sta_writer_report(struct tm_sta_writer *w, double mean, uint32_t frames, uint64_t pkts)
{
    const struct agent_options *o = w->o;
    if (w->rc == NULL)
        w->rc = connect_as_agent(w);
    if (w->rc == NULL) {
        w->errors++;
        return;
    }
    char key[192], mpdus[32], nframes[16], ok[24];
    snprintf(key, sizeof(key), "adwiser:appliance:%s:tm:sta", o->appliance);
    snprintf(mpdus, sizeof(mpdus), "%.3f", mean);
    snprintf(nframes, sizeof(nframes), "%u", frames);
    snprintf(ok, sizeof(ok), "%llu", (unsigned long long)pkts);
    redisReply *r = redisCommand(w->rc, "XADD %s MAXLEN ~ %d * pair %s mpdus %s frames %s mpdus_ok %s", key,
                                 STREAM_MAXLEN, o->pair, mpdus, nframes, ok);
    if (r == NULL || r->type == REDIS_REPLY_ERROR) {
        if (!w->xadd_said) { /* a refused XADD (an ACL without it) repeats every period */
            fprintf(stderr, "adwiser-sta-agent: XADD %s: %s\n", key, r ? r->str : w->rc->errstr);
            w->xadd_said = true;
        }
        w->errors++;
        if (r == NULL) { /* the connection broke: a new one next period */
            redisFree(w->rc);
            w->rc = NULL;
        }
    } else {
        w->reports++;
    }
    if (r)
        freeReplyObject(r);
}
