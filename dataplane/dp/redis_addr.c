/* redis_addr.c — parse and connect a --redis address; see redis_addr.h. */
#include "redis_addr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The port: 1..65535 in decimal digits and nothing else (atoi stopped at the first non-digit, so "6379x" was 6379). */
static int port_ok(const char *p)
{
    if (*p < '1' || *p > '9' || strlen(p) > 5 || strspn(p, "0123456789") != strlen(p))
        return 0;
    return atoi(p) <= 65535;
}

int redis_addr_check(const char *addr, char *err, size_t errlen)
{
    int unix_sock = strncmp(addr, "unix:", 5) == 0 && addr[5] != '\0';
    const char *colon = strrchr(addr, ':');
    if (!unix_sock && (!colon || colon == addr || !port_ok(colon + 1) || (size_t)(colon - addr) >= 255)) {
        snprintf(err, errlen, "--redis %s: expected unix:/path or host:port", addr);
        return -1;
    }
    return 0;
}

redisContext *redis_addr_connect(const char *addr, struct timeval timeout)
{
    redisContext *c;
    if (strncmp(addr, "unix:", 5) == 0)
        c = redisConnectUnixWithTimeout(addr + 5, timeout);
    else {
        char host[256];
        const char *colon = strrchr(addr, ':');
        size_t hl = (size_t)(colon - addr);
        memcpy(host, addr, hl);
        host[hl] = '\0';
        c = redisConnectWithTimeout(host, atoi(colon + 1), timeout);
    }
    /* Commands time out too: a Redis that accepts but stops answering (stopped, overloaded, a half-open TCP link)
     * would otherwise block the caller in read() for good, deaf to SIGTERM, since hiredis retries on EINTR. */
    if (c && (c->err || redisSetTimeout(c, timeout) != REDIS_OK)) {
        redisFree(c);
        return NULL;
    }
    return c;
}
