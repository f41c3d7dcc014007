/*
 * pacer.h — per-pair pacing (SPEC §3.7, 000 §IV-A "the sender ... uses packet
 * pacing"): a pair in paced mode has its queued downlink packets released at
 * rate x_i instead of in slice batches, so the AP sees paced arrivals and its
 * A-MPDU aggregation level follows x_i (000 eq. (8)).
 *
 * A token bucket in bits, time in ns, release instants rounded up to the next
 * microsecond: credit grows by rate·dt and is capped at one MTU frame (so after
 * an idle spell at most two frames leave back to back); a frame may leave
 * while the credit is not negative and costs its length. The rate is changed
 * in place at any instant (credit accrued at the old rate up to that instant,
 * at the new one afterwards): no packet is touched, so a rate change can lose
 * none.
 *
 * While the pair's queue stays backlogged between two releases the cap is the
 * backlog cap instead (adw_pacer_backlogged): the one-frame cap is there to
 * bound the burst after the *sender* was idle, but with packets waiting the
 * only reason for credit to pile up is that the release loop ran late (it
 * shares two cores with the testbed; it was measured to release 65-78 % of x_i
 * with its queue never empty). Capping then would lose that credit for good and
 * the pair would get less than x_i, which the controller reads as "the pacer
 * is not the limit" (conditional integration) and so never corrects. The
 * packets owed leave together on the late wake-up instead, at most the backlog
 * cap of them.
 */
#ifndef ADW_CORE_PACER_H
#define ADW_CORE_PACER_H

#include <stdbool.h>
#include <stdint.h>

struct adw_pacer {
    uint64_t rate_bps;           /* x_i, bit/s; 0 = not paced */
    int64_t credit_bits_ns;      /* credit in bits x 1e9 (bit-ns per s), may be negative by one frame */
    uint64_t last_ns;            /* time credit was last brought up to date */
    uint64_t cap_bits_ns;        /* credit cap: one MTU frame, bits x 1e9 */
    uint64_t backlog_cap_bits_ns; /* credit cap while the queue stays backlogged, bits x 1e9; 0 = not backlogged */
};

/* Not paced; cap_bytes is the burst allowance (one MTU frame). */
void adw_pacer_init(struct adw_pacer *p, uint32_t cap_bytes, uint64_t now_ns);
/* Sets x_i (0 = stop pacing) at now_ns; credit accrued at the old rate is kept, clamped to the cap. */
void adw_pacer_set_rate(struct adw_pacer *p, uint64_t rate_bps, uint64_t now_ns);
static inline bool adw_pacer_active(const struct adw_pacer *p) { return p->rate_bps > 0; }
/* True if a frame may leave at now_ns (credit not negative after accrual). */
bool adw_pacer_may_send(struct adw_pacer *p, uint64_t now_ns);
/* A frame of len bytes left at now_ns. */
void adw_pacer_sent(struct adw_pacer *p, uint32_t len, uint64_t now_ns);
/* After a release at now_ns: the queue still holds packets (backlog_cap_bytes > 0, the most credit that may pile up
 * until the next release) or is empty (0: the one-frame cap). */
void adw_pacer_backlogged(struct adw_pacer *p, uint64_t backlog_cap_bytes, uint64_t now_ns);
/* Earliest instant >= now_ns (rounded up to a whole µs) at which a frame may leave. */
uint64_t adw_pacer_next_ns(const struct adw_pacer *p, uint64_t now_ns);

#endif
