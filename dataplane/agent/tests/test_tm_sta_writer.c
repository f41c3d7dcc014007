/* Tests of adwiser-sta-agent's reports to Redis (agent/tm_sta_writer.c), against a real redis-server started per
 * test on a unix socket (dp/tests/redis_fixture.h): a Redis that goes away or refuses never stops the agent, and
 * what it refuses is said. */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "redis_fixture.h"
#include "tm_sta_writer.h"

#define STREAM "adwiser:appliance:lab:tm:sta"

static struct agent_options options_for(const char *redis)
{
    struct agent_options o;
    memset(&o, 0, sizeof(o));
    o.iface = "lo";
    o.pair = "ap1/sta1";
    o.model = "m.json";
    o.redis = redis;
    o.appliance = "lab";
    o.period_ms = 100;
    return o;
}

static long long stream_len(struct server *s)
{
    redisReply *r = redisCommand(s->c, "XLEN %s", STREAM);
    assert_non_null(r);
    long long n = r->integer;
    freeReplyObject(r);
    return n;
}

/* Redis closed the agent's connection (restarted, CLIENT KILL, its timeout): the next write to that unix socket
 * raised SIGPIPE, whose default action ended the agent without a word, its last period and --stats lost. Run in a
 * child, so that the test sees how it ended. */
static void test_connection_redis_closed_costs_one_report_not_the_agent(void **state)
{
    struct server *s = *state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct agent_options o = options_for(s->addr);
        struct tm_sta_writer w;
        tm_sta_writer_init(&w, &o);
        tm_sta_writer_report(&w, 12.0, 3, 36);
        redisContext *c = redisConnectUnix(s->sock);
        redisReply *r = c && !c->err ? redisCommand(c, "CLIENT KILL TYPE normal SKIPME yes") : NULL;
        freeReplyObject(r);
        redisFree(c);
        sleep_ms(50);
        tm_sta_writer_report(&w, 12.0, 3, 36);   /* the write to the closed connection */
        tm_sta_writer_report(&w, 12.0, 3, 36);   /* a new connection */
        tm_sta_writer_close(&w);
        _exit(w.reports == 2 && w.errors == 1 ? 0 : 3);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        print_message("the writer died of signal %d\n", WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    redisFree(s->c);   /* the CLIENT KILL closed the test's own connection too */
    s->c = redisConnectUnix(s->sock);
    assert_true(s->c && !s->c->err);
    assert_int_equal(stream_len(s), 2);
}

/* Runs fn(w) with stderr going to a file; returns what it printed (caller frees). */
static char *stderr_of(void (*fn)(struct tm_sta_writer *), struct tm_sta_writer *w)
{
    char path[] = "/tmp/adw-agent-stderr-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    fn(w);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char *text = calloc(1, 4096);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    assert_true(read(fd, text, 4095) >= 0);
    close(fd);
    unlink(path);
    return text;
}

static void report_once(struct tm_sta_writer *w)
{
    tm_sta_writer_report(w, 12.0, 3, 36);
}

/* "A refused AUTH or XADD is printed once" (agent/README.md): it was printed only if nothing had failed before, so
 * an agent started while Redis was down (the usual order at boot) never said that its password was refused. */
static void test_refused_auth_is_said_even_after_redis_was_unreachable(void **state)
{
    struct server *s = *state;
    char gone[sizeof(s->addr) + 8];
    snprintf(gone, sizeof(gone), "%s.gone", s->addr);
    struct agent_options o = options_for(gone);
    o.auth_file = "auth";   /* read already: only the user and password below are used */
    snprintf(o.auth_user, sizeof(o.auth_user), "sta-agent");
    snprintf(o.auth_pass, sizeof(o.auth_pass), "not-the-password");
    struct tm_sta_writer w;
    tm_sta_writer_init(&w, &o);
    free(stderr_of(report_once, &w));   /* Redis unreachable */
    assert_int_equal(w.errors, 1);
    o.redis = s->addr;                 /* Redis is up now, and refuses the password */
    char *said = stderr_of(report_once, &w);
    print_message("said: %s", said);
    assert_non_null(strstr(said, "AUTH sta-agent"));
    free(said);
    said = stderr_of(report_once, &w);  /* once */
    assert_string_equal(said, "");
    free(said);
    assert_int_equal(w.errors, 3);
    assert_int_equal(w.reports, 0);
    tm_sta_writer_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_connection_redis_closed_costs_one_report_not_the_agent, start_server,
                                        stop_server),
        cmocka_unit_test_setup_teardown(test_refused_auth_is_said_even_after_redis_was_unreachable, start_server,
                                        stop_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
