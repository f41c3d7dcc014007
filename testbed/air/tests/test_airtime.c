/*
 * test_airtime.c — PPDU durations against the 802.11 formulas, worked by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "airtime.h"

static void test_ht20_2ss_rates_match_the_mcs_table(void **state)
{
    (void)state;
    /* 802.11-2016 Table 19-28..: MCS15 260 data bits/symbol, 130 / 144.4 Mbit/s. */
    assert_int_equal(airtime_ndbps(WLAN_PHY_HT, 20, 15), 520);
    assert_float_equal(airtime_rate_mbps(WLAN_PHY_HT, 20, 15, false), 130.0, 1e-9);
    assert_float_equal(airtime_rate_mbps(WLAN_PHY_HT, 20, 15, true), 144.444, 1e-3);
    assert_float_equal(airtime_rate_mbps(WLAN_PHY_HT, 20, 14, false), 117.0, 1e-9);
    assert_float_equal(airtime_rate_mbps(WLAN_PHY_HT, 20, 9, false), 26.0, 1e-9);
    assert_float_equal(airtime_rate_mbps(WLAN_PHY_HT, 20, 0, false), 6.5, 1e-9);
}

static void test_vht80_rates_match_the_mcs_table(void **state)
{
    (void)state;
    /* VHT 80 MHz, 2 SS, MCS9: 1560 bits/symbol per stream, 866.7 Mbit/s with SGI. */
    assert_int_equal(airtime_ndbps(WLAN_PHY_VHT, 80, 19), 3120);
    assert_float_equal(airtime_rate_mbps(WLAN_PHY_VHT, 80, 19, true), 866.667, 1e-3);
    assert_int_equal(airtime_preamble_us(WLAN_PHY_VHT, 2), 44);
}

/* N_ES from the VHT-MCS tables (802.11-2016 §21.5, Tables 21-30..21-61), not HT's 300 Mbit/s per
 * encoder: one encoder carries up to 540 Mbit/s of long-GI rate. VHT MCS numbering: (NSS - 1) * 10 + MCS. */
static void test_vht_bcc_encoders_follow_the_vht_mcs_tables(void **state)
{
    (void)state;
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 20, 38), 1);  /* 4 SS MCS8, 312 Mbit/s */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 40, 37), 1);  /* 4 SS MCS7, 540 */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 40, 38), 2);  /* 4 SS MCS8, 648 */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 80, 9), 1);   /* 1 SS MCS9, 390 */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 80, 16), 1);  /* 2 SS MCS6, 526.5 */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 80, 17), 2);  /* 2 SS MCS7, 585 */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 80, 19), 2);  /* 2 SS MCS9, 780 */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 80, 29), 3);  /* 3 SS MCS9, 1170 */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 80, 33), 1);  /* 4 SS MCS3, 468 */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 80, 34), 2);  /* 4 SS MCS4, 702 */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 80, 39), 3);  /* 4 SS MCS9, 1560 */
    /* HT keeps its own rule (Tables 19-27..19-41). */
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_HT, 20, 15), 1);
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_HT, 40, 31), 2);   /* 540 Mbit/s */
    /* 80 MHz 1 SS MCS9, 1947 bytes, long GI: 8 * 1947 + 16 + 6 * 1 = 15598 bits fill 10 symbols of 1560
     * (with 2 encoders' tails, 15604, they took 11): 40 us preamble + 40 us. */
    assert_int_equal(airtime_ppdu_us(WLAN_PHY_VHT, 80, 9, false, 1947), 80);
}

/* VHT-MCS 9 at 20 MHz with 1 or 2 spatial streams is "not valid" (802.11-2016 Tables 21-30, 21-31): its
 * N_DBPS (52 x 8 x 5/6 = 346.67 per stream) is no whole number of bits. With 3 streams it is (1040). */
static void test_vht_mcs9_at_20_mhz_with_one_or_two_streams_is_no_rate(void **state)
{
    (void)state;
    assert_int_equal(airtime_ndbps(WLAN_PHY_VHT, 20, 9), 0);
    assert_int_equal(airtime_ndbps(WLAN_PHY_VHT, 20, 19), 0);
    assert_int_equal(airtime_ppdu_us(WLAN_PHY_VHT, 20, 9, true, 1538), 0);
    assert_int_equal(airtime_ndbps(WLAN_PHY_VHT, 20, 29), 1040);
    assert_int_equal(airtime_ndbps(WLAN_PHY_VHT, 20, 8), 312);
}

