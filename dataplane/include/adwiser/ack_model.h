/*
 * adwiser/ack_model.h — coefficients of the ACK-burst frame-boundary
 * classifier (SPEC §3.7; 001 §4.1 eqs. (3)-(4)), run by the core on the
 * returning TCP ACKs of each pair: one burst of ACKs per A-MPDU delivered.
 *
 * For the i-th ACK of a pair, with t_j the inter-arrival time (µs) between
 * ACK j and ACK j-1 and sigma_i the standard deviation (population, µs) of
 * t_{i-m+1..i}:
 *     P(first ACK of a new A-MPDU) = 1 / (1 + exp(-(intercept + sum_k coef[k] x_k)))
 * with x = [t_{i-m+1}, ..., t_i, sigma_i] (oldest first; m + 1 features).
 * A pair's estimate mu~_N is `scale` times the mean segments acknowledged per
 * burst, capped at n_max: ACKs of several A-MPDUs can come back in one burst
 * (the STA's uplink TXOP) and delayed ACKs cover two segments, so the raw
 * mean runs high by a fairly constant factor, which `scale` corrects (001
 * §4.2 corrects the same kind of consistent offset, Fig 13(d)).
 * The coefficients are fitted offline (testbed/, scikit-learn) on the WLAN
 * emulator's ground truth and shipped as configs/ack_burst_model.json; any
 * feature scaling used in training is folded into them, so the features are
 * raw microseconds.
 */
#ifndef ADWISER_ACK_MODEL_H
#define ADWISER_ACK_MODEL_H

#include <stdint.h>

#define ADW_ACK_MODEL_MAX_M 64

struct adw_ack_model {
    uint32_t version;                        /* format/version of the coefficient file */
    uint16_t m;                              /* inter-arrival times used, 1 .. ADW_ACK_MODEL_MAX_M */
    double intercept;                        /* theta_0 */
    double coef[ADW_ACK_MODEL_MAX_M + 1];    /* theta_1..theta_m (t, oldest first), theta_{m+1} (sigma) */
    double threshold;                        /* boundary when P >= threshold, (0, 1) */
    uint32_t n_max;                          /* cap of the estimated aggregation level, MPDUs (N_max) */
    double scale;                            /* estimate = scale x mean segments per burst; > 0 (1 = none) */
};

#endif
