/*
 * Generates the recorded traffic mix of `make bench`: N STAs behind A APs
 * (STA s on AP s % A), a configuration document for them, and pcaps:
 *   uplink.pcap   what the wired side sends: per-STA downlink TCP data
 *                 (1500-byte frames, sequence numbers advancing per flow,
 *                 STAs interleaved round-robin) with 1 frame in 17 unmanaged
 *                 (ARP requests and ICMP echo) as on a campus LAN;
 *   acks.pcap     what the APs send back: the STAs' TCP ACKs (one per two
 *                 data segments, delayed-ACK style), all APs' in the order
 *                 they were recorded;
 *   idle.pcap     no frames (the receive side of the other AP ports).
 * The recording is 2 data frames and 1/8 unmanaged frame per ACK: 32 % ACKs.
 * The harness replays every receive port at the same rate (one burst per port
 * per poll, in adwiser-dp and testpmd alike), so the ACKs come in on one AP
 * port, which offers one ACK burst per uplink burst (50 % ACKs): spread over
 * the A AP ports they were A/(A+1) of the offered packets (94 % with 16 APs),
 * and nearer the recorded third it cannot come without reading ports at
 * different rates, which neither program does. The core does not tie a STA's
 * uplink to its AP's port; the downlink still goes to all A AP ports.
 * Addresses: servers 198.18.0.1, STAs 198.19.x.y, MACs 02:ad:…  (RFC 2544
 * benchmarking range only; the frames never leave DPDK's virtual ports).
 * Written with libpcap's dump API.
 *
 * usage: gen_sta_mix OUT_DIR [n_stas=4096 (1..65536)] [n_aps=16 (1..64)] [rounds=8 (1..1000000)]
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_FRAME 1514u  /* bytes: Ethernet + IPv4 + TCP + 1460 payload */
#define MSS 1460u         /* TCP payload per data frame, bytes */
#define ACK_FRAME 54u     /* bytes: Ethernet + IPv4 + TCP, no payload */

static const uint8_t server_mac[6] = {0x02, 0xad, 0xff, 0x00, 0x00, 0x01};

static void sta_mac(unsigned s, uint8_t mac[6])
{
    mac[0] = 0x02; mac[1] = 0xad; mac[2] = 0x10;
    mac[3] = (uint8_t)(s >> 16); mac[4] = (uint8_t)(s >> 8); mac[5] = (uint8_t)s;
}

static uint32_t sta_ip(unsigned s) { return (198u << 24) | (19u << 16) | ((s >> 8) << 8) | (s & 0xffu); }
static const uint32_t server_ip = (198u << 24) | (18u << 16) | 1u;

static uint16_t csum(const uint8_t *p, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (n & 1)
        s += (uint32_t)(p[n - 1] << 8);
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)(v >> 16)); put16(p + 2, (uint16_t)v); }

/* Ethernet + IPv4 + TCP (checksums: IPv4 header only; TCP left 0, as after checksum offload). */
static size_t tcp_frame(uint8_t *f, const uint8_t *dmac, const uint8_t *smac, uint32_t sip, uint32_t dip,
                        uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags, unsigned payload)
{
    size_t len = 14 + 20 + 20 + payload;
    memset(f, 0, len);
    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    put16(f + 12, 0x0800);
    uint8_t *ip = f + 14;
    ip[0] = 0x45;
    put16(ip + 2, (uint16_t)(20 + 20 + payload));
    ip[6] = 0x40;  /* DF */
    ip[8] = 64;
    ip[9] = 6;
    put32(ip + 12, sip);
    put32(ip + 16, dip);
    put16(ip + 10, csum(ip, 20));
    uint8_t *tcp = ip + 20;
    put16(tcp, sport);
    put16(tcp + 2, dport);
    put32(tcp + 4, seq);
    put32(tcp + 8, ack);
    tcp[12] = 5 << 4;
    tcp[13] = flags;
    put16(tcp + 14, 65535);
    return len;
}

