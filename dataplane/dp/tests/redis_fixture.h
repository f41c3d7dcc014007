/*
 * redis_fixture.h — what the dataplane tests that need Redis share: a real redis-server started per test on a unix
 * socket in a temporary directory (a cmocka fixture) and stopped by its PID, and the test's own connection to read
 * what the code under test wrote. Needs redis-server on PATH.
 */
#ifndef ADW_DP_TEST_REDIS_FIXTURE_H
#define ADW_DP_TEST_REDIS_FIXTURE_H

#include <sys/types.h>

#include <hiredis/hiredis.h>

#define WAIT_MS 3000   /* longest wait for the code under test to write something, ms */

struct server {
    char dir[64];
    char sock[128];
    char addr[160];      /* "unix:<sock>", as --redis takes it */
    pid_t pid;
    redisContext *c;     /* the test's own connection */
};

/* cmocka setup: *state = a struct server whose redis-server answers on s->c; -1 if it did not start. */
int start_server(void **state);
/* cmocka teardown: stops the server (also one a test left stopped with SIGSTOP) and removes its directory. */
int stop_server(void **state);

/* Saves the data set, stops the server and starts it again on the same socket, loading each key key_load_delay_us
 * late: Redis answers -LOADING meanwhile, as after a restart with a large AOF. */
void restart_server_loading_slowly(struct server *s, unsigned key_load_delay_us);

void sleep_ms(unsigned ms);
/* The value of key as a string (caller frees), or NULL. */
char *get(struct server *s, const char *key);
/* The value of key once it has been written (caller frees), or NULL if it was not within ms. */
char *wait_get_within(struct server *s, const char *key, unsigned ms);
/* wait_get_within WAIT_MS. */
char *wait_get(struct server *s, const char *key);
/* Runs a command on the test's connection; fails the test on an error reply. */
void command(struct server *s, const char *fmt, ...);

#endif
