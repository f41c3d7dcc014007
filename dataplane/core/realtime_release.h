/*
 * realtime_release.h — when real-time packets go (at slice starts and between them), and how long a batch to
 * a conflicting pair waits behind them (004 §6.4, SPEC §3.4; the why is in realtime_release.c). Pure: time is
 * passed in.
 */
#ifndef ADW_CORE_REALTIME_RELEASE_H
#define ADW_CORE_REALTIME_RELEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "sched_internal.h"

/* At the start of a slice (start_ns, duration_ns; handled at now_ns): every pair's real-time packets go, except
 * those of a pair with a conflicting downlink drain open, which are held, until policies.realtime.
 * hold_max_fraction of the slice has passed at the latest. */
void adw_rt_release_at_slice_start(struct adw_sched *s, uint64_t start_ns, uint64_t duration_ns, uint64_t now_ns);
/* Held real-time packets whose conflicting drains have ended go (all of them once the hold ran out, or force). */
void adw_rt_release_held(struct adw_sched *s, uint64_t now_ns, bool force);
/* Between slice starts (a real-time packet arrived, a drain ended): real-time packets of every pair with no
 * conflicting downlink drain open go; with a hold running, as adw_rt_release_held. */
void adw_rt_release_when_clear(struct adw_sched *s, uint64_t now_ns);
/* True while real-time packets are held. */
bool adw_rt_holding(const struct adw_sched *s);
/* The earliest time after now_ns at which a drain that pending real-time packets wait for counts as over, of those
 * nothing ends but time (the pairs a new version dropped: adw_gone_drains_silent_at); UINT64_MAX if none. The end of
 * any other drain is an ACK, which releases them (adw_release_deferred). */
uint64_t adw_rt_pending_next_ns(const struct adw_sched *s, uint64_t now_ns);
/* When the hold runs out, UINT64_MAX if nothing is held. */
uint64_t adw_rt_hold_until_ns(const struct adw_sched *s);
/* When a batch to pair may go as far as real-time packets are concerned (it waits while now is before that):
 * the end of the hold of conflicting real-time packets, else the end of the guard after the last ones released
 * (0 if there never were any). */
uint64_t adw_rt_batch_free_at(const struct adw_sched *s, uint16_t pair);

/* When the guard after pkts real-time packets released at now_ns ends, under plan p's policies. */
uint64_t adw_rt_guard_until(const struct adw_plan *p, uint32_t pkts, uint64_t now_ns);
/* At a swap, after the new plan is in force: every pair that waits for a gone pair's drain (struct adw_plan, gone_*)
 * waits at least to that gone slot's rt_guard_until_ns, the end of the guard after the real-time packets it held,
 * released to its AP at the swap (0: none). */
void adw_rt_guard_behind_gone_voice(struct adw_sched *s);

#endif
