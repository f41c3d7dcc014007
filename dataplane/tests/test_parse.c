/* test_parse.c — the frame parser refuses what is inconsistent and never reads past the buffer (ASan checks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "frame_builder.h"
#include "parse.h"

static const uint8_t MAC_A[6] = {0x02, 0, 0, 0, 0, 1}, MAC_B[6] = {0x02, 0, 0, 0, 0, 2};

static struct fb_tcp tcp4(uint32_t payload)
{
    struct fb_tcp t = {.ip_version = 4, .sport = 80, .dport = 40000, .seq = 1000, .ack = 5,
                       .flags = ADW_TCP_ACK, .payload_len = payload};
    memcpy(t.src_mac, MAC_A, 6);
    memcpy(t.dst_mac, MAC_B, 6);
    uint8_t s[4] = {198, 18, 0, 1}, d[4] = {198, 18, 0, 11};
    memcpy(t.src_ip, s, 4);
    memcpy(t.dst_ip, d, 4);
    return t;
}

/* Parses a heap copy of exactly len bytes so that ASan catches any read past the end. */
static int parse_exact(const uint8_t *frame, uint32_t len, struct adw_desc *d)
{
    uint8_t *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, frame, len);
    int rc = adw_parse(copy, len, d);
    free(copy);
    return rc;
}

static void test_ipv4_tcp_fields_are_decoded(void **st)
{
    (void)st;
    uint8_t buf[2048];
    struct fb_tcp t = tcp4(1448);
    t.dscp = 46;
    uint32_t n = fb_tcp(buf, sizeof(buf), &t);
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_OK);
    assert_int_equal(d.l3, ADW_L3_IPV4);
    assert_int_equal(d.l4, ADW_L4_TCP);
    assert_int_equal(d.sport, 80);
    assert_int_equal(d.dport, 40000);
    assert_int_equal(d.seq, 1000);
    assert_int_equal(d.payload_len, 1448);
    assert_int_equal(d.dscp, 46);
    assert_memory_equal(d.dst_mac, MAC_B, 6);
    assert_int_equal(d.dst_ip[3], 11);
}

static void test_every_truncation_of_a_valid_frame_is_refused_without_overread(void **st)
{
    (void)st;
    uint8_t buf[256];
    struct fb_tcp t = tcp4(40);
    t.n_sack = 2;
    t.sack_left[0] = 10, t.sack_right[0] = 20, t.sack_left[1] = 30, t.sack_right[1] = 40;
    t.n_vlans = 2;
    uint32_t n = fb_tcp(buf, sizeof(buf), &t);
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_OK);
    for (uint32_t cut = 0; cut < n; cut++)
        assert_int_equal(parse_exact(buf, cut, &d), ADW_PARSE_MALFORMED);
}

static void test_ethernet_padding_beyond_ip_length_is_ignored(void **st)
{
    (void)st;
    uint8_t buf[128] = {0};
    struct fb_tcp t = tcp4(0);
    uint32_t n = fb_tcp(buf, sizeof(buf), &t); /* 54 bytes: padded to the 60-byte Ethernet minimum */
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n + 6, &d), ADW_PARSE_OK);
    assert_int_equal(d.payload_len, 0);
}

static void test_ip_length_larger_than_frame_is_refused(void **st)
{
    (void)st;
    uint8_t buf[2048];
    struct fb_tcp t = tcp4(100);
    uint32_t n = fb_tcp(buf, sizeof(buf), &t);
    buf[14 + 2] = 0x05; /* total length 1280+ > frame */
    buf[14 + 3] = 0xdc;
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
}

static void test_oversized_frame_is_refused(void **st)
{
    (void)st;
    uint32_t n = ADW_PARSE_MAX_FRAME + 1;
    uint8_t *buf = calloc(1, n);
    assert_non_null(buf);
    struct fb_tcp t = tcp4(100);
    fb_tcp(buf, n, &t);
    struct adw_desc d;
    assert_int_equal(adw_parse(buf, n, &d), ADW_PARSE_MALFORMED);
    free(buf);
}

static void test_bad_ihl_is_refused(void **st)
{
    (void)st;
    uint8_t buf[256];
    struct fb_tcp t = tcp4(20);
    uint32_t n = fb_tcp(buf, sizeof(buf), &t);
    struct adw_desc d;
    for (uint8_t ihl = 0; ihl < 5; ihl++) {
        buf[14] = (uint8_t)(0x40 | ihl);
        assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
    }
    buf[14] = 0x4f; /* 60-byte header > total length 80? no: 60 < 80, but then TCP is cut */
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
    buf[14] = 0x55; /* version 5 */
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
}

