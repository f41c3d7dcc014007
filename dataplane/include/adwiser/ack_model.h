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
 * A pair's estimate mu~_N is a scale times the mean segments acknowledged per
 * burst, capped at n_max: ACKs of several A-MPDUs can come back in one burst
 * (the STA's uplink TXOP), so the raw mean runs high by a factor, which the
 * scale corrects (001 §4.2 corrects the same kind of consistent offset, Fig
 * 13(d)). How many A-MPDUs share an uplink burst depends on how many STAs the
 * AP serves: with one, the AP wins the air back before the STA about every
 * other time; with several served in turn, the STA's ACKs get out before its
 * next A-MPDU. So the scale is looked up by the number of STAs of the pair's
 * AP that are receiving (scale_by_stas[k-1] for k STAs, the last entry beyond
 * the table); a model without the table uses `scale` for every count.
 * With several STAs a STA also splits one A-MPDU's ACKs over two or three
 * uplink PPDUs, up to a few ms apart, while its own A-MPDUs come a round of
 * the AP's STAs apart; so a new burst may also need a minimum gap per STA
 * count (gap_by_stas_us[k-1], same lookup; none without the table).
 * The coefficients are fitted offline (testbed/, scikit-learn) on the WLAN
 * emulator's ground truth and shipped as configs/ack_burst_model.json; any
 * feature scaling used in training is folded into them, so the features are
 * raw microseconds.
 */
#ifndef ADWISER_ACK_MODEL_H
#define ADWISER_ACK_MODEL_H

#include <stdint.h>

#define ADW_ACK_MODEL_MAX_M 64
#define ADW_ACK_MODEL_MAX_STAS 8

struct adw_ack_model {
    uint32_t version;                        /* format/version of the coefficient file */
    uint16_t m;                              /* inter-arrival times used, 1 .. ADW_ACK_MODEL_MAX_M */
    double intercept;                        /* theta_0 */
    double coef[ADW_ACK_MODEL_MAX_M + 1];    /* theta_1..theta_m (t, oldest first), theta_{m+1} (sigma) */
    double threshold;                        /* boundary when P >= threshold, (0, 1) */
    uint32_t n_max;                          /* cap of the estimated aggregation level, MPDUs (N_max) */
    double scale;                            /* estimate = scale x mean segments per burst; > 0 (1 = none) */
    uint8_t n_scale_by_stas;                 /* entries of scale_by_stas; 0 = use `scale` for any STA count */
    double scale_by_stas[ADW_ACK_MODEL_MAX_STAS]; /* scale with k receiving STAs at the pair's AP: [k - 1]; > 0 */
    uint8_t n_gap_by_stas;                   /* entries of gap_by_stas_us; 0 = no minimum gap */
    double gap_by_stas_us[ADW_ACK_MODEL_MAX_STAS]; /* least inter-arrival time (µs) that starts a burst with k
                                                      receiving STAs: [k - 1]; >= 0 */
};

/* Probability (eq. (4)) that the packet after these m inter-arrival times (µs, oldest first) starts a new burst or
 * A-MPDU; the core's ACK-burst estimator and the STA-side agent (dataplane/agent/) both classify with it. */
double adw_ack_model_prob(const struct adw_ack_model *model, const double *ia_us_oldest_first);

/* mu~_N from a raw mean (>= 0): the model's scale for `stas` receiving STAs at the pair's AP times raw, capped at
 * n_max; the core's estimate from the ACK bursts and the STA agent's from the A-MPDUs it received. */
double adw_ack_model_estimate(const struct adw_ack_model *model, double raw, uint32_t stas);

#endif
