/*
 * radio.h — carrier sense, SINR and MPDU error decisions.
 *
 * Received powers add in milliwatts; SINR = S - 10 log10(N + sum I) (dB).
 * The SINR an MCS needs is its receiver minimum sensitivity (802.11-2016
 * §19.3.19.1 Table 19-23, defined at 10 % PER for a per_ref_bytes PSDU)
 * minus the noise floor. Around that point the PSDU error rate follows a
 * logistic waterfall
 *     PER_ref(m) = 1 / (1 + 9 * exp(k * m)),  m = SINR - SINR_req (dB)
 * (PER_ref(0) = 10 %), and an MPDU of L bytes fails with
 *     1 - (1 - PER_ref)^(L / per_ref_bytes).
 */
#ifndef RADIO_H
#define RADIO_H

#include <stdbool.h>
#include <stdint.h>

#include "wlan_air.h"

double radio_dbm_to_mw(double dbm);
double radio_mw_to_dbm(double mw);
/* SINR (dB) of a signal at signal_dbm over noise_floor_dbm plus interference_mw. */
double radio_sinr_db(double signal_dbm, double noise_floor_dbm, double interference_mw);
/* SINR an MCS needs (dB). */
double radio_required_sinr_db(const struct wlan_air_config *c, uint32_t mcs);
/* Probability that an MPDU of len_bytes at mcs is lost at sinr_db. */
double radio_mpdu_error_prob(const struct wlan_air_config *c, uint32_t mcs, double sinr_db, uint32_t len_bytes);
/* Whether node i senses node j's transmission (RSS at i from j >= CS threshold). */
bool radio_senses(const struct wlan_air_config *c, int i, int j);
/* Highest MCS whose required SINR the link j->i meets without interference; -1 if none. */
int radio_best_mcs(const struct wlan_air_config *c, int rx, int tx);
/* Highest MCS the link tx->rx supports while node intf transmits at once; -1 if none. */
int radio_best_mcs_with_interferer(const struct wlan_air_config *c, int rx, int tx, int intf);

#endif