static void test_bad_tcp_data_offset_is_refused(void **st)
{
    (void)st;
    uint8_t buf[256];
    struct fb_tcp t = tcp4(8);
    uint32_t n = fb_tcp(buf, sizeof(buf), &t);
    struct adw_desc d;
    uint8_t *doff = buf + 14 + 20 + 12;
    *doff = 0x40; /* 16 bytes < 20 */
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
    *doff = 0xf0; /* 60 bytes > 28 bytes of segment */
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
    *doff = 0x70; /* 28 bytes: all 8 payload bytes become options of kind 0 = end */
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_OK);
    assert_int_equal(d.payload_len, 0);
}

static void test_tcp_option_running_past_header_is_refused(void **st)
{
    (void)st;
    uint8_t buf[256];
    struct fb_tcp t = tcp4(0);
    t.n_sack = 1;
    uint32_t n = fb_tcp(buf, sizeof(buf), &t);
    struct adw_desc d;
    uint8_t *len_byte = buf + 14 + 20 + 20 + 3;
    *len_byte = 18; /* claims two blocks, the header holds one */
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
    *len_byte = 9; /* not 2 + 8n */
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
}

static void test_sack_blocks_are_decoded(void **st)
{
    (void)st;
    uint8_t buf[256];
    struct fb_tcp t = tcp4(0);
    t.n_sack = 3;
    for (unsigned b = 0; b < 3; b++)
        t.sack_left[b] = 0xfffffff0u + b * 100, t.sack_right[b] = 0xfffffff0u + b * 100 + 50;
    uint32_t n = fb_tcp(buf, sizeof(buf), &t);
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_OK);
    assert_int_equal(d.n_sack, 3);
    assert_int_equal(d.sack_left[2], 0xfffffff0u + 200);
    assert_int_equal(d.sack_right[1], 0xfffffff0u + 150);
}

static void test_vlan_stack_is_walked_and_too_deep_refused(void **st)
{
    (void)st;
    uint8_t buf[256];
    struct fb_tcp t = tcp4(10);
    t.n_vlans = 3;
    uint32_t n = fb_tcp(buf, sizeof(buf), &t);
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_OK);
    assert_int_equal(d.n_vlans, 3);
    assert_int_equal(d.outer_vlan, 100);
    assert_int_equal(d.l4, ADW_L4_TCP);
    t.n_vlans = ADW_PARSE_MAX_VLANS + 1;
    n = fb_tcp(buf, sizeof(buf), &t);
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
}

static uint32_t ipv6_with_ext(uint8_t *buf, uint32_t cap, const uint8_t *ext_types, unsigned n_ext, uint32_t payload)
{
    /* Build IPv6/TCP, then splice extension headers (8 bytes each) between IPv6 and TCP. */
    struct fb_tcp t = tcp4(payload);
    t.ip_version = 6;
    t.src_ip[0] = 0x20, t.src_ip[1] = 0x01, t.src_ip[15] = 1;
    t.dst_ip[0] = 0x20, t.dst_ip[1] = 0x01, t.dst_ip[15] = 2;
    uint8_t tmp[512];
    uint32_t n = fb_tcp(tmp, sizeof(tmp), &t);
    if (n + 8 * n_ext > cap)
        return 0;
    memcpy(buf, tmp, 54);
    uint8_t *ip = buf + 14;
    uint32_t plen = (uint32_t)((ip[4] << 8) | ip[5]) + 8 * n_ext;
    ip[4] = (uint8_t)(plen >> 8), ip[5] = (uint8_t)plen;
    ip[6] = n_ext ? ext_types[0] : 6;
    uint8_t *e = buf + 54;
    for (unsigned i = 0; i < n_ext; i++, e += 8) {
        memset(e, 0, 8);
        e[0] = i + 1 < n_ext ? ext_types[i + 1] : 6;
        e[1] = 0;
    }
    memcpy(e, tmp + 54, n - 54);
    return n + 8 * n_ext;
}

static void test_ipv6_extension_headers_are_skipped_to_tcp(void **st)
{
    (void)st;
    uint8_t buf[512];
    const uint8_t ext[] = {0, 60, 43, 60};
    uint32_t n = ipv6_with_ext(buf, sizeof(buf), ext, 4, 100);
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_OK);
    assert_int_equal(d.l3, ADW_L3_IPV6);
    assert_int_equal(d.l4, ADW_L4_TCP);
    assert_int_equal(d.payload_len, 100);
    assert_int_equal(d.dst_ip[15], 2);
    for (uint32_t cut = 0; cut < n; cut++)
        assert_int_equal(parse_exact(buf, cut, &d), ADW_PARSE_MALFORMED);
}

