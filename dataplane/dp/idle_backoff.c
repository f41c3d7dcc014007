/* Idle back-off; see idle_backoff.h for the model. */
#include "idle_backoff.h"

#include <time.h>

void idle_backoff_init(struct idle_backoff *b)
{
    b->idle_polls = 0;
    b->min_sleep_ns = 10000;      /* 10 µs */
    b->max_sleep_ns = 200000;     /* 200 µs: ~17 MTU packets at 1 Gbit/s wait in the RX ring */
    b->spin_margin_ns = 30000;    /* 30 µs: above the p99 wake-up latency with 1 ns slack */
    b->polls_before_sleep = 256;
    b->sleep_ns = b->min_sleep_ns;
    b->slept_ns = 0;
    b->tx_wait_sleep_ns = 10000;  /* 10 µs: a ring of 1024 takes >= 69 µs to empty at 10 Gbit/s (64-byte frames) */
}

uint64_t idle_backoff_tx_waiting(const struct idle_backoff *b, uint64_t s)
{
    return s < b->tx_wait_sleep_ns ? s : b->tx_wait_sleep_ns;
}

uint64_t idle_backoff_step(struct idle_backoff *b, unsigned moved, uint64_t now_ns, uint64_t next_event_ns)
{
    if (moved) {
        b->idle_polls = 0;
        b->sleep_ns = b->min_sleep_ns;
        return 0;
    }
    if (++b->idle_polls < b->polls_before_sleep)
        return 0;
    if (next_event_ns <= now_ns + b->spin_margin_ns)
        return 0;
    uint64_t until_event = next_event_ns - now_ns - b->spin_margin_ns;
    uint64_t s = b->sleep_ns < until_event ? b->sleep_ns : until_event;
    if (b->sleep_ns < b->max_sleep_ns)
        b->sleep_ns = b->sleep_ns * 2 > b->max_sleep_ns ? b->max_sleep_ns : b->sleep_ns * 2;
    return s;
}

void idle_backoff_sleep(struct idle_backoff *b, uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
    b->slept_ns += ns;
}
