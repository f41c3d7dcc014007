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
/*
 * addr with its host name looked up once, as "address:port" in out (a unix: address is copied): 0, or -1 with err
 * naming the host.  hiredis looks the name up at every connect, and the lookup blocks for as long as the resolver
 * takes whatever the connect timeout says; a program that reconnects from its packet loop (adwiser-sta-agent)
 * resolves at start and connects to the address.
 */
int redis_addr_resolve(const char *addr, char *out, size_t outlen, char *err, size_t errlen);
/* A connected context, or NULL if Redis cannot be reached within timeout (addr checked before). Its commands time
 * out after the same timeout (the reply is then NULL and the context in error). */
redisContext *redis_addr_connect(const char *addr, struct timeval timeout);

#endif