static size_t arp_request(uint8_t *f, unsigned s)
{
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    memset(f, 0, 60);
    memcpy(f, bcast, 6);
    memcpy(f + 6, server_mac, 6);
    put16(f + 12, 0x0806);
    uint8_t *a = f + 14;
    put16(a, 1); put16(a + 2, 0x0800); a[4] = 6; a[5] = 4; put16(a + 6, 1);
    memcpy(a + 8, server_mac, 6);
    put32(a + 14, server_ip);
    put32(a + 24, sta_ip(s));
    return 60;
}

static size_t icmp_echo(uint8_t *f, unsigned s, uint16_t seq)
{
    uint8_t dmac[6];
    sta_mac(s, dmac);
    size_t len = 14 + 20 + 8 + 56;
    memset(f, 0, len);
    memcpy(f, dmac, 6);
    memcpy(f + 6, server_mac, 6);
    put16(f + 12, 0x0800);
    uint8_t *ip = f + 14;
    ip[0] = 0x45; put16(ip + 2, 20 + 8 + 56); ip[8] = 64; ip[9] = 1;
    put32(ip + 12, server_ip); put32(ip + 16, sta_ip(s));
    put16(ip + 10, csum(ip, 20));
    uint8_t *ic = ip + 20;
    ic[0] = 8; put16(ic + 6, seq);
    put16(ic + 2, csum(ic, 8 + 56));
    return len;
}

static void dump(pcap_dumper_t *d, const uint8_t *f, size_t len, unsigned long long *t_us)
{
    struct pcap_pkthdr h;
    h.ts.tv_sec = (time_t)(*t_us / 1000000u);
    h.ts.tv_usec = (suseconds_t)(*t_us % 1000000u);
    h.caplen = h.len = (bpf_u_int32)len;
    pcap_dump((u_char *)d, &h, f);
    *t_us += 12;   /* ~1 Gbit/s spacing, for tools that look at the timestamps */
}

static int write_config(const char *path, unsigned n_stas, unsigned n_aps)
{
    json_t *aps = json_array(), *stas = json_array(), *s0 = json_array(), *s1 = json_array();
    char id[64], mac[32], ip[32], pair[128];
    for (unsigned a = 0; a < n_aps; a++) {
        snprintf(id, sizeof(id), "ap%u", a + 1);
        json_array_append_new(aps, json_pack("{s:s, s:i, s:s, s:n}", "id", id, "channel", 36, "port", id, "vlan"));
    }
    for (unsigned s = 0; s < n_stas; s++) {
        uint8_t m[6];
        sta_mac(s, m);
        uint32_t i = sta_ip(s);
        snprintf(id, sizeof(id), "sta%u", s + 1);
        snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
        snprintf(ip, sizeof(ip), "%u.%u.%u.%u", i >> 24, (i >> 16) & 255, (i >> 8) & 255, i & 255);
        snprintf(pair, sizeof(pair), "ap%u/sta%u", s % n_aps + 1, s + 1);
        char apid[32];
        snprintf(apid, sizeof(apid), "ap%u", s % n_aps + 1);
        json_array_append_new(stas, json_pack("{s:s, s:s, s:[s], s:s}", "id", id, "mac", mac, "ips", ip, "ap", apid));
        /* Even APs in slice 1, odd APs in slice 2: neighbouring APs alternate. */
        json_array_append_new((s % n_aps) % 2 ? s1 : s0, json_string(pair));
    }
    json_t *slices = json_array();
    json_array_append_new(slices, json_pack("{s:i, s:o}", "duration_ms", 20, "pairs", s0));
    if (json_array_size(s1))
        json_array_append_new(slices, json_pack("{s:i, s:o}", "duration_ms", 20, "pairs", s1));
    else
        json_decref(s1);
    json_t *doc = json_pack(
        "{s:i, s:s, s:{s:o, s:o, s:[]}, s:{s:o}, s:{"
        "s:{s:f, s:i, s:i, s:i, s:f, s:f}, s:{s:b, s:[]}, s:{s:[i], s:[]},"
        "s:{s:f, s:i, s:i, s:i, s:f, s:f, s:f},"
        "s:{s:b, s:i, s:f, s:f, s:f, s:f, s:[]}}}",
        "schema_version", 1, "appliance_id", "bench",
        "topology", "aps", aps, "stas", stas, "conflicts",
        "slice_map", "slices", slices,
        "policies",
        "ts_abr_qd", "a_pkts_per_ms", 1.0, "r_init_pkts", 40, "r_min_pkts", 2, "r_max_pkts", 2048,
        "v_cap_factor", 3.0, "rate_change_reset", 0.5,
        "dynamic_slicing", "enabled", 0, "pairs",
        "realtime", "dscp", 46, "udp_ports",
        "queue_sizing", "t_max_ms", 200.0, "c_pkts", 5, "q_max_pkts", 4096, "q_min_pkts", 32, "a1", 0.1, "b1", 0.1,
        "ewma_alpha", 0.1,
        "aggregation_target", "enabled", 0, "n_target_max", 48, "t_bar_ms", 10.0, "k1", 0.5, "k2", 0.2,
        "delta_s", 0.5, "pairs");
    if (!doc)
        return -1;
    int rc = json_dump_file(doc, path, JSON_INDENT(1));
    json_decref(doc);
    return rc;
}

