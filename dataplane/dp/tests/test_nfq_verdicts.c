/*
 * The NFQUEUE backend's verdicts for the core's decisions (dp/nfq_verdicts.c), with the kernel queue replaced by a
 * recorder of the verdicts in the order given: a verdict reinjects its packet at once, so that order is the order
 * the packets leave.  The lab JSON is configs/lab-2ap-2sta.yaml converted by dp.mk ($ADW_LAB_JSON).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <linux/netfilter.h>

#include "dp_engine.h"
#include "frame_builder.h"
#include "lab_engine.h"
#include "nfq_verdicts.h"

#define N_PORTS 3   /* uplink, ap1, ap2 */

static const uint8_t SERVER_MAC[6] = {0x02, 0xad, 0x00, 0x00, 0x00, 0x01};
static const uint8_t STA2_MAC[6] = {0x02, 0xad, 0x00, 0x00, 0x02, 0x01};
static const uint8_t SERVER_IP[4] = {198, 18, 0, 1}, STA2_IP[4] = {198, 18, 0, 12};

/* TCP data from the server to sta2: held by the core until sta2's slice. */
static uint32_t tcp_to_sta2(uint8_t *buf, uint32_t cap)
{
    struct fb_tcp t = {.ip_version = 4, .sport = 5001, .dport = 40000, .flags = 0x18 /* PSH, ACK */,
                       .payload_len = 100};
    memcpy(t.src_mac, SERVER_MAC, 6);
    memcpy(t.dst_mac, STA2_MAC, 6);
    memcpy(t.src_ip, SERVER_IP, 4);
    memcpy(t.dst_ip, STA2_IP, 4);
    return fb_tcp(buf, cap, &t);
}

#define GIVEN_MAX 64

/* The test's clock: each verdict the recorder takes costs VERDICT_NS of it, as a verdict costs the loop on Linux. */
#define VERDICT_NS 5000u
static uint64_t fake_now;
static uint64_t fake_clock(void)
{
    return fake_now;
}

struct given {
    unsigned n;
    uint32_t id[GIVEN_MAX], verdict[GIVEN_MAX];
    unsigned refuse;   /* the kernel refuses this many sends (each refused verdict counted in refused) */
    unsigned refused;
};

static int record(void *arg, uint32_t id, uint32_t verdict)
{
    struct given *g = arg;
    if (g->refuse) {
        g->refuse--;
        g->refused++;
        return -1;
    }
    assert_true(g->n < GIVEN_MAX);
    fake_now += VERDICT_NS;
    g->id[g->n] = id;
    g->verdict[g->n++] = verdict;
    return 0;
}

/* A packet as the queue hands it over: id and frame in one allocation, the adw_pkt's cookie. */
static struct adw_pkt held(uint32_t id, const uint8_t *frame, uint32_t len)
{
    struct nfq_held *h = malloc(sizeof(*h) + len);
    assert_non_null(h);
    h->id = id;
    h->len = len;
    h->route_port = NFQ_NO_PORT;
    memcpy(h->frame, frame, len);
    return (struct adw_pkt){.data = h->frame, .len = len, .in_port = 0, .cookie = h};
}

/* The backend on the lab engine (started at 1 s, hold_pkts held at most), its verdicts taken by the recorder. */
struct nfq_lab {
    struct dp_options o; /* the engine keeps a pointer to its options */
    struct dp_engine e;
    struct given g;
    struct nfq_verdicts v;
};

/* Starts *l; clock: the backend's (NULL: only a burst's start counts, nfq_verdicts.h). */
static void nfq_lab_start(struct nfq_lab *l, uint32_t hold_pkts, uint64_t (*clock)(void))
{
    l->o = (struct dp_options){.hold_pkts = hold_pkts};
    lab_engine_start(&l->e, &l->o, N_PORTS, "nfqueue", 1000000000ull);
    l->g = (struct given){0};
    l->v = (struct nfq_verdicts){.e = &l->e, .n_ports = N_PORTS, .send = record, .arg = &l->g, .clock = clock};
}