static void test_ipv6_extension_header_longer_than_payload_is_refused(void **st)
{
    (void)st;
    uint8_t buf[512];
    const uint8_t ext[] = {60};
    uint32_t n = ipv6_with_ext(buf, sizeof(buf), ext, 1, 0);
    buf[54 + 1] = 200; /* 1608-byte destination options header */
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
}

static void test_ipv6_too_many_extension_headers_is_refused(void **st)
{
    (void)st;
    uint8_t buf[512];
    uint8_t ext[ADW_PARSE_MAX_EXTHDR + 1];
    memset(ext, 60, sizeof(ext));
    uint32_t n = ipv6_with_ext(buf, sizeof(buf), ext, sizeof(ext), 0);
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
}

static void test_ipv6_fragment_is_marked_and_has_no_ports(void **st)
{
    (void)st;
    uint8_t buf[512];
    const uint8_t ext[] = {44};
    uint32_t n = ipv6_with_ext(buf, sizeof(buf), ext, 1, 16);
    buf[54 + 3] = 1; /* M flag */
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_OK);
    assert_true(d.fragment);
    assert_int_equal(d.l4, ADW_L4_OTHER);
}

static void test_udp_length_field_is_checked(void **st)
{
    (void)st;
    uint8_t buf[256];
    uint8_t s[4] = {198, 18, 0, 1}, dd[4] = {198, 18, 0, 11};
    uint32_t n = fb_udp4(buf, sizeof(buf), MAC_A, MAC_B, s, dd, 46, 5000, 5004, 20);
    struct adw_desc d;
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_OK);
    assert_int_equal(d.l4, ADW_L4_UDP);
    assert_int_equal(d.payload_len, 20);
    buf[14 + 20 + 5] = 4; /* UDP length 4 < 8 */
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
    buf[14 + 20 + 5] = 200; /* longer than the datagram */
    assert_int_equal(parse_exact(buf, n, &d), ADW_PARSE_MALFORMED);
}

static void test_random_bytes_never_crash_the_parser(void **st)
{
    (void)st;
    uint8_t buf[200];
    uint32_t x = 12345;
    struct adw_desc d;
    unsigned ok = 0;
    for (unsigned it = 0; it < 20000; it++) {
        uint32_t len = (x = x * 1664525u + 1013904223u) % sizeof(buf);
        for (uint32_t i = 0; i < len; i++)
            buf[i] = (uint8_t)((x = x * 1664525u + 1013904223u) >> 24);
        if (len > 13 && (it & 1)) { /* steer half of them into the IPv4/IPv6 parsers */
            buf[12] = (it & 2) ? 0x86 : 0x08;
            buf[13] = (it & 2) ? 0xdd : 0x00;
            buf[14] = (uint8_t)((it & 2) ? 0x60 : (0x45 | (buf[14] & 0x0f)));
        }
        ok += parse_exact(buf, len, &d) == ADW_PARSE_OK;
    }
    assert_true(ok > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipv4_tcp_fields_are_decoded),
        cmocka_unit_test(test_every_truncation_of_a_valid_frame_is_refused_without_overread),
        cmocka_unit_test(test_ethernet_padding_beyond_ip_length_is_ignored),
        cmocka_unit_test(test_ip_length_larger_than_frame_is_refused),
        cmocka_unit_test(test_oversized_frame_is_refused),
        cmocka_unit_test(test_bad_ihl_is_refused),
        cmocka_unit_test(test_bad_tcp_data_offset_is_refused),
        cmocka_unit_test(test_tcp_option_running_past_header_is_refused),
        cmocka_unit_test(test_sack_blocks_are_decoded),
        cmocka_unit_test(test_vlan_stack_is_walked_and_too_deep_refused),
        cmocka_unit_test(test_ipv6_extension_headers_are_skipped_to_tcp),
        cmocka_unit_test(test_ipv6_extension_header_longer_than_payload_is_refused),
        cmocka_unit_test(test_ipv6_too_many_extension_headers_is_refused),
        cmocka_unit_test(test_ipv6_fragment_is_marked_and_has_no_ports),
        cmocka_unit_test(test_udp_length_field_is_checked),
        cmocka_unit_test(test_random_bytes_never_crash_the_parser),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
