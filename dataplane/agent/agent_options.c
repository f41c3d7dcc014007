/* agent_options.c — adwiser-sta-agent's command line; see agent_options.h. */
#include "agent_options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "redis_addr.h"

#define AGENT_DURATION_MAX_S 31536000.0 /* a year, s */
#define NAME_MAX_CHARS 64                /* of an appliance, AP or STA name */

/* The first n characters of s are a name as the controller has them (controller/adwiser_controller/models.py
 * ID_PATTERN and PAIR_PATTERN): a letter or digit, then letters, digits, '_', '.', '-', at most NAME_MAX_CHARS.
 * The controller matches tm:sta's key and `pair` exactly, so an entry under any other name is never read. */
static bool controller_name(const char *s, size_t n)
{
    if (n == 0 || n > NAME_MAX_CHARS || !isalnum((unsigned char)s[0]))
        return false;
    for (size_t k = 1; k < n; k++)
        if (!isalnum((unsigned char)s[k]) && !strchr("_.-", s[k]))
            return false;
    return true;
}

static bool pair_name(const char *pair)
{
    const char *slash = strchr(pair, '/');
    return slash != NULL && controller_name(pair, (size_t)(slash - pair)) &&
           controller_name(slash + 1, strlen(slash + 1));
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: adwiser-sta-agent --iface IF --pair AP/STA --model FILE\n"
            "                         [--redis ADDR --appliance ID [--redis-auth FILE]]\n"
            "                         [--period-ms N] [--log FILE] [--stats FILE] [--duration S] [--pidfile FILE]\n"
            "  --iface IF        the STA's WLAN interface (root or CAP_NET_RAW: an AF_PACKET socket)\n"
            "  --pair AP/STA     the pair's name in the controller's topology, e.g. ap1/sta1\n"
            "  --model FILE      the frame-boundary classifier (configs/sta_frame_model.json)\n"
            "  --redis ADDR      unix:/path or host:port; with --appliance ID, XADD ...:tm:sta every period\n"
            "  --redis-auth FILE its first line: \"USER PASSWORD\" of a Redis ACL user (see agent/README.md)\n"
            "  --period-ms N     report period (default 100)\n"
            "  --log FILE        one line per packet: receive time (Unix ns) and 1 if first of an A-MPDU\n"
            "  --stats FILE      counters as JSON at exit\n"
            "  --duration S      exit by itself after S seconds (else SIGTERM/SIGINT)\n");
}

/* --redis-auth FILE: "USER PASSWORD" on its first line (a file, so the password is not on the command line): the user,
 * one space (or tab), and the rest of the line up to its end (\n or \r\n) is the password, spaces included (ansible's redis role
 * allows them, and writes such a password into redis.conf whole). Each is taken whole or refused: read with field
 * widths, a long user lost its tail to the password. */
static int read_auth(struct agent_options *o)
{
    FILE *f = fopen(o->auth_file, "r");
    if (!f) {
        fprintf(stderr, "adwiser-sta-agent: --redis-auth %s: %s\n", o->auth_file, strerror(errno));
        return -1;
    }
    char line[512] = "";
    if (!fgets(line, sizeof(line), f))
        line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\r')
        line[--len] = '\0';
    char *user = line, *space = line + strcspn(line, " \t"); /* no tab in a password: ansible refuses them */
    char *pass = *space ? space + 1 : NULL;
    *space = '\0';
    if (!pass || *pass == '\0' || *user == '\0') {
        fprintf(stderr, "adwiser-sta-agent: --redis-auth %s: expected \"USER PASSWORD\" on the first line\n",
                o->auth_file);
        return -1;
    }
    if (strlen(user) >= sizeof(o->auth_user) || strlen(pass) >= sizeof(o->auth_pass)) {
        fprintf(stderr, "adwiser-sta-agent: --redis-auth %s: at most %zu characters of user and %zu of password\n",
                o->auth_file, sizeof(o->auth_user) - 1, sizeof(o->auth_pass) - 1);
        return -1;
    }
    strcpy(o->auth_user, user);
    strcpy(o->auth_pass, pass);
    return 0;
}

