/*
 * agent_options.h — the command line of adwiser-sta-agent (agent/README.md),
 * checked whole before anything starts: a bad value is refused with the
 * option and what is expected named.
 */
#ifndef ADW_AGENT_OPTIONS_H
#define ADW_AGENT_OPTIONS_H

struct agent_options {
    const char *iface, *pair, *model, *redis, *appliance, *log, *stats, *pidfile, *auth_file;
    char auth_user[128], auth_pass[256];     /* from --redis-auth: a Redis ACL user allowed XADD on tm:sta only */
    unsigned period_ms;                      /* report period, ms */
    double duration_s;                       /* exit after this long, s; 0 = until SIGTERM/SIGINT */
};

/* 0, or -1 after printing what is wrong; --help prints the usage and exits. */
int agent_options_parse(int argc, char **argv, struct agent_options *o);

#endif
