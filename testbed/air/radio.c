/*
 * radio.c — carrier sense, SINR and PER (model in radio.h).
 */
#include "radio.h"

#include <math.h>

#include "airtime.h"

double radio_dbm_to_mw(double dbm) { return pow(10.0, dbm / 10.0); }

double radio_mw_to_dbm(double mw) { return 10.0 * log10(mw); }

double radio_sinr_db(double signal_dbm, double noise_floor_dbm, double interference_mw)
{
    return signal_dbm - radio_mw_to_dbm(radio_dbm_to_mw(noise_floor_dbm) + interference_mw);
}

double radio_margin_db(const struct wlan_air_config *c, uint32_t mcs, double signal_dbm, double sinr_db)
{
    double by_rss = signal_dbm - c->sensitivity_dbm[mcs];
    double by_sinr = sinr_db - c->snr_required_db[mcs];
    return by_rss < by_sinr ? by_rss : by_sinr;
}

double radio_error_prob(const struct wlan_air_config *c, double margin_db, uint32_t len_bytes)
{
    double x = c->per_slope_per_db * margin_db;
    if (x > 60)
        return 0.0;
    double per_ref = 1.0 / (1.0 + 9.0 * exp(x));
    return 1.0 - pow(1.0 - per_ref, (double)len_bytes / (double)c->per_ref_bytes);
}

bool radio_senses(const struct wlan_air_config *c, int i, int j)
{
    return i != j && c->rss_dbm[i][j] >= c->cs_threshold_dbm;
}

static int best_mcs_at(const struct wlan_air_config *c, double signal, double sinr)
{
    int best = -1;
    double best_rate = 0;
    for (uint32_t m = 0; m < c->n_mcs; m++) {
        double r = airtime_rate_mbps(c->phy, c->bandwidth_mhz, m, c->short_gi);
        if (radio_margin_db(c, m, signal, sinr) >= 0 && r > best_rate) {
            best = (int)m;
            best_rate = r;
        }
    }
    return best;
}

int radio_best_mcs(const struct wlan_air_config *c, int rx, int tx)
{
    return best_mcs_at(c, c->rss_dbm[rx][tx], radio_sinr_db(c->rss_dbm[rx][tx], c->noise_floor_dbm, 0.0));
}

int radio_best_mcs_with_interferer(const struct wlan_air_config *c, int rx, int tx, int intf)
{
    double i_mw = radio_dbm_to_mw(c->rss_dbm[rx][intf]);
    return best_mcs_at(c, c->rss_dbm[rx][tx], radio_sinr_db(c->rss_dbm[rx][tx], c->noise_floor_dbm, i_mw));
}
