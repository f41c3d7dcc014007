/*
 * redis_addr.h — the `--redis ADDR` of the dataplane's programs (adwiser-dp,
 * adwiser-sta-agent): "unix:/path/to.sock" or "host:port", checked when the
 * command line is read and connected with a timeout.
 */
#ifndef ADW_DP_REDIS_ADDR_H
#define ADW_DP_REDIS_ADDR_H

#include <stddef.h>
#include <sys/time.h>

#include <hiredis/hiredis.h>

/* 0 if addr is well-formed, else -1 with err saying what is expected. */
int redis_addr_check(const char *addr, char *err, size_t errlen);
/* A connected context, or NULL if Redis cannot be reached within timeout (addr checked before). Its commands time
 * out after the same timeout (the reply is then NULL and the context in error). */
redisContext *redis_addr_connect(const char *addr, struct timeval timeout);

#endif