/*
 * One burst from the uplink: an ARP broadcast (passed) and then voice to sta2 (DSCP EF), which the core releases
 * on arrival (no drain open).  The voice packet's verdict comes first, as the DPDK loop sends it first
 * (test_release_leaves_before_passed_traffic.sh): the core released it for the instant the air is clear.
 */
static void test_what_a_burst_releases_gets_its_verdict_before_the_passed_packets(void **state)
{
    (void)state;
    struct nfq_lab l;
    nfq_lab_start(&l, 1024, NULL);
    uint8_t buf[256];
    struct adw_pkt burst[2];
    uint32_t n = fb_arp(buf, sizeof(buf), SERVER_MAC);
    assert_true(n > 0);
    burst[0] = held(1, buf, n);
    n = fb_udp4(buf, sizeof(buf), SERVER_MAC, STA2_MAC, SERVER_IP, STA2_IP, 46, 5004, 5004, 20);
    assert_true(n > 0);
    burst[1] = held(2, buf, n);
    uint64_t now = 1000000000ull + 1000, due = 1000000000ull + 20000000ull;
    nfq_verdicts_burst(&l.v, burst, 2, now, &due);
    nfq_verdicts_release_due(&l.v, now);
    assert_int_equal(l.g.n, 2);
    assert_int_equal(l.g.id[0], 2);
    assert_int_equal(l.g.verdict[0], NF_ACCEPT);
    assert_int_equal(l.g.id[1], 1);
    assert_int_equal(l.g.verdict[1], NF_ACCEPT);
    assert_int_equal(l.e.c.tx_pkts, 2);
    assert_int_equal(l.e.c.released_pkts, 1);
    assert_int_equal(l.e.c.passed_pkts, 1);
    assert_int_equal(nfq_verdicts_flush(&l.v), 0);
    dp_engine_finish(&l.e);
}

/*
 * The kernel refuses a verdict (the netlink send fails, e.g. ENOBUFS): the packet is still queued in the kernel, so
 * the verdict is given again, before any later one, and the packet is counted once, when it leaves.
 */
static void test_a_verdict_the_kernel_refuses_is_given_again_before_the_next_one(void **state)
{
    (void)state;
    struct nfq_lab l;
    nfq_lab_start(&l, 1024, NULL);
    l.g.refuse = 2;
    uint8_t buf[256];
    uint32_t n = fb_arp(buf, sizeof(buf), SERVER_MAC);
    assert_true(n > 0);
    uint64_t now = 1000000000ull + 1000, due = 1000000000ull + 20000000ull;
    /* Passed at once, refused: it waits. */
    struct adw_pkt first = held(1, buf, n);
    nfq_verdicts_burst(&l.v, &first, 1, now, &due);
    assert_int_equal(l.g.n, 0);
    assert_int_equal(l.e.c.tx_pkts, 0);
    /* The loop's next release tries again; refused again, it still waits. */
    nfq_verdicts_release_due(&l.v, now + 1000);
    assert_int_equal(l.g.refused, 2);
    assert_int_equal(l.g.n, 0);
    /* The next verdict: the waiting one first. */
    struct adw_pkt second = held(2, buf, n);
    nfq_verdicts_burst(&l.v, &second, 1, now + 2000, &due);
    assert_int_equal(l.g.n, 2);
    assert_int_equal(l.g.id[0], 1);
    assert_int_equal(l.g.verdict[0], NF_ACCEPT);
    assert_int_equal(l.g.id[1], 2);
    assert_int_equal(l.e.c.tx_pkts, 2);
    assert_int_equal(l.e.c.verdicts_retried, 1);
    assert_int_equal(nfq_verdicts_lost(&l.v), 0);
    dp_engine_finish(&l.e);
}