/* A VHT-MCS is also "not valid" when its N_DBPS does not split evenly over its N_ES BCC encoders
 * (802.11-2016 §21.5): 80 MHz, 3 streams, MCS 6 has N_DBPS 3159 over 2 encoders (Table 21-53 lists it
 * as not valid), and timing it would give a PPDU no VHT transmitter sends. Its neighbours are valid. */
static void test_vht_mcs6_at_80_mhz_with_three_streams_is_no_rate(void **state)
{
    (void)state;
    assert_int_equal(airtime_ndbps(WLAN_PHY_VHT, 80, 26), 0);
    assert_int_equal(airtime_bcc_encoders(WLAN_PHY_VHT, 80, 26), 0);
    assert_int_equal(airtime_ppdu_us(WLAN_PHY_VHT, 80, 26, false, 1538), 0);
    assert_int_equal(airtime_ndbps(WLAN_PHY_VHT, 80, 25), 2808);
    assert_int_equal(airtime_ndbps(WLAN_PHY_VHT, 80, 27), 3510);
    assert_int_equal(airtime_ndbps(WLAN_PHY_VHT, 80, 36), 4212);  /* 4 SS MCS6: 2106 per encoder, valid */
}

/* Worked by hand: one 1538-byte MPDU in an A-MPDU (4-byte delimiter, last subframe unpadded: 1542 bytes) at
 * HT MCS15, 20 MHz, long GI: N_SYM = ceil((16 + 8 * 1542 + 6) / 520) = 24, 40 + 96 = 136 us. 64 of them at
 * VHT MCS9, 80 MHz, 3 SS (N_DBPS 4680, N_ES 3): 63 * 1544 + 1542 = 98814 bytes (beyond HT's 65535),
 * N_SYM = ceil((16 + 8 * 98814 + 18) / 4680) = 169; preamble 20 + VHT-SIG-A 8 + VHT-STF 4 + 4 VHT-LTFs 16 +
 * VHT-SIG-B 4 = 52 us; long GI 52 + 676, short GI 52 + 4 * ceil(169 * 0.9) = 52 + 612. */
static void test_hand_worked_ht_and_vht_ampdus(void **state)
{
    (void)state;
    assert_int_equal(airtime_ppdu_us(WLAN_PHY_HT, 20, 15, false, airtime_subframe_bytes(1538, true)), 136);
    uint32_t psdu = 0;
    for (int i = 0; i < 64; i++)
        psdu += airtime_subframe_bytes(1538, i == 63);
    assert_int_equal(psdu, 98814);
    assert_int_equal(airtime_preamble_us(WLAN_PHY_VHT, 3), 52);
    assert_int_equal(airtime_ppdu_us(WLAN_PHY_VHT, 80, 29, false, psdu), 728);
    assert_int_equal(airtime_ppdu_us(WLAN_PHY_VHT, 80, 29, true, psdu), 664);
}

static void test_ht_mixed_preamble_is_40us_for_two_streams(void **state)
{
    (void)state;
    /* L-STF 8 + L-LTF 8 + L-SIG 4 + HT-SIG 8 + HT-STF 4 + 2 HT-LTF * 4. */
    assert_int_equal(airtime_preamble_us(WLAN_PHY_HT, 2), 40);
    assert_int_equal(airtime_preamble_us(WLAN_PHY_HT, 1), 36);
}

static void test_ampdu_of_19_mtu_mpdus_at_mcs15(void **state)
{
    (void)state;
    /* 1538-byte MPDUs: subframes 1544 (delimiter + pad) x 18 + 1542 = 29334 bytes.
     * N_SYM = ceil((8*29334 + 16 + 6) / 520) = 452.
     * Long GI: 40 + 452*4 = 1848 us. Short GI: 40 + 4*ceil(452*3.6/4) = 40 + 1628. */
    uint32_t psdu = 0;
    for (int i = 0; i < 19; i++)
        psdu += airtime_subframe_bytes(1538, i == 18);
    assert_int_equal(psdu, 29334);
    assert_int_equal(airtime_ppdu_us(WLAN_PHY_HT, 20, 15, false, psdu), 1848);
    assert_int_equal(airtime_ppdu_us(WLAN_PHY_HT, 20, 15, true, psdu), 1668);
}

