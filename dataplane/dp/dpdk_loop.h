/*
 * The DPDK backend's run-to-completion loop: burst RX from every port, one
 * adw_sched_enqueue_burst per RX burst, release what the core has due, burst
 * TX (what a full TX ring refuses waits in the port's backlog, dpdk_tx_backlog.h,
 * handed over first in later iterations), idle back-off; on SIGTERM the frames
 * waiting in the RX rings go through the core (a ring's descriptors per port at
 * most), then every held packet is flushed out (released, not dropped; a full
 * TX ring and its backlog waited on while its peer takes frames) before the
 * ports stop.  Time is the TSC converted to ns.
 */
#ifndef ADW_DP_DPDK_LOOP_H
#define ADW_DP_DPDK_LOOP_H

#include "dp_engine.h"
#include "dpdk_ports.h"

struct rte_mempool;

/* Returns 0 after a clean shutdown.  pool: where copies of flooded frames for tagged ports come from. */
int dpdk_loop_run(struct dp_engine *e, const struct dpdk_port_map *m, struct rte_mempool *pool);

/* Measures the TSC rate against CLOCK_MONOTONIC over 100 ms (see tsc_clock.h) and sets the clock's origin.
 * Start-up work: call it once after the EAL is up, before the first dpdk_clock_ns. */
void dpdk_clock_init(void);

/* Nanoseconds since dpdk_clock_init, from the TSC at the measured rate. */
uint64_t dpdk_clock_ns(void);

#endif
