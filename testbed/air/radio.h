/*
 * radio.h — carrier sense, SINR and MPDU error decisions.
 *
 * Received powers add in milliwatts; SINR = S - 10 log10(N + sum I) (dB).
 * An MCS needs both an RSS at or above its receiver minimum sensitivity
 * (802.11-2016 §19.3.19.1 Table 19-23, defined at 10 % PER for a
 * per_ref_bytes PSDU: the noise-limited regime) and a SINR at or above its
 * required SNR (the table 004 cites as [12]: MCS6/14 needs 20 dB; the
 * interference-limited regime). With the margin
 *     m = min(RSS - sensitivity, SINR - SNR_req)   (dB)
 * the PSDU error rate follows a logistic waterfall
 *     PER_ref(m) = 1 / (1 + 9 * exp(k * m))        (PER_ref(0) = 10 %)
 * and an MPDU of L bytes fails with 1 - (1 - PER_ref)^(L / per_ref_bytes).
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
/* Margin (dB) of a reception at mcs with RSS signal_dbm and SINR sinr_db. */
double radio_margin_db(const struct wlan_air_config *c, uint32_t mcs, double signal_dbm, double sinr_db);
/* Probability that a PSDU of len_bytes is lost at margin_db. */
double radio_error_prob(const struct wlan_air_config *c, double margin_db, uint32_t len_bytes);
/* Whether node i senses node j's transmission (RSS at i from j >= CS threshold). */
bool radio_senses(const struct wlan_air_config *c, int i, int j);
/* Highest MCS whose required SINR the link j->i meets without interference; -1 if none. */
int radio_best_mcs(const struct wlan_air_config *c, int rx, int tx);
/* Highest MCS the link tx->rx supports while node intf transmits at once; -1 if none. */
int radio_best_mcs_with_interferer(const struct wlan_air_config *c, int rx, int tx, int intf);

#endif
