/*
 * The NFQUEUE backend: the same core behind a Linux router in the appliance
 * namespace (this kernel has no br_netfilter and nftables' bridge family
 * cannot queue, so the namespace routes with proxy ARP; see README.md).
 * Forwarded packets reach us through `iptables -A FORWARD -j NFQUEUE
 * --queue-num N --queue-bypass`; a packet the core holds is a verdict not
 * yet given, released by NF_ACCEPT at its slice start.  On SIGTERM every
 * held packet gets NF_ACCEPT, then so does every packet queued but not yet
 * read, before the queue is unbound (the unbind drops what is still queued).
 */
#ifndef ADW_DP_NFQ_LOOP_H
#define ADW_DP_NFQ_LOOP_H

#include <stdint.h>

#include "dp_engine.h"

/*
 * Runs until SIGTERM.  ifnames[i] is the interface of scheduler port i
 * (0 = uplink, k = AP k-1); roles[i] names it in messages.  pid_path is
 * written once the queue is bound.
 */
int nfq_loop_run(struct dp_engine *e, const char *const *roles, const char *const *ifnames, unsigned n_ports,
                 const char *pid_path);

/* CLOCK_MONOTONIC in ns. */
uint64_t nfq_clock_ns(void);

#endif
