/*
 * test_radio.c — carrier sense and interference decisions from the RSS
 * matrix of 004 Table 2 (lab-2ap-2sta.json), and the PER curve.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "airtime.h"
#include "radio.h"
#include "wlan_air.h"

enum { AP1, AP2, STA1, STA2 };
static struct wlan_air_config cfg;

static int load(void **state)
{
    (void)state;
    char err[256];
    return wlan_air_config_load("../lab-2ap-2sta.json", &cfg, err, sizeof err);
}

static void test_aps_are_hidden_from_each_other(void **state)
{
    (void)state;
    /* -87.1 / -88.2 dBm are below the -82 dBm CS threshold (004 Fig. 6). */
    assert_false(radio_senses(&cfg, AP1, AP2));
    assert_false(radio_senses(&cfg, AP2, AP1));
}

static void test_stations_block_both_aps_and_each_other(void **state)
{
    (void)state;
    /* An STA transmitting CS-blocks the other AP and STA (004 §4.1). */
    assert_true(radio_senses(&cfg, AP2, STA1));
    assert_true(radio_senses(&cfg, AP1, STA2));
    assert_true(radio_senses(&cfg, STA2, STA1));
    assert_true(radio_senses(&cfg, STA1, STA2));
    /* Each STA hears the other AP, so it defers while that AP transmits. */
    assert_true(radio_senses(&cfg, STA1, AP2));
    assert_true(radio_senses(&cfg, STA2, AP1));
}

static void test_isolated_links_support_the_rates_of_004(void **state)
{
    (void)state;
    /* Table 2 cell (i,j) is the RSS at i from j: AP1->STA1 at -64.6 dBm
     * supports MCS14 (117 Mbit/s long GI) but not MCS15 (sensitivity
     * -64 dBm), as 004 §4.1 says; AP2->STA2 at -62.6 dBm supports MCS15. */
    assert_int_equal(radio_best_mcs(&cfg, STA1, AP1), 14);
    assert_int_equal(radio_best_mcs(&cfg, STA2, AP2), 15);
}

static void test_other_ap_interference_forces_a_low_mcs(void **state)
{
    (void)state;
    /* With AP2 on air, STA1's SINR is about 12.3 dB: MCS14 (20 dB) fails and
     * at most a 16-QAM 1/2 rate (11 dB) survives; likewise at STA2 (11.6 dB). */
    int m1 = radio_best_mcs_with_interferer(&cfg, STA1, AP1, AP2);
    int m2 = radio_best_mcs_with_interferer(&cfg, STA2, AP2, AP1);
    assert_in_range(m1, 0, 15);
    assert_in_range(m2, 0, 15);
    assert_true(airtime_rate_mbps(cfg.phy, 20, (uint32_t)m1, false) <= 52.0);
    assert_true(airtime_rate_mbps(cfg.phy, 20, (uint32_t)m2, false) <= 52.0);
    double sinr = radio_sinr_db(cfg.rss_dbm[STA1][AP1], cfg.noise_floor_dbm, radio_dbm_to_mw(cfg.rss_dbm[STA1][AP2]));
    assert_float_equal(sinr, 12.33, 0.01);
    assert_true(radio_margin_db(&cfg, 14, cfg.rss_dbm[STA1][AP1], sinr) < -5.0);
}

static void test_per_is_ten_percent_at_the_sensitivity_point(void **state)
{
    (void)state;
    assert_float_equal(radio_error_prob(&cfg, 0.0, cfg.per_ref_bytes), 0.10, 1e-9);
    assert_true(radio_error_prob(&cfg, 3.0, 1544) < 0.001);
    assert_true(radio_error_prob(&cfg, -3.0, 1544) > 0.9);
    /* Shorter MPDUs fail less often at the same margin. */
    assert_true(radio_error_prob(&cfg, 0.0, 100) < radio_error_prob(&cfg, 0.0, 1544));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aps_are_hidden_from_each_other),
        cmocka_unit_test(test_stations_block_both_aps_and_each_other),
        cmocka_unit_test(test_isolated_links_support_the_rates_of_004),
        cmocka_unit_test(test_other_ap_interference_forces_a_low_mcs),
        cmocka_unit_test(test_per_is_ten_percent_at_the_sensitivity_point),
    };
    return cmocka_run_group_tests(tests, load, NULL);
}
