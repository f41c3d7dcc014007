/*
 * What the agent's tests feed it: a boundary model that any gap over 200 µs
 * starts an A-MPDU (m = 1: P(first) = 1 / (1 + exp(-(t - 200 µs) / 10))), and
 * trains of A-MPDUs received 30 µs apart inside, 600 µs between them.
 */
#ifndef ADW_AGENT_TESTS_AMPDU_TRAIN_H
#define ADW_AGENT_TESTS_AMPDU_TRAIN_H

#include <stdint.h>

#include "adwiser/ack_model.h"

#define US 1000ull

static inline struct adw_ack_model gap_model(uint32_t n_max)
{
    struct adw_ack_model m = {.version = 1, .m = 1, .intercept = -20.0, .threshold = 0.5, .n_max = n_max, .scale = 1};
    m.coef[0] = 0.1;
    return m;
}

/* Calls rx(ctx, t) for `frames` A-MPDUs of `size` packets from *t, which ends at the last packet's time. */
static inline void ampdu_train(uint64_t *t, unsigned frames, unsigned size, void (*rx)(void *ctx, uint64_t t),
                               void *ctx)
{
    for (unsigned f = 0; f < frames; f++)
        for (unsigned i = 0; i < size; i++) {
            *t += i == 0 ? 600 * US : 30 * US;
            rx(ctx, *t);
        }
}

#endif
