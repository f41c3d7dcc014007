/*
 * frame_builder.h — writes Ethernet/802.1Q/IPv4/IPv6/TCP/UDP frames into a
 * caller's buffer for the tests (network byte order, checksums left zero:
 * the core does not verify them).
 */
#ifndef ADW_TEST_FRAME_BUILDER_H
#define ADW_TEST_FRAME_BUILDER_H

#include <stdint.h>

struct fb_tcp {
    uint8_t src_mac[6], dst_mac[6];
    uint8_t ip_version;         /* 4 or 6 */
    uint8_t src_ip[16], dst_ip[16];
    uint8_t dscp;
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;              /* ADW_TCP_* */
    uint32_t payload_len;       /* bytes of zero payload */
    uint8_t n_sack;             /* SACK blocks to add as an option */
    uint32_t sack_left[4], sack_right[4];
    uint8_t n_vlans;            /* 802.1Q tags to insert */
};

/* Returns the frame length written into buf (cap bytes), 0 if it does not fit. */
uint32_t fb_tcp(uint8_t *buf, uint32_t cap, const struct fb_tcp *t);
/* UDP over IPv4 (payload of zero bytes). */
uint32_t fb_udp4(uint8_t *buf, uint32_t cap, const uint8_t src_mac[6], const uint8_t dst_mac[6],
                 const uint8_t src_ip[4], const uint8_t dst_ip[4], uint8_t dscp, uint16_t sport, uint16_t dport,
                 uint32_t payload_len);
/* ARP request (broadcast). */
uint32_t fb_arp(uint8_t *buf, uint32_t cap, const uint8_t src_mac[6]);

#endif
