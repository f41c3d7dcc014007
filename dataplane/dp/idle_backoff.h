/*
 * Idle back-off for the run-to-completion loop.  The appliance shares two
 * cores with the testbed, so a loop that saw no packets for a while sleeps,
 * but never past the scheduler's next event: it wakes SPIN_MARGIN early
 * and polls the last stretch, because clock_nanosleep with 1 ns timer
 * slack still wakes up to ~15 µs late at p99 (SPEC §7).
 */
#ifndef ADW_DP_IDLE_BACKOFF_H
#define ADW_DP_IDLE_BACKOFF_H

#include <stdint.h>

struct idle_backoff {
    unsigned idle_polls;     /* consecutive polls that moved no packet */
    uint64_t sleep_ns;       /* current sleep step, ns; doubles while idle up to max */
    uint64_t min_sleep_ns;   /* first sleep step, ns */
    uint64_t max_sleep_ns;   /* longest single sleep, ns (bounds RX latency when traffic resumes) */
    uint64_t spin_margin_ns; /* poll without sleeping this close to the next event, ns */
    unsigned polls_before_sleep; /* idle polls tolerated before the first sleep */
    uint64_t slept_ns;       /* total time asleep, ns (reported in stats) */
    uint64_t tx_wait_sleep_ns; /* longest sleep while frames wait for a TX ring that is still taking frames, ns */
};

void idle_backoff_init(struct idle_backoff *b);

/*
 * Called once per loop iteration.  `moved` is the packets received or sent
 * in the iteration; `now_ns`/`next_event_ns` in the scheduler's clock.
 * Returns how long to sleep now, ns (0 = poll again at once).
 */
uint64_t idle_backoff_step(struct idle_backoff *b, unsigned moved, uint64_t now_ns, uint64_t next_event_ns);

/*
 * The sleep s of idle_backoff_step cut to tx_wait_sleep_ns when frames wait for a TX ring (a software backlog): the
 * ring frees descriptors as its NIC sends, and every microsecond asleep past that is line time lost.
 */
uint64_t idle_backoff_tx_waiting(const struct idle_backoff *b, uint64_t s);

/* Sleeps ns with nanosleep (relative) and accounts it. */
void idle_backoff_sleep(struct idle_backoff *b, uint64_t ns);

#endif
