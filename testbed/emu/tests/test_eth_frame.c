/*
 * test_eth_frame.c — classification of Ethernet frames for the air model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "eth_frame.h"
#include "wlan_air.h"

static size_t ipv4_frame(uint8_t *f, const uint8_t dst0, uint8_t dscp, int vlan)
{
    memset(f, 0, 128);
    f[0] = dst0;
    f[5] = 0x0b;
    f[6] = 0x02;
    size_t off = 12;
    if (vlan) {
        f[off] = 0x81; f[off + 1] = 0x00;
        off += 4;
    }
    f[off] = 0x08; f[off + 1] = 0x00;
    f[off + 2] = 0x45;
    f[off + 3] = (uint8_t)(dscp << 2);
    return off + 2 + 20;
}

static void test_voice_dscp_maps_to_ac_vo(void **state)
{
    (void)state;
    uint8_t f[128];
    struct eth_info i;
    eth_classify(f, ipv4_frame(f, 0x02, 46, 0), &i);
    assert_int_equal(i.kind, ETH_UNICAST);
    assert_int_equal(i.ac, WLAN_AC_VO);
    eth_classify(f, ipv4_frame(f, 0x02, 46, 1), &i);
    assert_int_equal(i.ac, WLAN_AC_VO);
    eth_classify(f, ipv4_frame(f, 0x02, 0, 0), &i);
    assert_int_equal(i.ac, WLAN_AC_BE);
    eth_classify(f, ipv4_frame(f, 0x02, 10, 0), &i);
    assert_int_equal(i.ac, WLAN_AC_BE);
}

static void test_group_and_runt_frames_are_told_apart(void **state)
{
    (void)state;
    uint8_t f[128];
    struct eth_info i;
    eth_classify(f, ipv4_frame(f, 0xff, 0, 0), &i);
    assert_int_equal(i.kind, ETH_GROUP);
    eth_classify(f, ipv4_frame(f, 0x01, 0, 0), &i); /* 01:00:5e multicast */
    assert_int_equal(i.kind, ETH_GROUP);
    eth_classify(f, 13, &i);
    assert_int_equal(i.kind, ETH_MALFORMED);
    /* A truncated IPv4 header still classifies, as best effort. */
    eth_classify(f, 15, &i);
    assert_int_equal(i.kind, ETH_GROUP);
    assert_int_equal(i.ac, WLAN_AC_BE);
}

static void test_mac_parsing_rejects_garbage(void **state)
{
    (void)state;
    uint8_t m[6];
    assert_int_equal(eth_parse_mac("02:ad:00:00:01:01", m), 0);
    assert_int_equal(m[1], 0xad);
    assert_int_equal(m[5], 0x01);
    assert_int_equal(eth_parse_mac("02:ad:00:00:01", m), -1);
    assert_int_equal(eth_parse_mac("02:ad:00:00:01:01:07", m), -1);
    assert_int_equal(eth_parse_mac("zz:ad:00:00:01:01", m), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_voice_dscp_maps_to_ac_vo),
        cmocka_unit_test(test_group_and_runt_frames_are_told_apart),
        cmocka_unit_test(test_mac_parsing_rejects_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
