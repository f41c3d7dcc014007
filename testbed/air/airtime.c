/*
 * airtime.c — 802.11 PPDU durations (see airtime.h for the formulas).
 */
#include "airtime.h"

/* Coded bits per subcarrier * coding rate, per MCS 0..9 within one stream,
 * as numerator/denominator of data bits per data subcarrier
 * (HT §19.5 Tables 19-27.., VHT §21.5 Tables 21-30..). */
static const uint32_t bits_num[10] = {1, 2, 3, 4, 6, 8, 9, 10, 12, 40};
static const uint32_t bits_den[10] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 6};

static uint32_t data_subcarriers(enum wlan_phy phy, uint32_t bw_mhz)
{
    switch (bw_mhz) {
    case 20: return 52;
    case 40: return 108;
    case 80: return phy == WLAN_PHY_VHT ? 234 : 0;
    default: return 0;
    }
}

uint32_t airtime_nss(enum wlan_phy phy, uint32_t mcs)
{
    return phy == WLAN_PHY_HT ? mcs / 8 + 1 : mcs / 10 + 1;
}

/* N_DBPS by the modulation, coding and streams alone; 0 if no whole number of bits. */
static uint32_t coded_ndbps(enum wlan_phy phy, uint32_t bw_mhz, uint32_t mcs)
{
    uint32_t nsd = data_subcarriers(phy, bw_mhz);
    uint32_t base = phy == WLAN_PHY_HT ? mcs % 8 : mcs % 10;
    uint32_t nss = airtime_nss(phy, mcs);
    if (nsd == 0 || nss > 4 || (phy == WLAN_PHY_HT && mcs > 31))
        return 0;
    /* A VHT-MCS whose N_DBPS is no whole number of bits is "not valid" in the MCS tables (MCS 9 at 20 MHz
     * with 1, 2 or 4 streams, Tables 21-30..21-33); truncating it would time a rate that does not exist. */
    uint32_t bits = nsd * bits_num[base] * nss;
    if (bits % bits_den[base] != 0)
        return 0;
    return bits / bits_den[base];
}

/* N_ES is listed per MCS in the MCS tables. HT (§19.5, Tables 19-27..19-41): one encoder per 300 Mbit/s of
 * long-GI rate (N_DBPS 1200). VHT (§21.5, Tables 21-30..21-61): one per 540 Mbit/s of long-GI rate (N_DBPS
 * 2160, 600 Mbit/s with short GI); the tables depart from that rule only at 7-8 spatial streams in 80 MHz and
 * in 160 MHz, which the model does not have (up to 4 SS, 80 MHz). */
static uint32_t encoders_for(enum wlan_phy phy, uint32_t ndbps)
{
    uint32_t per_encoder = phy == WLAN_PHY_VHT ? 2160 : 1200;
    return (ndbps + per_encoder - 1) / per_encoder;
}

uint32_t airtime_ndbps(enum wlan_phy phy, uint32_t bw_mhz, uint32_t mcs)
{
    uint32_t ndbps = coded_ndbps(phy, bw_mhz, mcs);
    /* Each BCC encoder carries the same number of data bits per symbol: a VHT-MCS whose N_DBPS does not
     * split evenly over its N_ES is "not valid" too (§21.5: 80 MHz, 3 streams, MCS 6, Table 21-53). */
    if (ndbps == 0 || (phy == WLAN_PHY_VHT && ndbps % encoders_for(phy, ndbps) != 0))
        return 0;
    return ndbps;
}

double airtime_rate_mbps(enum wlan_phy phy, uint32_t bw_mhz, uint32_t mcs, bool short_gi)
{
    return (double)airtime_ndbps(phy, bw_mhz, mcs) / (short_gi ? 3.6 : 4.0);
}

uint32_t airtime_preamble_us(enum wlan_phy phy, uint32_t nss)
{
    /* HT-LTFs: 1, 2, 4, 4 for 1..4 streams (§19.3.9.4.6 Table 19-13); VHT the same up to 4. */
    uint32_t n_ltf = nss == 1 ? 1 : nss == 2 ? 2 : 4;
    uint32_t legacy = 8 + 8 + 4;                 /* L-STF, L-LTF, L-SIG */
    if (phy == WLAN_PHY_HT)
        return legacy + 8 + 4 + 4 * n_ltf;       /* HT-SIG, HT-STF, HT-LTFs */
    return legacy + 8 + 4 + 4 * n_ltf + 4;       /* VHT-SIG-A, VHT-STF, VHT-LTFs, VHT-SIG-B */
}

uint32_t airtime_bcc_encoders(enum wlan_phy phy, uint32_t bw_mhz, uint32_t mcs)
{
    uint32_t ndbps = airtime_ndbps(phy, bw_mhz, mcs);
    return ndbps == 0 ? 0 : encoders_for(phy, ndbps);
}

uint32_t airtime_ppdu_us(enum wlan_phy phy, uint32_t bw_mhz, uint32_t mcs, bool short_gi, uint32_t psdu_bytes)
{
    uint32_t ndbps = airtime_ndbps(phy, bw_mhz, mcs);
    if (ndbps == 0)
        return 0;
    uint32_t n_es = airtime_bcc_encoders(phy, bw_mhz, mcs);
    uint64_t bits = 8ull * psdu_bytes + 16 + 6ull * n_es;
    uint64_t n_sym = (bits + ndbps - 1) / ndbps;
    uint64_t data_us = short_gi ? 4 * ((36 * n_sym + 39) / 40) : 4 * n_sym;
    return airtime_preamble_us(phy, airtime_nss(phy, mcs)) + (uint32_t)data_us;
}

uint32_t airtime_legacy_us(uint32_t rate_mbps, uint32_t len_bytes)
{
    uint32_t ndbps = rate_mbps * 4;              /* 4 µs symbols */
    switch (rate_mbps) {
    case 6: case 9: case 12: case 18: case 24: case 36: case 48: case 54: break;
    default: return 0;
    }
    return 20 + 4 * ((16 + 8 * len_bytes + 6 + ndbps - 1) / ndbps);
}

uint32_t airtime_subframe_bytes(uint32_t mpdu_bytes, bool last)
{
    uint32_t b = 4 + mpdu_bytes;
    return last ? b : (b + 3) & ~3u;
}

uint32_t airtime_nonht_reference_mbps(enum wlan_phy phy, uint32_t mcs)
{
    static const uint32_t by_base[10] = {6, 12, 18, 24, 36, 48, 54, 54, 54, 54};
    return by_base[phy == WLAN_PHY_HT ? mcs % 8 : mcs % 10];
}

uint32_t airtime_response_rate_mbps(uint32_t highest_basic_mbps, uint32_t eliciting_mbps)
{
    static const uint32_t mandatory[3] = {6, 12, 24};
    uint32_t rate = 6;
    for (int i = 0; i < 3; i++)
        if (mandatory[i] <= highest_basic_mbps && mandatory[i] <= eliciting_mbps)
            rate = mandatory[i];
    return highest_basic_mbps <= eliciting_mbps && highest_basic_mbps > rate ? highest_basic_mbps : rate;
}
