/* redis_addr.c — parse and connect a --redis address; see redis_addr.h. */
#include "redis_addr.h"

#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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

/* The host part of a checked "host:port" into host[256] (redis_addr_check bounds it); returns the port's text. */
static const char *split_host(const char *addr, char host[256])
{
    const char *colon = strrchr(addr, ':');
    size_t hl = (size_t)(colon - addr);
    memcpy(host, addr, hl);
    host[hl] = '\0';
    return colon + 1;
}

int redis_addr_resolve(const char *addr, char *out, size_t outlen, char *err, size_t errlen)
{
    if (strncmp(addr, "unix:", 5) == 0) {
        if ((size_t)snprintf(out, outlen, "%s", addr) >= outlen) {
            snprintf(err, errlen, "--redis %s: the path is too long", addr);
            return -1;
        }
        return 0;
    }
    char host[256], numeric[NI_MAXHOST];
    const char *port = split_host(addr, host);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    int rc = getaddrinfo(host, NULL, &hints, &ai);
    if (rc == 0)
        rc = getnameinfo(ai->ai_addr, ai->ai_addrlen, numeric, sizeof(numeric), NULL, 0, NI_NUMERICHOST);
    if (ai)
        freeaddrinfo(ai);
    if (rc != 0) {
        snprintf(err, errlen, "--redis %s: host %s: %s", addr, host, gai_strerror(rc));
        return -1;
    }
    if ((size_t)snprintf(out, outlen, "%s:%s", numeric, port) >= outlen) {
        snprintf(err, errlen, "--redis %s: the address is too long", addr);
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
        const char *port = split_host(addr, host);
        c = redisConnectWithTimeout(host, atoi(port), timeout);
    }
    /* Commands time out too: a Redis that accepts but stops answering (stopped, overloaded, a half-open TCP link)
     * would otherwise block the caller in read() for good, deaf to SIGTERM, since hiredis retries on EINTR. */
    if (c && (c->err || redisSetTimeout(c, timeout) != REDIS_OK)) {
        redisFree(c);
        return NULL;
    }
    return c;
}