/* A whole decimal number in 1..max and nothing else: atoi took "16abc" as 16, and "-1" rounds as 2^32 - 1,
 * which wrote pcaps until the disk was full. */
static int count_arg(const char *s, unsigned max, unsigned *out)
{
    if (!isdigit((unsigned char)s[0]))
        return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 1 || v > max)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT_DIR [n_stas] [n_aps] [rounds]\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    unsigned n_stas = 4096, n_aps = 16, rounds = 8;
    if (argc > 5 || (argc > 2 && count_arg(argv[2], 65536, &n_stas) != 0) ||
        (argc > 3 && count_arg(argv[3], 64, &n_aps) != 0) || (argc > 4 && count_arg(argv[4], 1000000, &rounds) != 0)) {
        fprintf(stderr, "gen_sta_mix: need 1..65536 STAs, 1..64 APs, 1..1000000 rounds\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/config.json", dir);
    if (write_config(path, n_stas, n_aps) != 0) {
        fprintf(stderr, "gen_sta_mix: cannot write %s\n", path);
        return 1;
    }
    pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
    pcap_dumper_t *up = NULL, *acks = NULL, *idle = NULL;
    const char *names[3] = {"uplink.pcap", "acks.pcap", "idle.pcap"};
    pcap_dumper_t **dumpers[3] = {&up, &acks, &idle};
    for (unsigned i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        if (!(*dumpers[i] = pcap_dump_open(dead, path))) {
            fprintf(stderr, "gen_sta_mix: cannot write %s\n", path);
            return 1;
        }
    }
    static uint8_t f[2048];
    unsigned long long t_up = 0, t_ap = 0, n_up = 0, n_ack = 0;
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned s = 0; s < n_stas; s++) {
            uint8_t smac[6];
            sta_mac(s, smac);
            uint16_t sport = 5201, dport = (uint16_t)(40000 + s % 20000);
            for (unsigned k = 0; k < 2; k++) {
                uint32_t seq = 1000u + (r * 2 + k) * MSS;
                size_t len = tcp_frame(f, smac, server_mac, server_ip, sta_ip(s), sport, dport, seq, 1, 0x18, MSS);
                dump(up, f, len, &t_up);
                n_up++;
            }
            size_t len = tcp_frame(f, server_mac, smac, sta_ip(s), server_ip, dport, sport, 1,
                                   1000u + (r * 2 + 2) * MSS, 0x10, 0);
            dump(acks, f, len, &t_ap);
            n_ack++;
            if (s % 8 == 0) {   /* 1 in 17 uplink frames unmanaged */
                len = (s / 8) % 2 ? arp_request(f, s) : icmp_echo(f, s, (uint16_t)r);
                dump(up, f, len, &t_up);
                n_up++;
            }
        }
    }
    pcap_dump_close(up);
    pcap_dump_close(acks);
    pcap_dump_close(idle);
    pcap_close(dead);
    printf("gen_sta_mix: %u STAs on %u APs: %llu uplink frames, %llu ACK frames (%.1f %% ACKs) in %s\n", n_stas, n_aps,
           n_up, n_ack, 100.0 * (double)n_ack / (double)(n_up + n_ack), dir);
    (void)DATA_FRAME;
    (void)ACK_FRAME;
    return 0;
}
