/*
 * tm_sta_writer.h — where adwiser-sta-agent's reports go: one
 * `XADD adwiser:appliance:<id>:tm:sta MAXLEN ~ 20000 * pair mpdus frames mpdus_ok`
 * per period (controller/REDIS.md), as the ACL user of --redis-auth if given.
 * Redis unreachable or refusing never stops the agent: the connection is
 * retried at the next report, the failure printed once and counted.
 */
#ifndef ADW_AGENT_TM_STA_WRITER_H
#define ADW_AGENT_TM_STA_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

#include "agent_options.h"

struct tm_sta_writer {
    const struct agent_options *o;
    redisContext *rc;                        /* NULL until connected, and after a broken connection */
    uint64_t reports;                        /* entries written */
    uint64_t errors;                         /* reports lost: Redis unreachable, AUTH or XADD refused */
    /* Each kind of refusal is printed the first time it happens, whatever failed before it (an agent is usually
     * started before Redis is up): every report retries, so it would repeat every period. */
    bool auth_said, xadd_said;
};

/* Also ignores SIGPIPE for the process: a write to a connection Redis closed fails (one report lost, a new
 * connection at the next), and does not end the agent. */
void tm_sta_writer_init(struct tm_sta_writer *w, const struct agent_options *o);
/* One entry: mean packets per A-MPDU, A-MPDUs and packets of the period. */
void tm_sta_writer_report(struct tm_sta_writer *w, double mean, uint32_t frames, uint64_t pkts);
void tm_sta_writer_close(struct tm_sta_writer *w);

#endif