/* A packet whose verdict the kernel never takes is lost when the queue is unbound: --stats counts it (tx_drops). */
static void test_a_verdict_still_refused_at_shutdown_is_counted_lost(void **state)
{
    (void)state;
    struct nfq_lab l;
    nfq_lab_start(&l, 1024, NULL);
    l.g.refuse = 100;
    uint8_t buf[256];
    uint32_t n = fb_arp(buf, sizeof(buf), SERVER_MAC);
    assert_true(n > 0);
    uint64_t now = 1000000000ull + 1000, due = 1000000000ull + 20000000ull;
    struct adw_pkt burst[2] = {held(1, buf, n), held(2, buf, n)};
    nfq_verdicts_burst(&l.v, burst, 2, now, &due);
    assert_int_equal(nfq_verdicts_lost(&l.v), 2);
    assert_int_equal(l.e.c.tx_pkts, 0);
    dp_engine_finish(&l.e);
}

/*
 * Two TCP segments to sta2 in one burst on a backend holding at most one packet (the first held, the second
 * dropped by the core, pool full), with the kernel refusing every verdict from then on.
 */
static void two_segments_to_sta2_every_verdict_refused(struct nfq_lab *l)
{
    nfq_lab_start(l, 1, NULL);
    l->g.refuse = 100;
    uint8_t buf[256];
    uint32_t n = tcp_to_sta2(buf, sizeof(buf));
    assert_true(n > 0);
    uint64_t now = 1000000000ull + 1000, due = 1000000000ull + 20000000ull;
    struct adw_pkt burst[2] = {held(1, buf, n), held(2, buf, n)};
    nfq_verdicts_burst(&l->v, burst, 2, now, &due);
}

/*
 * A packet the core dropped (pool full) gets NF_DROP; refused until shutdown, the unbind drops it, which is its
 * verdict: it is not lost, so it is counted once, in dropped_pkts, not again in tx_drops (every packet has one
 * outcome: tx_pkts + tx_drops = rx_pkts - dropped_pkts, test_e2e_nfqueue.sh).  The held one is lost.
 */
static void test_a_drop_verdict_still_refused_at_shutdown_is_not_counted_lost(void **state)
{
    (void)state;
    struct nfq_lab l;
    two_segments_to_sta2_every_verdict_refused(&l);
    assert_int_equal(l.e.c.queued_pkts, 1);
    assert_int_equal(l.e.c.dropped_pkts, 1);
    assert_int_equal(nfq_verdicts_flush(&l.v), 1);
    l.e.c.tx_drops += nfq_verdicts_lost(&l.v);
    assert_int_equal(l.e.c.tx_drops, 1);
    assert_int_equal(l.e.c.tx_pkts + l.e.c.tx_drops, l.e.c.rx_pkts - l.e.c.dropped_pkts);
    dp_engine_finish(&l.e);
}

/*
 * A packet read whose verdict (NF_ACCEPT or NF_DROP) the kernel still refuses at shutdown is in the kernel's queue
 * until the unbind, beside the unread ones: the loop takes these out of the queue's entries, so that only unread
 * packets are counted in shutdown_lost_pkts (nfq_trailing_ids).
 */
static void test_packets_read_whose_verdict_is_refused_are_still_queued_in_the_kernel(void **state)
{
    (void)state;
    struct nfq_lab l;
    two_segments_to_sta2_every_verdict_refused(&l);
    assert_int_equal(nfq_verdicts_flush(&l.v), 1);
    assert_int_equal(nfq_verdicts_unanswered(&l.v), 2);
    l.g.refuse = 0;
    nfq_verdicts_lost(&l.v);
    assert_int_equal(nfq_verdicts_unanswered(&l.v), 0);
    dp_engine_finish(&l.e);
}

/*
 * UDP from the server to a host the configuration does not know (the NFQUEUE backend gives it a zero destination
 * MAC), which the core passes as a flood, handed to the backend in one burst as the kernel queued it to go out of
 * route_port (the queue's output device).
 */
