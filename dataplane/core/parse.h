/*
 * parse.h — frame parser of the core: Ethernet, 802.1Q/802.1ad stacks, IPv4,
 * IPv6 with extension headers, TCP (with SACK blocks) and UDP into a compact
 * descriptor. It never reads past data+len and refuses (ADW_PARSE_MALFORMED)
 * what is inconsistent; the caller counts that and passes the frame on.
 */
#ifndef ADW_CORE_PARSE_H
#define ADW_CORE_PARSE_H

#include <stdbool.h>
#include <stdint.h>

#define ADW_PARSE_MAX_VLANS  8
#define ADW_PARSE_MAX_EXTHDR 8
#define ADW_PARSE_MAX_FRAME  (65535u + 14u + 4u * ADW_PARSE_MAX_VLANS) /* larger frames are refused */
#define ADW_MAX_SACK 4

#define ADW_TCP_FIN 0x01
#define ADW_TCP_SYN 0x02
#define ADW_TCP_RST 0x04
#define ADW_TCP_PSH 0x08
#define ADW_TCP_ACK 0x10

enum adw_l3 { ADW_L3_OTHER = 0, ADW_L3_ARP, ADW_L3_IPV4, ADW_L3_IPV6 };
enum adw_l4 { ADW_L4_NONE = 0, ADW_L4_TCP, ADW_L4_UDP, ADW_L4_ICMP, ADW_L4_OTHER };
enum adw_parse_result { ADW_PARSE_OK = 0, ADW_PARSE_MALFORMED = -1 };

struct adw_desc {
    uint8_t dst_mac[6], src_mac[6];
    uint8_t n_vlans;                 /* 802.1Q/802.1ad tags in front of the ethertype */
    uint16_t outer_vlan;             /* VLAN id of the first tag (0 if none) */
    uint16_t ethertype;              /* after the tags */
    uint8_t l3;                      /* enum adw_l3 */
    uint8_t l4;                      /* enum adw_l4 */
    uint8_t dscp;                    /* IPv4 TOS >> 2 or IPv6 traffic class >> 2 */
    bool fragment;                   /* IPv4/IPv6 fragment: no L4 fields */
    uint8_t src_ip[16], dst_ip[16];  /* network order; IPv4 in [0..3] */
    uint16_t sport, dport;           /* TCP/UDP ports, host order */
    uint32_t seq, ack;               /* TCP sequence and acknowledgement numbers, host order */
    uint8_t tcp_flags;               /* ADW_TCP_* */
    uint8_t n_sack;                  /* SACK blocks present */
    uint32_t sack_left[ADW_MAX_SACK], sack_right[ADW_MAX_SACK]; /* SACK block edges, host order */
    uint32_t payload_len;            /* TCP/UDP payload bytes (from the IP length, not the frame length) */
};

/* ADW_PARSE_OK and d filled, or ADW_PARSE_MALFORMED (d partially filled; do not use). */
int adw_parse(const uint8_t *data, uint32_t len, struct adw_desc *d);

#endif
