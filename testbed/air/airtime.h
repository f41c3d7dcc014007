/*
 * airtime.h — PPDU durations from the 802.11 PHY formulas.
 *
 * HT-mixed format (IEEE 802.11-2016 §19.4.3, Eq. 19-89/19-90):
 *   TXTIME = T_L-STF + T_L-LTF + T_L-SIG + T_HT-SIG + T_HT-STF + N_LTF*T_HT-LTF
 *            + T_SYM * N_SYM                               (long GI, 4 µs)
 *          = ... + T_SYML * ceil(T_SYMS * N_SYM / T_SYML)  (short GI, 3.6 µs)
 *   N_SYM  = ceil((8*L + 16 + 6*N_ES) / N_DBPS)            (BCC, Eq. 19-32)
 * VHT (§21.4.3) has VHT-SIG-A (8 µs), VHT-STF (4), N_LTF*4 and VHT-SIG-B (4).
 * Non-HT OFDM (§17.4.3, for the BlockAck response, at the rate §10.7.6.5.2 picks):
 *   TXTIME = 20 + 4 * ceil((16 + 8*L + 6) / N_DBPS).
 * A-MPDU subframes (§10.13): 4-byte delimiter + MPDU, padded to 4 bytes
 * except the last.
 */
#ifndef AIRTIME_H
#define AIRTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "wlan_air.h"

/* Data bits per OFDM symbol for an MCS (HT: 0..31, VHT: (NSS-1)*10+mcs, up to 4 SS); 0 if the MCS tables list
 * it as not valid (no whole number of bits, or bits that do not split evenly over the BCC encoders). */
uint32_t airtime_ndbps(enum wlan_phy phy, uint32_t bw_mhz, uint32_t mcs);
/* Spatial streams an MCS uses. */
uint32_t airtime_nss(enum wlan_phy phy, uint32_t mcs);
/* BCC encoders (N_ES) the MCS tables give an MCS; 0 if invalid. */
uint32_t airtime_bcc_encoders(enum wlan_phy phy, uint32_t bw_mhz, uint32_t mcs);
/* PHY data rate (Mbit/s). */
double airtime_rate_mbps(enum wlan_phy phy, uint32_t bw_mhz, uint32_t mcs, bool short_gi);
/* Preamble (training + signal fields) before the data symbols (µs). */
uint32_t airtime_preamble_us(enum wlan_phy phy, uint32_t nss);
/* Full PPDU duration carrying a PSDU of psdu_bytes (µs). */
uint32_t airtime_ppdu_us(enum wlan_phy phy, uint32_t bw_mhz, uint32_t mcs, bool short_gi, uint32_t psdu_bytes);
/* Non-HT OFDM duration of a frame of len_bytes at rate_mbps (6..54) (µs); 0 if invalid rate. */
uint32_t airtime_legacy_us(uint32_t rate_mbps, uint32_t len_bytes);
/* Non-HT reference rate of an MCS (Mbit/s): the non-HT rate of the same modulation and coding (802.11-2016
 * §10.7.9): BPSK 1/2 6, QPSK 1/2 12, QPSK 3/4 18, 16-QAM 1/2 24, 16-QAM 3/4 36, 64-QAM 2/3 48, faster 54. */
uint32_t airtime_nonht_reference_mbps(enum wlan_phy phy, uint32_t mcs);
/* Rate of a control response (Mbit/s): the highest basic rate not above the eliciting frame's rate or non-HT
 * reference rate (§10.7.6.5.2), the basic rates being the mandatory 6, 12 and 24 Mbit/s (§17.3.5) up to
 * highest_basic_mbps and highest_basic_mbps itself; 6 if none is that low. */
uint32_t airtime_response_rate_mbps(uint32_t highest_basic_mbps, uint32_t eliciting_mbps);
/* Bytes an MPDU of mpdu_bytes occupies inside an A-MPDU (delimiter + padding). */
uint32_t airtime_subframe_bytes(uint32_t mpdu_bytes, bool last);

#endif