static void test_single_mpdu_at_mcs0(void **state)
{
    (void)state;
    /* 1542 bytes at 26 bits/symbol: ceil((12336+22)/26) = 476 symbols -> 36 + 1904. */
    assert_int_equal(airtime_ppdu_us(WLAN_PHY_HT, 20, 0, false, 1542), 1940);
}

static void test_blockack_at_24mbps_takes_32us(void **state)
{
    (void)state;
    /* Non-HT: 20 us preamble+SIGNAL + 4*ceil((16 + 8*32 + 6)/96) = 20 + 12. */
    assert_int_equal(airtime_legacy_us(24, 32), 32);
    /* A 14-byte ACK at 24 Mbit/s: 20 + 4*ceil(134/96) = 28. */
    assert_int_equal(airtime_legacy_us(24, 14), 28);
    assert_int_equal(airtime_legacy_us(6, 32), 20 + 4 * 12);
    assert_int_equal(airtime_legacy_us(25, 32), 0);
}

/* §10.7.6.5.2: a control response goes at the highest basic rate not above the eliciting MCS's non-HT
 * reference rate (same modulation and coding, §10.7.9); with basic rates 6, 12, 24 Mbit/s. */
static void test_blockack_rate_is_the_highest_basic_rate_not_above_the_reference_rate(void **state)
{
    (void)state;
    assert_int_equal(airtime_nonht_reference_mbps(WLAN_PHY_HT, 8), 6);
    assert_int_equal(airtime_nonht_reference_mbps(WLAN_PHY_HT, 10), 18);
    assert_int_equal(airtime_nonht_reference_mbps(WLAN_PHY_HT, 15), 54);
    assert_int_equal(airtime_nonht_reference_mbps(WLAN_PHY_VHT, 19), 54);   /* 256-QAM */
    assert_int_equal(airtime_nonht_reference_mbps(WLAN_PHY_VHT, 13), 24);
    assert_int_equal(airtime_response_rate_mbps(24, 6), 6);
    assert_int_equal(airtime_response_rate_mbps(24, 18), 12);
    assert_int_equal(airtime_response_rate_mbps(24, 54), 24);
    assert_int_equal(airtime_response_rate_mbps(36, 54), 36);
    assert_int_equal(airtime_response_rate_mbps(36, 24), 24);
    assert_int_equal(airtime_response_rate_mbps(12, 54), 12);
}

static void test_rts_and_cts_at_6mbps_take_52_and_44us(void **state)
{
    (void)state;
    /* RTS, 20 bytes (§9.3.1.2): 20 + 4*ceil((16 + 160 + 6)/24) = 20 + 32. */
    assert_int_equal(airtime_legacy_us(6, 20), 52);
    /* CTS, 14 bytes (§9.3.1.3): 20 + 4*ceil((16 + 112 + 6)/24) = 20 + 24. */
    assert_int_equal(airtime_legacy_us(6, 14), 44);
}

static void test_subframe_padding_to_four_bytes(void **state)
{
    (void)state;
    assert_int_equal(airtime_subframe_bytes(104, false), 108);
    assert_int_equal(airtime_subframe_bytes(105, false), 112);
    assert_int_equal(airtime_subframe_bytes(105, true), 109);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ht20_2ss_rates_match_the_mcs_table),
        cmocka_unit_test(test_vht80_rates_match_the_mcs_table),
        cmocka_unit_test(test_vht_bcc_encoders_follow_the_vht_mcs_tables),
        cmocka_unit_test(test_vht_mcs9_at_20_mhz_with_one_or_two_streams_is_no_rate),
        cmocka_unit_test(test_vht_mcs6_at_80_mhz_with_three_streams_is_no_rate),
        cmocka_unit_test(test_hand_worked_ht_and_vht_ampdus),
        cmocka_unit_test(test_ht_mixed_preamble_is_40us_for_two_streams),
        cmocka_unit_test(test_ampdu_of_19_mtu_mpdus_at_mcs15),
        cmocka_unit_test(test_single_mpdu_at_mcs0),
        cmocka_unit_test(test_blockack_at_24mbps_takes_32us),
        cmocka_unit_test(test_blockack_rate_is_the_highest_basic_rate_not_above_the_reference_rate),
        cmocka_unit_test(test_rts_and_cts_at_6mbps_take_52_and_44us),
        cmocka_unit_test(test_subframe_padding_to_four_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