static void pass_a_flood_routed_to(struct nfq_lab *l, uint16_t route_port)
{
    static const uint8_t ZERO_MAC[6] = {0}, UNKNOWN_IP[4] = {198, 18, 0, 99};
    uint8_t buf[256];
    uint32_t n = fb_udp4(buf, sizeof(buf), SERVER_MAC, ZERO_MAC, SERVER_IP, UNKNOWN_IP, 0, 5004, 5004, 20);
    assert_true(n > 0);
    struct adw_pkt p = held(1, buf, n);
    ((struct nfq_held *)p.cookie)->route_port = route_port;
    uint64_t now = 1000000000ull + 1000, due = 1000000000ull + 20000000ull;
    nfq_verdicts_burst(&l->v, &p, 1, now, &due);
}

/*
 * A packet to a host the configuration does not know (the NFQUEUE backend gives it a zero destination MAC) is
 * passed by the core as a flood; routed, the kernel sends it out of one interface, the queue's output device, and
 * it is counted on that port, so the ports add up to the total (test_e2e_nfqueue.sh, "every packet is counted
 * once, in total and on its port").
 */
static void test_a_passed_flood_is_counted_on_the_port_the_kernel_routes_it_to(void **state)
{
    (void)state;
    struct nfq_lab l;
    nfq_lab_start(&l, 1024, NULL);
    pass_a_flood_routed_to(&l, 2);
    assert_int_equal(l.e.c.passed_pkts, 1);
    assert_int_equal(l.g.n, 1);
    assert_int_equal(l.e.c.tx_pkts, 1);
    assert_int_equal(l.e.port_tx[0] + l.e.port_tx[1] + l.e.port_tx[2], 1);
    assert_int_equal(l.e.port_tx[2], 1);
    dp_engine_finish(&l.e);
}

/*
 * A flood the kernel routes out of an interface that is none of the ports (a management interface of the appliance)
 * is counted in tx_pkts on no port, and apart (routed_elsewhere_pkts), so that the ports still add up to the total
 * less what the README lists: counted on no port and nowhere else, the per-port sum fell short of it.
 */
static void test_a_flood_routed_out_of_no_port_keeps_the_ports_adding_up(void **state)
{
    (void)state;
    struct nfq_lab l;
    nfq_lab_start(&l, 1024, NULL);
    pass_a_flood_routed_to(&l, NFQ_ELSEWHERE); /* the kernel's output device is none of ours */
    assert_int_equal(l.e.c.passed_pkts, 1);
    assert_int_equal(l.e.c.tx_pkts, 1);
    assert_int_equal(l.e.c.routed_elsewhere_pkts, 1);
    uint64_t port_tx = l.e.port_tx[0] + l.e.port_tx[1] + l.e.port_tx[2];
    assert_int_equal(port_tx, l.e.c.tx_pkts - l.e.c.drained_pkts - l.e.c.unscheduled_pkts - l.e.c.routed_elsewhere_pkts);
    dp_engine_finish(&l.e);
}

/*
 * A packet from an interface that is none of the ports (or one that could not be held) is accepted without the
 * core: it is counted in tx_pkts on no port, and apart (unscheduled_pkts), so that what left still adds up to what
 * came in, in total and per port (test_e2e_nfqueue.sh), beside a scheduled packet from the uplink.
 */
