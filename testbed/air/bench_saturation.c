/*
 * bench_saturation — runs the calibration experiment (CALIBRATION.md):
 * each AP-STA pair of the lab alone ("isolated") and both at once
 * ("together") under a saturated downlink TCP-like load, in virtual time,
 * and prints throughput, mean A-MPDU size and mean PHY rate per pair next
 * to 004 Table 3 / Fig. 8.
 *
 * usage: bench_saturation <air.json> [seconds] [seed]
 */
#include <stdio.h>
#include <stdlib.h>

#include "saturation.h"
#include "wlan_air.h"

static void print_row(const char *setting, const char *pair, const struct sat_pair_result *r, double target)
{
    printf("%-9s %-10s %8.1f %8.1f %+7.1f%% %8.1f %9.1f %8.3f %8.3f %8.3f %8.3f %9.5f %8.3f %8.3f\n", setting, pair,
           r->throughput_mbps, target, 100.0 * (r->throughput_mbps - target) / target, r->mean_ampdu,
           r->mean_phy_mbps, r->collided_frac, r->mpdu_loss_frac, r->preamble_lost_frac, r->airtime_frac,
           r->retry_drop_frac, r->protected_frac, r->rts_fail_frac);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <air.json> [seconds] [seed]\n", argv[0]);
        return 2;
    }
    struct wlan_air_config c;
    char err[256];
    if (wlan_air_config_load(argv[1], &c, err, sizeof err) != 0) {
        fprintf(stderr, "bench_saturation: %s\n", err);
        return 1;
    }
    struct sat_params p;
    sat_default_params(&p);
    if (argc > 2)
        p.duration_us = (uint64_t)(atof(argv[2]) * 1e6);
    if (argc > 3)
        p.seed = strtoull(argv[3], NULL, 10);
    wlan_air_t *probe = wlan_air_create(&c, 1);
    int ap[2] = {wlan_air_node_index(probe, "ap1"), wlan_air_node_index(probe, "ap2")};
    int sta[2] = {wlan_air_node_index(probe, "sta1"), wlan_air_node_index(probe, "sta2")};
    wlan_air_destroy(probe);
    if (ap[0] < 0 || ap[1] < 0 || sta[0] < 0 || sta[1] < 0) {
        fprintf(stderr, "bench_saturation: config must name ap1, ap2, sta1, sta2\n");
        return 1;
    }
    static const double iso_target[2] = {79.6, 103.5}, tog_target[2] = {21.7, 25.7};
    printf("%-9s %-10s %8s %8s %8s %8s %9s %8s %8s %8s %8s %9s %8s %8s\n", "setting", "pair", "Mbit/s", "004-T3", "error",
           "A-MPDU", "PHY", "collided", "MPDUloss", "preLost", "airtime", "retryDrop", "RTSprot", "RTSfail");
    struct sat_pair_result r[2];
    for (int i = 0; i < 2; i++) {
        sat_run(&c, &ap[i], &sta[i], 1, &p, &r[i]);
        print_row("isolated", i ? "ap2/sta2" : "ap1/sta1", &r[i], iso_target[i]);
    }
    sat_run(&c, ap, sta, 2, &p, r);
    for (int i = 0; i < 2; i++)
        print_row("together", i ? "ap2/sta2" : "ap1/sta1", &r[i], tog_target[i]);
    return 0;
}
