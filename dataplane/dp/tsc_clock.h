/*
 * TSC to nanoseconds, with the TSC rate measured against CLOCK_MONOTONIC
 * rather than taken from the CPU's nominal frequency.  On a VM the nominal
 * rate DPDK reports (rte_get_tsc_hz: CPUID's 2.6 GHz here) was 0.15 % off
 * the real TSC rate (2.5961 GHz measured): slices stretched to 20.03 ms and
 * the telemetry's Unix times drifted 1.5 ms per second away from every other
 * clock of the testbed (the emulator's ground truth, iperf3).
 */
#ifndef ADW_DP_TSC_CLOCK_H
#define ADW_DP_TSC_CLOCK_H

#include <stdint.h>

struct tsc_clock {
    uint64_t tsc0;           /* TSC at the origin */
    uint64_t mult;           /* ns per tick, 32.32 fixed point */
};

/* From two simultaneous (tsc, ns) readings of the TSC and the reference clock; 0, or -1 if b is not after a. */
int tsc_clock_calibrate(struct tsc_clock *c, uint64_t tsc_a, uint64_t ns_a, uint64_t tsc_b, uint64_t ns_b);
/* ns since the origin (tsc_a) for a TSC reading. */
uint64_t tsc_clock_ns(const struct tsc_clock *c, uint64_t tsc);

#endif