static void test_a_packet_accepted_without_the_core_keeps_the_counters_balanced(void **state)
{
    (void)state;
    struct dp_engine e;
    struct dp_options o = {.hold_pkts = 1024};
    lab_engine_start(&e, &o, N_PORTS, "nfqueue", 1000000000ull);
    struct given g = {0};
    struct nfq_verdicts v = {.e = &e, .n_ports = N_PORTS, .send = record, .arg = &g};
    uint8_t buf[256];
    uint32_t n = fb_arp(buf, sizeof(buf), SERVER_MAC);
    assert_true(n > 0);
    struct adw_pkt p = held(1, buf, n);
    ((struct nfq_held *)p.cookie)->route_port = 1;
    uint64_t now = 1000000000ull + 1000, due = 1000000000ull + 20000000ull;
    nfq_verdicts_burst(&v, &p, 1, now, &due);
    nfq_verdicts_pass_unscheduled(&v, 2);
    assert_int_equal(g.n, 2);
    assert_int_equal(g.id[1], 2);
    assert_int_equal(g.verdict[1], NF_ACCEPT);
    assert_int_equal(e.c.rx_pkts, 1);
    assert_int_equal(e.c.tx_pkts, 2);
    assert_int_equal(e.c.unscheduled_pkts, 1);
    assert_int_equal(e.c.tx_pkts + e.c.tx_drops,
                     e.c.rx_pkts - e.c.dropped_pkts + e.c.drained_pkts + e.c.unscheduled_pkts);
    uint64_t port_rx = 0, port_tx = 0;
    for (unsigned i = 0; i < N_PORTS; i++) {
        port_rx += e.port_rx[i];
        port_tx += e.port_tx[i];
    }
    assert_int_equal(port_rx, e.c.rx_pkts);
    assert_int_equal(port_tx, e.c.tx_pkts - e.c.drained_pkts - e.c.unscheduled_pkts);
    dp_engine_finish(&e);
}

/*
 * A burst read 100 µs before sta2's slice starts: data for sta2 (held) and 40 ARP broadcasts (passed).  Their
 * verdicts take 200 µs, so the slice starts while they are given: sta2's data is released then, after the 20 given
 * by the slice start and before the other 20, not once the whole burst has its verdicts.
 */
static void test_a_slice_start_during_a_bursts_verdicts_is_released_then(void **state)
{
    (void)state;
    struct nfq_lab l;
    nfq_lab_start(&l, 1024, fake_clock);
    uint64_t slice2 = 1000000000ull + 20000000ull, due = slice2;
    fake_now = slice2 - 100000;
    uint8_t buf[256];
    struct adw_pkt burst[41];
    uint32_t n = tcp_to_sta2(buf, sizeof(buf));
    assert_true(n > 0);
    burst[0] = held(100, buf, n);
    n = fb_arp(buf, sizeof(buf), SERVER_MAC);
    assert_true(n > 0);
    for (unsigned i = 1; i <= 40; i++)
        burst[i] = held(i, buf, n);
    nfq_verdicts_burst(&l.v, burst, 41, fake_now, &due);
    assert_int_equal(l.e.c.queued_pkts, 1);
    assert_int_equal(l.g.n, 41);
    assert_int_equal(l.g.id[20], 100);
    assert_int_equal(l.g.verdict[20], NF_ACCEPT);
    assert_int_equal(l.g.id[19], 20);
    assert_int_equal(l.g.id[21], 21);
    assert_int_equal(l.e.c.released_pkts, 1);
    /* Released at its slice start, not late: the loop's timing error counts it so. */
    assert_int_equal(l.e.lateness.count, 1);
    assert_true(l.e.lateness.max_ns < VERDICT_NS);
    assert_true(due > slice2);
    dp_engine_finish(&l.e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_a_burst_releases_gets_its_verdict_before_the_passed_packets),
        cmocka_unit_test(test_a_verdict_the_kernel_refuses_is_given_again_before_the_next_one),
        cmocka_unit_test(test_a_verdict_still_refused_at_shutdown_is_counted_lost),
        cmocka_unit_test(test_a_drop_verdict_still_refused_at_shutdown_is_not_counted_lost),
        cmocka_unit_test(test_packets_read_whose_verdict_is_refused_are_still_queued_in_the_kernel),
        cmocka_unit_test(test_a_passed_flood_is_counted_on_the_port_the_kernel_routes_it_to),
        cmocka_unit_test(test_a_flood_routed_out_of_no_port_keeps_the_ports_adding_up),
        cmocka_unit_test(test_a_packet_accepted_without_the_core_keeps_the_counters_balanced),
        cmocka_unit_test(test_a_slice_start_during_a_bursts_verdicts_is_released_then),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
