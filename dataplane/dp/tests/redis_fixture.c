/* A redis-server per test for the dataplane's tests; see redis_fixture.h. */
#include "redis_fixture.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Starts redis-server on s->sock in s->dir (loading its dump.rdb, if any, each key key_load_delay_us late) and
 * connects s->c; -1 if it did not start. */
static int spawn(struct server *s, unsigned key_load_delay_us)
{
    char delay[16];
    snprintf(delay, sizeof(delay), "%u", key_load_delay_us);
    s->pid = fork();
    if (s->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);   /* a test that crashes leaves no redis-server behind */
        if (!freopen("/dev/null", "w", stdout))
            _exit(126);
        /* While loading, Redis answers between keys every 1 KiB read: -LOADING to most commands. */
        execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", s->sock, "--save", "", "--appendonly",
               "no", "--dir", s->dir, "--key-load-delay", delay, "--loading-process-events-interval-bytes", "1024",
               (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 100 && !s->c; i++) {
        struct stat st;
        if (stat(s->sock, &st) == 0) {
            s->c = redisConnectUnix(s->sock);
            if (s->c && s->c->err) {
                redisFree(s->c);
                s->c = NULL;
            }
        }
        if (!s->c)
            sleep_ms(50);
    }
    return s->c ? 0 : -1;
}

int start_server(void **state)
{
    struct server *s = calloc(1, sizeof(*s));
    snprintf(s->dir, sizeof(s->dir), "/tmp/adwrlt.XXXXXX");
    if (!mkdtemp(s->dir))
        return -1;
    snprintf(s->sock, sizeof(s->sock), "%s/redis.sock", s->dir);
    snprintf(s->addr, sizeof(s->addr), "unix:%s", s->sock);
    *state = s;
    return spawn(s, 0);
}

void restart_server_loading_slowly(struct server *s, unsigned key_load_delay_us)
{
    command(s, "SAVE");
    redisFree(s->c);
    s->c = NULL;
    kill(s->pid, SIGTERM);
    waitpid(s->pid, NULL, 0);
    assert_int_equal(spawn(s, key_load_delay_us), 0);
}

int stop_server(void **state)
{
    struct server *s = *state;
    if (s->c)
        redisFree(s->c);
    kill(s->pid, SIGCONT);
    kill(s->pid, SIGTERM);
    waitpid(s->pid, NULL, 0);
    unlink(s->sock);
    char dump[sizeof(s->dir) + 16];
    snprintf(dump, sizeof(dump), "%s/dump.rdb", s->dir);   /* left by restart_server_loading_slowly's SAVE */
    unlink(dump);
    rmdir(s->dir);
    free(s);
    return 0;
}

char *get(struct server *s, const char *key)
{
    redisReply *r = redisCommand(s->c, "GET %s", key);
    char *v = r && r->type == REDIS_REPLY_STRING ? strdup(r->str) : NULL;
    freeReplyObject(r);
    return v;
}

char *wait_get_within(struct server *s, const char *key, unsigned ms)
{
    char *v = NULL;
    for (unsigned i = 0; i < ms / 10 && !(v = get(s, key)); i++)
        sleep_ms(10);
    return v;
}

char *wait_get(struct server *s, const char *key)
{
    return wait_get_within(s, key, WAIT_MS);
}

void command(struct server *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(s->c, fmt, ap);
    va_end(ap);
    assert_non_null(r);
    assert_int_not_equal(r->type, REDIS_REPLY_ERROR);
    freeReplyObject(r);
}