int agent_options_parse(int argc, char **argv, struct agent_options *o)
{
    static const struct option longs[] = {
        {"iface", required_argument, 0, 'i'},   {"pair", required_argument, 0, 'p'},
        {"model", required_argument, 0, 'm'},   {"redis", required_argument, 0, 'r'},
        {"appliance", required_argument, 0, 'a'}, {"period-ms", required_argument, 0, 'P'},
        {"log", required_argument, 0, 'l'},     {"stats", required_argument, 0, 's'},
        {"duration", required_argument, 0, 'd'}, {"pidfile", required_argument, 0, 'f'},
        {"redis-auth", required_argument, 0, 'A'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    memset(o, 0, sizeof(*o));
    o->period_ms = 100;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
        switch (c) {
        case 'i': o->iface = optarg; break;
        case 'p': o->pair = optarg; break;
        case 'm': o->model = optarg; break;
        case 'r': o->redis = optarg; break;
        case 'a': o->appliance = optarg; break;
        case 'l': o->log = optarg; break;
        case 's': o->stats = optarg; break;
        case 'f': o->pidfile = optarg; break;
        case 'A': o->auth_file = optarg; break;
        case 'P': {
            long v = strtol(optarg, &end, 10);
            if (*end != '\0' || v < 10 || v > 60000) {
                fprintf(stderr, "adwiser-sta-agent: --period-ms %s: expected 10..60000\n", optarg);
                return -1;
            }
            o->period_ms = (unsigned)v;
            break;
        }
        case 'd':
            o->duration_s = strtod(optarg, &end);
            /* bounded: the end time is t0 + duration in uint64_t ns (inf, or 2e10 s, converted to 0 and the
             * agent exited at once, saying nothing) */
            if (*end != '\0' || !(o->duration_s > 0 && o->duration_s <= AGENT_DURATION_MAX_S)) {
                fprintf(stderr, "adwiser-sta-agent: --duration %s: expected seconds in (0, %.0f]\n", optarg,
                        AGENT_DURATION_MAX_S);
                return -1;
            }
            break;
        case 'h': usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    /* getopt moves the words that are no option's value to the end: each is a mistake (a stray space in a value),
     * and running on what is left would run with other values than the ones meant. */
    if (optind < argc) {
        fprintf(stderr, "adwiser-sta-agent: %s: not an option or its value\n", argv[optind]);
        return -1;
    }
    const char *missing = !o->iface ? "--iface" : !o->pair ? "--pair" : !o->model ? "--model" : NULL;
    if (missing) {
        fprintf(stderr, "adwiser-sta-agent: %s is required\n", missing);
        return -1;
    }
    if (!pair_name(o->pair)) {
        fprintf(stderr, "adwiser-sta-agent: --pair %s: expected AP/STA, each a letter or digit, then letters, "
                        "digits, '_', '.', '-' (at most %d)\n", o->pair, NAME_MAX_CHARS);
        return -1;
    }
    if ((o->redis == NULL) != (o->appliance == NULL)) {
        fprintf(stderr, "adwiser-sta-agent: --redis and --appliance go together\n");
        return -1;
    }
    if (o->appliance && !controller_name(o->appliance, strlen(o->appliance))) {
        fprintf(stderr, "adwiser-sta-agent: --appliance %s: expected a letter or digit, then letters, digits, '_', "
                        "'.', '-' (at most %d)\n", o->appliance, NAME_MAX_CHARS);
        return -1;
    }
    if (o->auth_file && !o->redis) {
        fprintf(stderr, "adwiser-sta-agent: --redis-auth needs --redis\n");
        return -1;
    }
    if (o->auth_file && read_auth(o) != 0)
        return -1;
    char err[256];
    if (o->redis && redis_addr_check(o->redis, err, sizeof(err)) != 0) {
        fprintf(stderr, "adwiser-sta-agent: %s\n", err);
        return -1;
    }
    return 0;
}
