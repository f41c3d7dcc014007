/*
 * How long the NFQUEUE loop may block in ppoll: until the core's next event
 * less a spin margin, because a timeout wakes after the time asked, never
 * before (with 1 ns timer slack p99 14 µs, p99.9 up to 1 ms late; SPEC §7),
 * so a loop that sleeps until the slice start itself releases every slice
 * late.  Within the margin the loop polls without blocking.
 */
#ifndef ADW_DP_NFQ_WAIT_H
#define ADW_DP_NFQ_WAIT_H

#include <stdint.h>

#define NFQ_SPIN_MARGIN_NS 30000u        /* wake this long before the next event, ns (as the DPDK loop) */
#define NFQ_HOUSEKEEPING_NS 100000000u   /* block at most this long: telemetry, reloads, ns */

/* ppoll timeout in ns at now_ns for the core's next event due_ns (UINT64_MAX = none); 0 = do not block. */
uint64_t nfq_poll_timeout_ns(uint64_t now_ns, uint64_t due_ns);

#endif
