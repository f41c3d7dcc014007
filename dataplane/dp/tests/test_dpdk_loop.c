/*
 * The DPDK backend's loop (dp/dpdk_loop.c) on net_ring ports whose rings the test owns: it puts frames in a port's
 * RX ring and reads what the loop transmitted from the TX rings.  No hugepages (--no-huge), no PCI, no network
 * namespace; the EAL runs with its own --file-prefix, and its runtime directory is removed at the end.
 * The lab JSON is configs/lab-2ap-2sta.yaml converted by dp.mk ($ADW_LAB_JSON): ap1/sta1 and ap2/sta2.
 */
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_engine.h"
#include "dpdk_loop.h"
#include "dpdk_ports.h"
#include "frame_builder.h"
#include "lab_engine.h"
#include "parse.h"

#define N_PORTS 3          /* uplink, ap1, ap2 */
#define RING_SIZE 4096u    /* test rings: more than a port's RX descriptors */
#define POOL_MBUFS 4095u

static const uint8_t STA1_MAC[6] = {0x02, 0xad, 0x00, 0x00, 0x01, 0x01};
static const uint8_t SERVER_MAC[6] = {0x02, 0xad, 0x00, 0x00, 0x00, 0x01};

static char file_prefix[64];
static struct rte_mempool *pool;
static struct rte_ring *rx[N_PORTS], *tx[N_PORTS];
static struct dpdk_port_map ports;
static uint32_t next_seq;  /* TCP sequence number of the next data frame built: one flow's bytes, in order */

#define PAYLOAD 100u
#define SEQ_AT (14u + 20u + 4u)  /* Ethernet, IPv4 without options, TCP ports */

/* A downlink frame from the server (198.18.0.1) to sta1 (198.18.0.11): TCP data (held by the core) or UDP. */
static struct rte_mbuf *downlink_frame(int tcp)
{
    static const uint8_t server_ip[4] = {198, 18, 0, 1}, sta1_ip[4] = {198, 18, 0, 11};
    uint8_t buf[256];
    uint32_t len;
    if (tcp) {
        struct fb_tcp t = {.ip_version = 4, .sport = 5001, .dport = 40000, .flags = ADW_TCP_PSH | ADW_TCP_ACK,
                           .seq = next_seq, .payload_len = PAYLOAD};
        next_seq += PAYLOAD;
        memcpy(t.src_mac, SERVER_MAC, 6);
        memcpy(t.dst_mac, STA1_MAC, 6);
        memcpy(t.src_ip, server_ip, 4);
        memcpy(t.dst_ip, sta1_ip, 4);
        len = fb_tcp(buf, sizeof(buf), &t);
    } else {
        len = fb_udp4(buf, sizeof(buf), SERVER_MAC, STA1_MAC, server_ip, sta1_ip, 0, 5001, 40000, PAYLOAD);
    }
    assert_true(len > 0);
    struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
    assert_non_null(m);
    uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
    assert_non_null(f);
    memcpy(f, buf, len);
    return m;
}

static unsigned put_frames(struct rte_ring *r, unsigned n, int tcp)
{
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(rte_ring_enqueue(r, downlink_frame(tcp)), 0);
    return n;
}

/* Frees what waits in r; returns how many. */
static unsigned empty_ring(struct rte_ring *r)
{
    void *m;
    unsigned n = 0;
    while (rte_ring_dequeue(r, &m) == 0) {
        rte_pktmbuf_free(m);
        n++;
    }
    return n;
}

/* The EAL's runtime directory (empty with --no-shconf), removed whether or not the set-up got far. */
static void remove_runtime_dir(void)
{
    char dir[128];
    snprintf(dir, sizeof(dir), "/var/run/dpdk/%s", file_prefix);
    rmdir(dir);
}

/* A net_ring port on new rings *r (its RX) and *t (its TX, holding tx_size - 1 frames), named by tag and i: its
 * port number, -1 if it could not be made. */
static int ring_port(const char *tag, unsigned i, unsigned tx_size, struct rte_ring **r, struct rte_ring **t)
{
    char rn[32];
    snprintf(rn, sizeof(rn), "%srx%u", tag, i);
    *r = rte_ring_create(rn, RING_SIZE, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    snprintf(rn, sizeof(rn), "%stx%u", tag, i);
    *t = rte_ring_create(rn, tx_size, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    snprintf(rn, sizeof(rn), "net_ring_%st%u", tag, i);
    return *r && *t ? rte_eth_from_rings(rn, r, 1, t, 1, SOCKET_ID_ANY) : -1;
}

/* Binds the ports named (by number) as uplink, ap1 and ap2 with the VLAN ids vlans[] (0: untagged) into *pm and
 * starts them. */
static int bind_and_start(const char *const names[N_PORTS], const uint16_t vlans[N_PORTS], struct dpdk_port_map *pm)
{
    static const char *const roles[N_PORTS] = {"uplink", "ap1", "ap2"};
    char err[512];
    if (dpdk_ports_resolve(roles, names, vlans, N_PORTS, pm, err, sizeof(err)) != 0
        || dpdk_ports_start(pm, pool, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return -1;
    }
    return 0;
}

/*
 * Three net_ring ports on rings r[] and t[] (tag names them), bound as uplink, ap1 and ap2 by port number into *pm,
 * with the VLAN ids vlans[] (0: untagged), and started; port i's TX ring holds tx_sizes[i] - 1 frames.
 */
static int sized_ring_ports_up(const char *tag, struct rte_ring **r, struct rte_ring **t,
                               const unsigned tx_sizes[N_PORTS], const uint16_t vlans[N_PORTS],
                               struct dpdk_port_map *pm)
{
    char ids[N_PORTS][12];
    const char *names[N_PORTS];
    for (unsigned i = 0; i < N_PORTS; i++) {
        int pid = ring_port(tag, i, tx_sizes[i], &r[i], &t[i]);
        if (pid < 0)
            return -1;
        snprintf(ids[i], sizeof(ids[i]), "%d", pid);
        names[i] = ids[i];
    }
    return bind_and_start(names, vlans, pm);
}

/* As sized_ring_ports_up, ap1's TX ring holding ap1_tx_size - 1 frames and the others RING_SIZE - 1. */
static int tagged_ring_ports_up(const char *tag, struct rte_ring **r, struct rte_ring **t, unsigned ap1_tx_size,
                                const uint16_t vlans[N_PORTS], struct dpdk_port_map *pm)
{
    const unsigned sizes[N_PORTS] = {RING_SIZE, ap1_tx_size, RING_SIZE};
    return sized_ring_ports_up(tag, r, t, sizes, vlans, pm);
}

/* As tagged_ring_ports_up, every port untagged. */
static int ring_ports_up(const char *tag, struct rte_ring **r, struct rte_ring **t, unsigned ap1_tx_size,
                         struct dpdk_port_map *pm)
{
    static const uint16_t untagged[N_PORTS] = {0, 0, 0};
    return tagged_ring_ports_up(tag, r, t, ap1_tx_size, untagged, pm);
}

static int ports_up(void)
{
    return ring_ports_up("", rx, tx, RING_SIZE, &ports);
}

static int eal_up(void **state)
{
    (void)state;
    snprintf(file_prefix, sizeof(file_prefix), "adw-test-dpdk-loop-%ld", (long)getpid());
    char *argv[] = {"test_dpdk_loop", "--no-huge", "-m", "64", "--no-pci", "--no-shconf", "--no-telemetry", "-l", "0",
                    "--file-prefix", file_prefix, "--log-level", "*:error", NULL};
    if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
        fprintf(stderr, "EAL: %s\n", rte_strerror(rte_errno));
        remove_runtime_dir();
        return -1;
    }
    pool = rte_pktmbuf_pool_create("test_mbufs", POOL_MBUFS, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    if (!pool || ports_up() != 0) {
        rte_eal_cleanup();
        remove_runtime_dir();
        return -1;
    }
    dpdk_clock_init();
    return 0;
}

static int eal_down(void **state)
{
    (void)state;
    dpdk_ports_stop(&ports);
    rte_eal_cleanup();
    remove_runtime_dir();
    return 0;
}

/*
 * A stop that comes while frames wait in a port's RX ring: they are read and go through the core like any frame
 * (UDP passed at once, TCP data held and then flushed) and reach sta1's AP, rather than being dropped with the ring
 * when the port closes.  The stop is set before the loop starts, so every frame is still waiting when it is seen.
 */
static void test_frames_waiting_in_rx_at_stop_are_forwarded(void **state)
{
    (void)state;
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    unsigned put = put_frames(rx[0], 8, 1) + put_frames(rx[0], 8, 0);
    dp_stop_requested = 1;
    int rc = dpdk_loop_run(&e, &ports, pool);
    dp_stop_requested = 0;
    unsigned left = empty_ring(rx[0]), at_ap1 = empty_ring(tx[1]), elsewhere = empty_ring(tx[0]) + empty_ring(tx[2]);
    uint64_t received = e.c.rx_pkts, queued = e.c.queued_pkts, let_go = e.c.released_pkts + e.c.flushed_pkts;
    dp_engine_finish(&e);
    assert_int_equal(rc, 0);
    assert_int_equal(left, 0);
    assert_int_equal(received, put);
    assert_int_equal(at_ap1, put);
    assert_int_equal(elsewhere, 0);
    assert_int_equal(queued, 8);
    assert_int_equal(let_go, 8);
}

/*
 * The read at stop is bounded: a port that never runs dry (net_null, a line-rate source) cannot hold the exit up.
 * At most one RX ring's descriptors (DPDK_RX_DESC) are read per port; the test's ring holds more.
 */
static void test_the_read_at_stop_takes_at_most_a_ring_of_descriptors(void **state)
{
    (void)state;
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    unsigned put = put_frames(rx[0], DPDK_RX_DESC + 500, 0);
    dp_stop_requested = 1;
    int rc = dpdk_loop_run(&e, &ports, pool);
    dp_stop_requested = 0;
    unsigned left = empty_ring(rx[0]), at_ap1 = empty_ring(tx[1]);
    empty_ring(tx[0]);
    empty_ring(tx[2]);
    uint64_t received = e.c.rx_pkts;
    dp_engine_finish(&e);
    assert_int_equal(rc, 0);
    assert_int_equal(received, DPDK_RX_DESC);
    assert_int_equal(at_ap1, DPDK_RX_DESC);
    assert_int_equal(left, put - DPDK_RX_DESC);
}

/*
 * A peer that takes a frame from a TX ring every gap_us (a NIC sending at its line rate), until told to stop; with
 * seqs, it notes the TCP sequence number of the first max_seqs frames it takes, in the order it takes them.
 */
struct slow_peer {
    struct rte_ring *ring;
    unsigned gap_us;
    volatile int stop;
    unsigned taken;
    uint32_t *seqs;
    unsigned max_seqs;
    unsigned stop_loop_after; /* taken frames after which the loop is asked to stop (0: never) */
};

static void *slow_peer_run(void *arg)
{
    struct slow_peer *p = arg;
    struct timespec gap = {.tv_sec = 0, .tv_nsec = (long)p->gap_us * 1000};
    while (!p->stop) {
        void *m;
        if (rte_ring_dequeue(p->ring, &m) == 0) {
            if (p->seqs && p->taken < p->max_seqs)
                p->seqs[p->taken] = rte_be_to_cpu_32(*rte_pktmbuf_mtod_offset((struct rte_mbuf *)m, uint32_t *, SEQ_AT));
            rte_pktmbuf_free(m);
            if (++p->taken == p->stop_loop_after)
                dp_stop_requested = 1;
        }
        nanosleep(&gap, NULL);
    }
    return NULL;
}

/*
 * Shutdown transmits every held packet even when the AP's TX ring is full and its peer empties it more slowly than
 * the loop refills it (a NIC sends a frame every few µs at line rate; the shutdown hands thousands at once to a ring of
 * DPDK_TX_DESC): the frames wait for the peer to take them, as long as it keeps taking them.  ap1's TX ring holds 15
 * frames here, its peer takes one every 200 µs.
 */
static void test_held_packets_wait_at_shutdown_for_a_slowly_draining_tx_ring(void **state)
{
    (void)state;
    static struct dpdk_port_map slow;
    struct rte_ring *srx[N_PORTS], *stx[N_PORTS];
    assert_int_equal(ring_ports_up("slow", srx, stx, 16, &slow), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    unsigned put = put_frames(srx[0], 200, 1);
    struct slow_peer peer = {.ring = stx[1], .gap_us = 200};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, slow_peer_run, &peer), 0);
    dp_stop_requested = 1;
    int rc = dpdk_loop_run(&e, &slow, pool);
    dp_stop_requested = 0;
    peer.stop = 1;
    pthread_join(th, NULL);
    unsigned at_ap1 = peer.taken + empty_ring(stx[1]), elsewhere = empty_ring(stx[0]) + empty_ring(stx[2]);
    uint64_t received = e.c.rx_pkts, queued = e.c.queued_pkts, passed = e.c.passed_pkts, tx_drops = e.c.tx_drops;
    dp_engine_finish(&e);
    dpdk_ports_stop(&slow);
    assert_int_equal(rc, 0);
    assert_int_equal(received, put);
    assert_true(queued > 16);
    assert_int_equal(tx_drops, 0);
    assert_int_equal(at_ap1, queued + passed);
    assert_int_equal(elsewhere, 0);
}

/*
 * A TX ring whose peer takes nothing (link down) holds the shutdown up once, for TX_STALL_NS (100 ms), not once per
 * burst handed to it: what the ring could not take is then counted lost to a peer gone (tx_stall_drops, in
 * tx_drops) and the exit goes on.
 */
static void test_shutdown_gives_up_once_on_a_tx_ring_that_takes_nothing(void **state)
{
    (void)state;
    static struct dpdk_port_map dead;
    struct rte_ring *drx[N_PORTS], *dtx[N_PORTS];
    assert_int_equal(ring_ports_up("dead", drx, dtx, 16, &dead), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    put_frames(drx[0], 200, 1);
    dp_stop_requested = 1;
    uint64_t t0 = dpdk_clock_ns();
    int rc = dpdk_loop_run(&e, &dead, pool);
    uint64_t took_ms = (dpdk_clock_ns() - t0) / 1000000u;
    dp_stop_requested = 0;
    unsigned at_ap1 = empty_ring(dtx[1]);
    uint64_t queued = e.c.queued_pkts, tx_drops = e.c.tx_drops, stall_drops = e.c.tx_stall_drops;
    dp_engine_finish(&e);
    dpdk_ports_stop(&dead);
    assert_int_equal(rc, 0);
    assert_int_equal(at_ap1, 15);
    assert_int_equal(tx_drops, queued - 15);
    assert_int_equal(stall_drops, queued - 15);
    assert_true(took_ms < 400);
}

/*
 * In normal running a slice's batch larger than the AP's free TX descriptors reaches the AP whole and in order: what
 * the ring cannot take yet waits in the port's backlog and is handed over as the peer frees descriptors (a NIC
 * sends at its line rate, far slower than the loop retries), not dropped after a burst of retries. ap1's TX ring
 * holds 15 frames and its peer takes one every 200 µs; the core releases sta1's held data at ap1's slices, its
 * batch (r_init 40 in the lab document) in one go. The peer asks the loop to stop once it has taken every frame,
 * so all of them were released and taken in normal running and the shutdown's wait for the ring plays no part;
 * --run-ms only bounds a run that never gets there (a fixed 400 ms run ended with 7 frames still held once on a
 * loaded host).
 */
static void test_a_batch_larger_than_the_tx_ring_reaches_the_slow_ap_whole_and_in_order(void **state)
{
    (void)state;
    enum { N = 60 };
    static struct dpdk_port_map slow;
    struct rte_ring *srx[N_PORTS], *stx[N_PORTS];
    assert_int_equal(ring_ports_up("run", srx, stx, 16, &slow), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096, .run_ms = 10000};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    uint32_t first_seq = next_seq;
    unsigned put = put_frames(srx[0], N, 1);
    static uint32_t seqs[N];
    struct slow_peer peer = {.ring = stx[1], .gap_us = 200, .seqs = seqs, .max_seqs = N, .stop_loop_after = put};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, slow_peer_run, &peer), 0);
    int rc = dpdk_loop_run(&e, &slow, pool);
    dp_stop_requested = 0;
    peer.stop = 1;
    pthread_join(th, NULL);
    unsigned taken = peer.taken, late = empty_ring(stx[1]), elsewhere = empty_ring(stx[0]) + empty_ring(stx[2]);
    uint64_t released = e.c.released_pkts, flushed = e.c.flushed_pkts, tx_drops = e.c.tx_drops;
    uint64_t backlog_max = e.c.tx_backlog_max;
    dp_engine_finish(&e);
    dpdk_ports_stop(&slow);
    assert_int_equal(rc, 0);
    assert_int_equal(released, put);
    assert_int_equal(flushed, 0);
    assert_int_equal(tx_drops, 0);
    assert_int_equal(taken, put);
    assert_int_equal(late, 0);
    assert_int_equal(elsewhere, 0);
    for (unsigned i = 0; i < N; i++)
        assert_int_equal(seqs[i], first_seq + i * PAYLOAD);
    assert_true(backlog_max > 0);
}

/*
 * The backlog is bounded (--tx-backlog): frames a full ring leaves when the backlog is full too are lost, counted in
 * tx_backlog_drops (and tx_drops), and the loop goes on. ap1's peer takes nothing: of what the loop releases while it
 * runs the ring takes 15 and a backlog of 10 the next 10, and the rest is lost at once; at shutdown the backlog and
 * the packets still held are lost too, once the ring has taken nothing for 100 ms.
 */
static void test_frames_past_a_full_tx_backlog_are_counted_lost(void **state)
{
    (void)state;
    static struct dpdk_port_map stuck;
    struct rte_ring *srx[N_PORTS], *stx[N_PORTS];
    assert_int_equal(ring_ports_up("full", srx, stx, 16, &stuck), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 10, .run_ms = 30};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    put_frames(srx[0], 40, 1);
    int rc = dpdk_loop_run(&e, &stuck, pool);
    unsigned at_ap1 = empty_ring(stx[1]);
    uint64_t released = e.c.released_pkts, flushed = e.c.flushed_pkts, tx_drops = e.c.tx_drops;
    uint64_t backlog_drops = e.c.tx_backlog_drops, backlog_max = e.c.tx_backlog_max;
    uint64_t sent = e.c.tx_pkts, ap1_sent = e.port_tx[1], ap1_lost = e.port_tx_lost[1];
    dp_engine_finish(&e);
    dpdk_ports_stop(&stuck);
    assert_int_equal(rc, 0);
    assert_int_equal(released + flushed, 40);
    assert_true(released > 15 + 10);
    assert_int_equal(at_ap1, 15);
    /* Counted sent: only what the port took; the frames lost in its backlog, full and then left at shutdown, are
     * counted lost, in all and for ap1. */
    assert_int_equal(sent, 15);
    assert_int_equal(ap1_sent, 15);
    assert_int_equal(ap1_lost, 40 - 15);
    assert_int_equal(backlog_max, 10);
    assert_int_equal(backlog_drops, released - 15 - 10);
    assert_int_equal(tx_drops, 40 - 15);
}

/*
 * Frames waiting in a TX backlog hold mbufs of the pool, so the core holds only what the budget (hold_pkts) leaves
 * beside them: otherwise a port whose peer is slow fills its backlog while the core still holds its whole budget,
 * the pool runs dry and new frames are missed at RX, uncounted, instead of being refused by the core (drops_pool).
 * ap1's peer takes nothing: of 75 UDP frames passed to sta1 the ring takes 15 and the backlog (--tx-backlog 60) the
 * rest; the core then holds 40 of the 100 TCP segments that follow (a budget of 100 less the 60 waiting) and drops
 * the others. The stop is set before the loop starts, so all of them are read by the shutdown's drain, in order.
 */
static void test_frames_in_a_tx_backlog_come_out_of_the_cores_hold_budget(void **state)
{
    (void)state;
    static struct dpdk_port_map stuck;
    struct rte_ring *srx[N_PORTS], *stx[N_PORTS];
    assert_int_equal(ring_ports_up("budget", srx, stx, 16, &stuck), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 100, .tx_backlog = 60};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    put_frames(srx[0], 75, 0);
    put_frames(srx[0], 100, 1);
    dp_stop_requested = 1;
    int rc = dpdk_loop_run(&e, &stuck, pool);
    dp_stop_requested = 0;
    empty_ring(stx[1]);
    struct adw_stats st;
    adw_sched_stats_read(e.sched, &st);
    uint64_t passed = e.c.passed_pkts, queued = e.c.queued_pkts, dropped = e.c.dropped_pkts;
    dp_engine_finish(&e);
    dpdk_ports_stop(&stuck);
    assert_int_equal(rc, 0);
    assert_int_equal(passed, 75);
    assert_int_equal(queued, 40);
    assert_int_equal(dropped, 60);
    assert_int_equal(st.drops_pool, 60);
}

/*
 * The other side of the same budget: in normal running a backlog takes a frame only while the budget has room, and
 * the backlogs together no more than half of it, so passed frames (which the core does not hold) cannot take the
 * pool either. ap1's peer takes nothing; of 75 UDP frames to sta1 the ring takes 15 and the backlog, bounded at 60
 * but with a budget of 30, 15; the other 45 are lost, counted (tx_backlog_drops).
 */
static void test_a_tx_backlog_takes_no_more_than_the_hold_budget(void **state)
{
    (void)state;
    static struct dpdk_port_map stuck;
    struct rte_ring *srx[N_PORTS], *stx[N_PORTS];
    assert_int_equal(ring_ports_up("room", srx, stx, 16, &stuck), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 30, .tx_backlog = 60, .run_ms = 30};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    put_frames(srx[0], 75, 0);
    int rc = dpdk_loop_run(&e, &stuck, pool);
    unsigned at_ap1 = empty_ring(stx[1]);
    uint64_t passed = e.c.passed_pkts, backlog_max = e.c.tx_backlog_max, backlog_drops = e.c.tx_backlog_drops;
    dp_engine_finish(&e);
    dpdk_ports_stop(&stuck);
    assert_int_equal(rc, 0);
    assert_int_equal(passed, 75);
    assert_int_equal(at_ap1, 15);
    assert_int_equal(backlog_max, 15);
    assert_int_equal(backlog_drops, 45);
}

/* The 802.1Q TCI of the frame m (tagged in the frame), or -1 if it is untagged. */
static int frame_tci(struct rte_mbuf *m)
{
    const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
    if (rte_pktmbuf_data_len(m) < 16 || f[12] != 0x81 || f[13] != 0x00)
        return -1;
    return f[14] << 8 | f[15];
}

/* Takes the one frame waiting in r; its TCI as frame_tci. */
static int only_frame_tci(struct rte_ring *r)
{
    void *m = NULL;
    assert_int_equal(rte_ring_count(r), 1);
    assert_int_equal(rte_ring_dequeue(r, &m), 0);
    int tci = frame_tci(m);
    rte_pktmbuf_free(m);
    return tci;
}

static const uint8_t STA2_MAC[6] = {0x02, 0xad, 0x00, 0x00, 0x02, 0x01};

/* A downlink frame from the server to sta1 or sta2 (sta 1, 2): UDP with DSCP dscp, or TCP data (held by the core);
 * tci >= 0 puts an 802.1Q tag with that TCI after the MAC addresses. */
static struct rte_mbuf *frame_to_sta(int sta, int tcp, uint8_t dscp, int tci)
{
    static const uint8_t server_ip[4] = {198, 18, 0, 1};
    const uint8_t sta_ip[4] = {198, 18, 0, (uint8_t)(10 + sta)};
    const uint8_t *sta_mac = sta == 1 ? STA1_MAC : STA2_MAC;
    uint8_t buf[256];
    uint32_t len;
    if (tcp) {
        struct fb_tcp t = {.ip_version = 4, .sport = 5001, .dport = 40000, .flags = ADW_TCP_PSH | ADW_TCP_ACK,
                           .payload_len = PAYLOAD};
        memcpy(t.src_mac, SERVER_MAC, 6);
        memcpy(t.dst_mac, sta_mac, 6);
        memcpy(t.src_ip, server_ip, 4);
        memcpy(t.dst_ip, sta_ip, 4);
        len = fb_tcp(buf, sizeof(buf), &t);
    } else {
        len = fb_udp4(buf, sizeof(buf), SERVER_MAC, sta_mac, server_ip, sta_ip, dscp, 5001, 40000, PAYLOAD);
    }
    assert_true(len > 0);
    struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
    assert_non_null(m);
    uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(len + (tci >= 0 ? 4 : 0)));
    assert_non_null(f);
    if (tci < 0) {
        memcpy(f, buf, len);
        return m;
    }
    memcpy(f, buf, 12);
    const uint8_t tag[4] = {0x81, 0x00, (uint8_t)(tci >> 8), (uint8_t)tci};
    memcpy(f + 12, tag, 4);
    memcpy(f + 16, buf + 12, len - 12);
    return m;
}

/* Frames the test hands to a port's RX ring while the loop runs: after_ms after it starts, to_sta1 UDP frames to sta1
 * and then tcp_to_sta2 TCP segments to sta2. */
struct late_frames {
    struct rte_ring *ring;
    unsigned after_ms, to_sta1, tcp_to_sta2;
};

static void *late_frames_put(void *arg)
{
    struct late_frames *l = arg;
    struct timespec wait = {.tv_sec = l->after_ms / 1000, .tv_nsec = (long)(l->after_ms % 1000) * 1000000};
    nanosleep(&wait, NULL);
    for (unsigned i = 0; i < l->to_sta1; i++)
        rte_ring_enqueue(l->ring, frame_to_sta(1, 0, 0, -1));
    for (unsigned i = 0; i < l->tcp_to_sta2; i++)
        rte_ring_enqueue(l->ring, frame_to_sta(2, 1, 0, -1));
    return NULL;
}

/*
 * A port whose peer is gone (link down) does not keep the core's hold budget from the healthy APs: once its ring has
 * taken nothing for 100 ms its backlog is lost, counted (tx_stall_drops), and every frame it refuses after that is
 * lost at once, counted the same, until it takes one again. Kept instead, the dead port's backlog held the whole
 * budget for good, and the core refused every packet it would hold for the other APs (drops_pool): with the
 * defaults (--tx-backlog 4096, 5 ports, a budget of 5984) two dead AP ports did that; a dead port now still holds
 * up to the backlogs' share, half the budget, for those 100 ms. ap1's peer takes nothing; of 75 UDP frames to sta1
 * its ring takes 15 and its backlog (--tx-backlog 60) 30, half the budget of 60, the other 30 being lost
 * (tx_backlog_drops). 300 ms later come 20 more UDP frames to sta1 and 45 TCP segments to sta2, more than the half
 * the dead port's backlog left, which the core holds for ap2's slices and which reach ap2.
 */
static void test_a_port_whose_peer_is_gone_does_not_keep_the_hold_budget_from_the_other_aps(void **state)
{
    (void)state;
    static struct dpdk_port_map dead;
    struct rte_ring *drx[N_PORTS], *dtx[N_PORTS];
    assert_int_equal(ring_ports_up("gone", drx, dtx, 16, &dead), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 60, .tx_backlog = 60, .run_ms = 600};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    for (unsigned i = 0; i < 75; i++)
        assert_int_equal(rte_ring_enqueue(drx[0], frame_to_sta(1, 0, 0, -1)), 0);
    struct late_frames late = {.ring = drx[0], .after_ms = 300, .to_sta1 = 20, .tcp_to_sta2 = 45};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, late_frames_put, &late), 0);
    int rc = dpdk_loop_run(&e, &dead, pool);
    pthread_join(th, NULL);
    unsigned at_ap1 = empty_ring(dtx[1]), at_ap2 = empty_ring(dtx[2]), left = empty_ring(drx[0]);
    struct adw_stats st;
    adw_sched_stats_read(e.sched, &st);
    uint64_t queued = e.c.queued_pkts, tx_drops = e.c.tx_drops, stall_drops = e.c.tx_stall_drops;
    uint64_t backlog_drops = e.c.tx_backlog_drops, backlog_max = e.c.tx_backlog_max, ap1_lost = e.port_tx_lost[1];
    empty_ring(dtx[0]);
    dp_engine_finish(&e);
    dpdk_ports_stop(&dead);
    assert_int_equal(rc, 0);
    assert_int_equal(left, 0);
    assert_int_equal(st.drops_pool, 0);
    assert_int_equal(queued, 45);
    assert_int_equal(at_ap2, 45);
    assert_int_equal(at_ap1, 15);
    assert_int_equal(backlog_max, 30);
    assert_int_equal(backlog_drops, 30);
    assert_int_equal(stall_drops, 30 + 20);
    assert_int_equal(tx_drops, 30 + 30 + 20);
    assert_int_equal(ap1_lost, 30 + 30 + 20);
}

/* An uplink UDP frame from sta1 to the server (passed by the core to the uplink). */
static struct rte_mbuf *frame_from_sta1(void)
{
    static const uint8_t server_ip[4] = {198, 18, 0, 1}, sta1_ip[4] = {198, 18, 0, 11};
    uint8_t buf[256];
    uint32_t len = fb_udp4(buf, sizeof(buf), STA1_MAC, SERVER_MAC, sta1_ip, server_ip, 0, 40000, 5001, PAYLOAD);
    assert_true(len > 0);
    struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
    assert_non_null(m);
    memcpy(rte_pktmbuf_append(m, (uint16_t)len), buf, len);
    return m;
}

/* Traffic both ways through ap1 for run_ms, one UDP frame each way every millisecond (to sta1 on the uplink's RX ring,
 * from sta1 on ap1's), and after_ms after it starts tcp_to_sta2 TCP segments to sta2 on the uplink's. */
struct steady_frames {
    struct rte_ring *uplink_rx, *ap1_rx;
    unsigned run_ms, after_ms, tcp_to_sta2;
};

static void *steady_frames_put(void *arg)
{
    struct steady_frames *f = arg;
    struct timespec ms = {.tv_sec = 0, .tv_nsec = 1000000};
    for (unsigned t = 0; t < f->run_ms; t++) {
        struct rte_mbuf *down = frame_to_sta(1, 0, 0, -1), *up = frame_from_sta1();
        if (rte_ring_enqueue(f->uplink_rx, down) != 0)
            rte_pktmbuf_free(down);
        if (rte_ring_enqueue(f->ap1_rx, up) != 0)
            rte_pktmbuf_free(up);
        if (t == f->after_ms)
            for (unsigned i = 0; i < f->tcp_to_sta2; i++)
                rte_ring_enqueue(f->uplink_rx, frame_to_sta(2, 1, 0, -1));
        nanosleep(&ms, NULL);
    }
    return NULL;
}

/* After run_with_slow_peers: what is left in the uplink's and ap1's rings freed (ap2's the test has read), the engine
 * finished and the ports stopped. */
static void slow_peers_rig_down(struct dp_engine *e, struct dpdk_port_map *pm, struct rte_ring **r, struct rte_ring **t)
{
    for (unsigned i = 0; i < 2; i++) {
        empty_ring(r[i]);
        empty_ring(t[i]);
    }
    dp_engine_finish(e);
    dpdk_ports_stop(pm);
}

/* Runs the loop while peers a and b take frames slowly and f's frames come; returns the loop's result once f is
 * done, both peers stopped. */
static int run_with_slow_peers(struct dp_engine *e, struct dpdk_port_map *pm, struct slow_peer *a, struct slow_peer *b,
                               struct steady_frames *f)
{
    pthread_t th[3];
    assert_int_equal(pthread_create(&th[0], NULL, slow_peer_run, a), 0);
    assert_int_equal(pthread_create(&th[1], NULL, slow_peer_run, b), 0);
    assert_int_equal(pthread_create(&th[2], NULL, steady_frames_put, f), 0);
    int rc = dpdk_loop_run(e, pm, pool);
    pthread_join(th[2], NULL);
    a->stop = b->stop = 1;
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    return rc;
}

/*
 * Ports whose peers are slow but not gone (an AP on a slow wired link: its ring takes a frame every few ms, well
 * within 100 ms) do not keep the core's hold budget from a healthy AP: the TX backlogs of all ports together take
 * at most half the budget, so the core always has the other half for the packets it holds. Bounded only by
 * --tx-backlog and what the budget left, two slow ports at the defaults (--tx-backlog 4096, a budget of 5984) took
 * the whole budget for as long as they stayed slow, and the core refused every packet it would hold for the other
 * APs (drops_pool). The uplink's and ap1's peers take a frame every 5 ms, their rings holding 15, while a frame each
 * way through ap1 comes every millisecond; each backlog (--tx-backlog 30) would fill to 30, the whole budget of 60
 * between them. 150 ms in come 30 TCP segments to sta2, which the core holds for ap2's slices and which reach ap2.
 */
static void test_slow_ports_do_not_keep_the_hold_budget_from_a_healthy_ap(void **state)
{
    (void)state;
    static struct dpdk_port_map pm;
    struct rte_ring *r[N_PORTS], *t[N_PORTS];
    static const unsigned sizes[N_PORTS] = {16, 16, RING_SIZE};
    static const uint16_t untagged[N_PORTS] = {0, 0, 0};
    assert_int_equal(sized_ring_ports_up("slowap", r, t, sizes, untagged, &pm), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 60, .tx_backlog = 30, .run_ms = 400};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    struct slow_peer uplink_peer = {.ring = t[0], .gap_us = 5000}, ap1_peer = {.ring = t[1], .gap_us = 5000};
    struct steady_frames f = {.uplink_rx = r[0], .ap1_rx = r[1], .run_ms = 300, .after_ms = 150, .tcp_to_sta2 = 30};
    int rc = run_with_slow_peers(&e, &pm, &uplink_peer, &ap1_peer, &f);
    unsigned at_ap2 = empty_ring(t[2]);
    struct adw_stats st;
    adw_sched_stats_read(e.sched, &st);
    uint64_t queued = e.c.queued_pkts, backlog_drops = e.c.tx_backlog_drops, stall_drops = e.c.tx_stall_drops;
    slow_peers_rig_down(&e, &pm, r, t);
    assert_int_equal(rc, 0);
    assert_int_equal(st.drops_pool, 0);
    assert_int_equal(queued, 30);
    assert_int_equal(at_ap2, 30);
    assert_int_equal(stall_drops, 0);
    assert_true(backlog_drops > 0);
}

/*
 * A port whose peer is slow but not gone does not take a healthy AP's share of the backlogs' half of the budget:
 * each port's backlog may always hold its share of that half (the half over the ports), taking it back from what
 * the other ports' backlogs hold beyond their shares, and may hold more only while the half has room. Shared first
 * come, the slow port's backlog filled the whole half, and a healthy AP's batch larger than its TX ring lost what the
 * ring could not take at once (tx_backlog_drops), one slow AP degrading the healthy ones. ap1's peer takes a frame
 * every 5 ms while a UDP frame to sta1 comes every millisecond, so ap1's backlog (--tx-backlog 60) holds the whole
 * half (30 of a budget of 60) most of the time; 150 ms in come 25 TCP segments to sta2, which the core releases at
 * ap2's slice in one batch: ap2's ring (15 frames, its peer taking one every 200 us) takes 15 and its backlog the
 * other 10, its share of the half (30 over 3 ports), all of which reach ap2.
 */
static void test_slow_port_cannot_take_a_healthy_ports_backlog_share(void **state)
{
    (void)state;
    static struct dpdk_port_map pm;
    struct rte_ring *r[N_PORTS], *t[N_PORTS];
    static const unsigned sizes[N_PORTS] = {RING_SIZE, 16, 16};
    static const uint16_t untagged[N_PORTS] = {0, 0, 0};
    assert_int_equal(sized_ring_ports_up("share", r, t, sizes, untagged, &pm), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 60, .tx_backlog = 60, .run_ms = 400};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    struct slow_peer ap1_peer = {.ring = t[1], .gap_us = 5000}, ap2_peer = {.ring = t[2], .gap_us = 200};
    struct steady_frames f = {.uplink_rx = r[0], .ap1_rx = r[1], .run_ms = 300, .after_ms = 150, .tcp_to_sta2 = 25};
    int rc = run_with_slow_peers(&e, &pm, &ap1_peer, &ap2_peer, &f);
    unsigned at_ap2 = ap2_peer.taken + empty_ring(t[2]);
    uint64_t queued = e.c.queued_pkts, backlog_drops = e.c.tx_backlog_drops, stall_drops = e.c.tx_stall_drops;
    uint64_t ap2_lost = e.port_tx_lost[2], ap1_lost = e.port_tx_lost[1];
    slow_peers_rig_down(&e, &pm, r, t);
    assert_int_equal(rc, 0);
    assert_int_equal(queued, 25);
    assert_int_equal(ap2_lost, 0);
    assert_int_equal(at_ap2, 25);
    assert_int_equal(stall_drops, 0);
    assert_true(ap1_lost > 0);
    assert_int_equal(backlog_drops, ap1_lost);
}

/* As frame_to_sta untagged, as a PMD hands over a frame whose tag (TCI tci) it stripped. */
static struct rte_mbuf *stripped_frame_to_sta(int sta, int tcp, uint16_t tci)
{
    struct rte_mbuf *m = frame_to_sta(sta, tcp, 0, -1);
    m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
    m->vlan_tci = tci;
    return m;
}

/* The ethertype behind the frame's one tag (what a frame tagged twice would not have). */
static int inner_ethertype(struct rte_mbuf *m)
{
    const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
    return f[16] << 8 | f[17];
}

/*
 * Two net_ring ports on rings r[0..1] and t[0..1] (tag names them): the uplink, and a VLAN trunk with ap1 on VLAN
 * 101 and ap2 on VLAN 102, bound into *pm and started; the trunk's TX ring holds trunk_tx_size - 1 frames.
 */
static int trunk_ring_ports_up(const char *tag, struct rte_ring **r, struct rte_ring **t, unsigned trunk_tx_size,
                               struct dpdk_port_map *pm)
{
    static const uint16_t vlans[N_PORTS] = {0, 101, 102};
    char ids[2][12];
    for (unsigned i = 0; i < 2; i++) {
        int pid = ring_port(tag, i, i == 1 ? trunk_tx_size : RING_SIZE, &r[i], &t[i]);
        if (pid < 0)
            return -1;
        snprintf(ids[i], sizeof(ids[i]), "%d", pid);
    }
    const char *names[N_PORTS] = {ids[0], ids[1], ids[1]};
    return bind_and_start(names, vlans, pm);
}

/* An ARP broadcast from sta1 with an 802.1Q tag of TCI tci in the frame. */
static struct rte_mbuf *tagged_arp(uint16_t tci)
{
    uint8_t buf[128];
    uint32_t len = fb_arp(buf, sizeof(buf), STA1_MAC);
    struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
    assert_non_null(m);
    uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(len + 4));
    assert_non_null(f);
    memcpy(f, buf, 12);
    const uint8_t tag[4] = {0x81, 0x00, (uint8_t)(tci >> 8), (uint8_t)tci};
    memcpy(f + 12, tag, 4);
    memcpy(f + 16, buf + 12, len - 12);
    return m;
}

/*
 * The 802.1p priority (PCP) of a frame steered to an AP behind a VLAN: a frame that came tagged keeps its PCP (and
 * DEI) when its tag is replaced with the AP's; an untagged one gets the PCP of its DSCP's class (DSCP >> 3: EF, the
 * real-time class, is PCP 5), so the AP's wired port can map it to a WMM access category as the frame's DSCP says.
 * Written as 0, a voice frame reached the AP as background. ap1 is on VLAN 101, ap2 on VLAN 102.
 */
static void test_a_frame_to_a_tagged_ap_carries_the_pcp_it_came_with_or_that_of_its_dscp(void **state)
{
    (void)state;
    static struct dpdk_port_map tagged;
    static const uint16_t vlans[N_PORTS] = {0, 101, 102};
    struct rte_ring *trx[N_PORTS], *ttx[N_PORTS];
    assert_int_equal(tagged_ring_ports_up("tag", trx, ttx, RING_SIZE, vlans, &tagged), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    static const uint8_t server_ip[4] = {198, 18, 0, 1}, sta1_ip[4] = {198, 18, 0, 11};
    uint8_t buf[256];
    uint32_t len = fb_udp4(buf, sizeof(buf), SERVER_MAC, STA1_MAC, server_ip, sta1_ip, 46, 5001, 40000, PAYLOAD);
    struct rte_mbuf *voice = rte_pktmbuf_alloc(pool);
    assert_non_null(voice);
    memcpy(rte_pktmbuf_append(voice, (uint16_t)len), buf, len);
    assert_int_equal(rte_ring_enqueue(trx[0], voice), 0);
    dp_stop_requested = 1;
    int rc = dpdk_loop_run(&e, &tagged, pool);
    dp_stop_requested = 0;
    int voice_tci = only_frame_tci(ttx[1]);
    /* A broadcast from ap2 tagged PCP 3, DEI 1: flooded, it reaches ap1 retagged with VLAN 101. */
    len = fb_arp(buf, sizeof(buf), STA1_MAC);
    struct rte_mbuf *arp = rte_pktmbuf_alloc(pool);
    assert_non_null(arp);
    uint8_t *f = (uint8_t *)rte_pktmbuf_append(arp, (uint16_t)(len + 4));
    memcpy(f, buf, 12);
    const uint8_t tag[4] = {0x81, 0x00, (3 << 5 | 1 << 4) | (102 >> 8), 102 & 0xff};
    memcpy(f + 12, tag, 4);
    memcpy(f + 16, buf + 12, len - 12);
    assert_int_equal(rte_ring_enqueue(trx[2], arp), 0);
    dp_stop_requested = 1;
    rc |= dpdk_loop_run(&e, &tagged, pool);
    dp_stop_requested = 0;
    int arp_tci = only_frame_tci(ttx[1]);
    empty_ring(ttx[0]);
    empty_ring(ttx[2]);
    dp_engine_finish(&e);
    dpdk_ports_stop(&tagged);
    assert_int_equal(rc, 0);
    assert_int_equal(voice_tci, 5 << 13 | 101);
    assert_int_equal(arp_tci, 3 << 13 | 1 << 12 | 101);
}

/*
 * A priority-tagged frame (an 802.1Q tag of VLAN 0, carrying only a PCP) is scheduled like the untagged one and
 * keeps its priority, whether the tag is still in the frame or the PMD stripped it into the mbuf (net_af_packet
 * does, the kernel having taken it off): to an AP behind a VLAN it leaves with one tag, the AP's VLAN and the PCP
 * it came with (not a second tag of PCP 0 in front of it); to an untagged AP it leaves priority-tagged as it came
 * (not untagged). ap1 is on VLAN 101, ap2 untagged.
 */
static void test_a_priority_tagged_frame_is_scheduled_as_untagged_and_keeps_its_priority(void **state)
{
    (void)state;
    static struct dpdk_port_map pm;
    static const uint16_t vlans[N_PORTS] = {0, 101, 0};
    struct rte_ring *prx[N_PORTS], *ptx[N_PORTS];
    assert_int_equal(tagged_ring_ports_up("prio", prx, ptx, RING_SIZE, vlans, &pm), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    const int prio5 = 5 << 13, prio3_dei = 3 << 13 | 1 << 12;
    int tci[4], ethertype[4];
    /* To ap1 (VLAN 101) and to ap2 (untagged), the tag in the frame and then stripped; TCP data, so the core holds
     * each (scheduled) and flushes it at the stop. */
    struct rte_mbuf *in[4] = {frame_to_sta(1, 1, 0, prio5), stripped_frame_to_sta(1, 1, prio3_dei),
                              frame_to_sta(2, 1, 0, prio3_dei), stripped_frame_to_sta(2, 1, prio5)};
    struct rte_ring *out[4] = {ptx[1], ptx[1], ptx[2], ptx[2]};
    int rc = 0;
    uint64_t queued = 0;
    for (unsigned i = 0; i < 4; i++) {
        assert_int_equal(rte_ring_enqueue(prx[0], in[i]), 0);
        dp_stop_requested = 1;
        rc |= dpdk_loop_run(&e, &pm, pool);
        dp_stop_requested = 0;
        queued = e.c.queued_pkts;
        void *m = NULL;
        assert_int_equal(rte_ring_count(out[i]), 1);
        assert_int_equal(rte_ring_dequeue(out[i], &m), 0);
        tci[i] = frame_tci(m);
        ethertype[i] = inner_ethertype(m);
        rte_pktmbuf_free(m);
    }
    empty_ring(ptx[0]);
    dp_engine_finish(&e);
    dpdk_ports_stop(&pm);
    assert_int_equal(rc, 0);
    assert_int_equal(queued, 4);
    assert_int_equal(tci[0], prio5 | 101);
    assert_int_equal(ethertype[0], 0x0800);
    assert_int_equal(tci[1], prio3_dei | 101);
    assert_int_equal(ethertype[1], 0x0800);
    assert_int_equal(tci[2], prio3_dei);
    assert_int_equal(ethertype[2], 0x0800);
    assert_int_equal(tci[3], prio5);
    assert_int_equal(ethertype[3], 0x0800);
}

/*
 * A frame on the trunk with a VLAN of no AP is counted (vlan_unknown) and handed to the uplink as it came, tag and
 * all, also when the PMD stripped the tag; it never reaches an AP. A broadcast was flooded as if it were ap1's: to
 * ap2 with VLAN 102 put in front of its own tag (or, stripped, in place of it), a frame of VLAN 999 in ap2's VLAN.
 */
static void test_a_frame_of_a_vlan_of_no_ap_goes_only_to_the_uplink_as_it_came(void **state)
{
    (void)state;
    static struct dpdk_port_map pm;
    struct rte_ring *vrx[2], *vtx[2];
    assert_int_equal(trunk_ring_ports_up("novlan", vrx, vtx, RING_SIZE, &pm), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    struct rte_mbuf *stripped = tagged_arp(3 << 13 | 998);
    assert_int_equal(rte_vlan_strip(stripped), 0);  /* as a PMD hands it over */
    assert_int_equal(rte_ring_enqueue(vrx[1], tagged_arp(999)), 0);
    assert_int_equal(rte_ring_enqueue(vrx[1], stripped), 0);
    dp_stop_requested = 1;
    int rc = dpdk_loop_run(&e, &pm, pool);
    dp_stop_requested = 0;
    uint64_t unknown = e.c.vlan_unknown;
    unsigned at_trunk = empty_ring(vtx[1]);
    int tci[2] = {-2, -2};
    unsigned at_uplink = rte_ring_count(vtx[0]);
    for (unsigned i = 0; i < 2 && i < at_uplink; i++) {
        void *m = NULL;
        assert_int_equal(rte_ring_dequeue(vtx[0], &m), 0);
        tci[i] = frame_tci(m);
        rte_pktmbuf_free(m);
    }
    empty_ring(vtx[0]);
    dp_engine_finish(&e);
    dpdk_ports_stop(&pm);
    assert_int_equal(rc, 0);
    assert_int_equal(unknown, 2);
    assert_int_equal(at_trunk, 0);
    assert_int_equal(at_uplink, 2);
    assert_int_equal(tci[0], 999);
    assert_int_equal(tci[1], 3 << 13 | 998);
}

/* Runs the loop once over what waits in its RX rings (the stop set before it starts). */
static int run_once(struct dp_engine *e, struct dpdk_port_map *pm)
{
    dp_stop_requested = 1;
    int rc = dpdk_loop_run(e, pm, pool);
    dp_stop_requested = 0;
    return rc;
}

/*
 * A frame that comes in on the (untagged) uplink already carrying a VLAN tag leaves towards an AP behind a VLAN with
 * one tag, never the AP's in front of its own: tagged with the AP's VLAN (tag in the frame, or stripped by the PMD),
 * it leaves in it with the PCP and DEI it came with; tagged with another VLAN, it is counted (vlan_unknown) and
 * passed as it came, its own tag only. Tagged twice, the AP's port took the frame as one of VLAN 101 whose payload
 * is another 802.1Q frame. ap1 is on VLAN 101, ap2 on VLAN 102, each on its own port; TCP data, held and flushed.
 */
static void test_a_frame_tagged_on_the_uplink_leaves_to_a_tagged_ap_with_one_tag(void **state)
{
    (void)state;
    static struct dpdk_port_map pm;
    static const uint16_t vlans[N_PORTS] = {0, 101, 102};
    struct rte_ring *urx[N_PORTS], *utx[N_PORTS];
    assert_int_equal(tagged_ring_ports_up("uptag", urx, utx, RING_SIZE, vlans, &pm), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    const int prio5 = 5 << 13, prio3_dei = 3 << 13 | 1 << 12;
    struct rte_mbuf *in[3] = {frame_to_sta(1, 1, 0, prio5 | 101), stripped_frame_to_sta(1, 1, prio3_dei | 101),
                              frame_to_sta(1, 1, 0, prio3_dei | 555)};
    int tci[3], ethertype[3], rc = 0;
    for (unsigned i = 0; i < 3; i++) {
        assert_int_equal(rte_ring_enqueue(urx[0], in[i]), 0);
        rc |= run_once(&e, &pm);
        void *m = NULL;
        assert_int_equal(rte_ring_count(utx[1]), 1);
        assert_int_equal(rte_ring_dequeue(utx[1], &m), 0);
        tci[i] = frame_tci(m);
        ethertype[i] = inner_ethertype(m);
        rte_pktmbuf_free(m);
    }
    uint64_t unknown = e.c.vlan_unknown;
    empty_ring(utx[0]);
    empty_ring(utx[2]);
    dp_engine_finish(&e);
    dpdk_ports_stop(&pm);
    assert_int_equal(rc, 0);
    assert_int_equal(tci[0], prio5 | 101);
    assert_int_equal(ethertype[0], 0x0800);
    assert_int_equal(tci[1], prio3_dei | 101);
    assert_int_equal(ethertype[1], 0x0800);
    assert_int_equal(tci[2], prio3_dei | 555);
    assert_int_equal(ethertype[2], 0x0800);
    assert_int_equal(unknown, 1);
}

/*
 * A broadcast that comes in on the uplink with a VLAN tag is flooded to a VLAN trunk once, with its one tag: tagged
 * with ap1's VLAN it reaches VLAN 101 only (not also ap2's VLAN 102 in front of it), tagged with a VLAN of no AP it
 * leaves as it came (counted: vlan_unknown), once, not once per AP of the trunk.
 */
static void test_a_broadcast_tagged_on_the_uplink_reaches_a_trunk_once_with_its_one_tag(void **state)
{
    (void)state;
    static struct dpdk_port_map pm;
    struct rte_ring *vrx[2], *vtx[2];
    assert_int_equal(trunk_ring_ports_up("upbc", vrx, vtx, RING_SIZE, &pm), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    const uint16_t in_tci[2] = {3 << 13 | 101, 555};
    unsigned at_trunk[2];
    int tci[2], ethertype[2], rc = 0;
    for (unsigned i = 0; i < 2; i++) {
        assert_int_equal(rte_ring_enqueue(vrx[0], tagged_arp(in_tci[i])), 0);
        rc |= run_once(&e, &pm);
        at_trunk[i] = rte_ring_count(vtx[1]);
        void *m = NULL;
        assert_int_equal(rte_ring_dequeue(vtx[1], &m), 0);
        tci[i] = frame_tci(m);
        ethertype[i] = inner_ethertype(m);
        rte_pktmbuf_free(m);
        empty_ring(vtx[1]);
    }
    uint64_t unknown = e.c.vlan_unknown;
    empty_ring(vtx[0]);
    dp_engine_finish(&e);
    dpdk_ports_stop(&pm);
    assert_int_equal(rc, 0);
    assert_int_equal(at_trunk[0], 1);
    assert_int_equal(tci[0], 3 << 13 | 101);
    assert_int_equal(ethertype[0], 0x0806);
    assert_int_equal(at_trunk[1], 1);
    assert_int_equal(tci[1], 555);
    assert_int_equal(ethertype[1], 0x0806);
    assert_int_equal(unknown, 1);
}

/*
 * A broadcast from an AP of the trunk with a second tag behind the AP's (802.1Q stacking: the AP's frame carries a
 * tagged frame) reaches the other AP of the trunk as one of that AP's VLAN carrying the same inner tag: only the
 * AP's tag is replaced, the inner one is the frame's payload and never leaves as the frame's own VLAN.
 */
static void test_a_broadcast_from_a_trunks_ap_keeps_its_inner_tag_behind_the_other_aps_tag(void **state)
{
    (void)state;
    static struct dpdk_port_map pm;
    struct rte_ring *vrx[2], *vtx[2];
    assert_int_equal(trunk_ring_ports_up("inner", vrx, vtx, RING_SIZE, &pm), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 4096};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    struct rte_mbuf *m = tagged_arp(555);
    uint8_t *f = (uint8_t *)rte_pktmbuf_prepend(m, 4);
    assert_non_null(f);
    memmove(f, f + 4, 12);
    const uint8_t outer[4] = {0x81, 0x00, 101 >> 8, 101 & 0xff};
    memcpy(f + 12, outer, 4);
    assert_int_equal(rte_ring_enqueue(vrx[1], m), 0);
    int rc = run_once(&e, &pm);
    unsigned at_trunk = rte_ring_count(vtx[1]);
    void *out = NULL;
    assert_int_equal(rte_ring_dequeue(vtx[1], &out), 0);
    int tci = frame_tci(out), inner = inner_ethertype(out);
    const uint8_t *g = rte_pktmbuf_mtod((struct rte_mbuf *)out, const uint8_t *);
    int inner_tci = g[18] << 8 | g[19];
    rte_pktmbuf_free(out);
    empty_ring(vtx[1]);
    empty_ring(vtx[0]);
    dp_engine_finish(&e);
    dpdk_ports_stop(&pm);
    assert_int_equal(rc, 0);
    assert_int_equal(at_trunk, 1);
    assert_int_equal(tci, 102);
    assert_int_equal(inner, 0x8100);
    assert_int_equal(inner_tci, 555);
}

/*
 * Frames lost in a VLAN trunk's TX backlog are counted lost for the AP each was for, told by the tag it carries
 * (PCP bits and all), not for the trunk's first AP or the uplink. The trunk's peer takes nothing: of 20 UDP frames
 * to sta1 (ap1, VLAN 101) and then 20 of DSCP CS5 to sta2 (ap2, VLAN 102, PCP 5; passed, not the core's real-time
 * class, so they leave in the order they came) its ring takes sta1's first 15,
 * a backlog of 10 the next 10 (5 of each), and the rest is lost, the backlog at shutdown.
 */
static void test_frames_lost_in_a_trunks_tx_backlog_are_counted_for_the_ap_of_their_vlan(void **state)
{
    (void)state;
    static struct dpdk_port_map pm;
    struct rte_ring *vrx[2], *vtx[2];
    assert_int_equal(trunk_ring_ports_up("trlost", vrx, vtx, 16, &pm), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 10, .run_ms = 30};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    for (unsigned i = 0; i < 20; i++)
        assert_int_equal(rte_ring_enqueue(vrx[0], frame_to_sta(1, 0, 0, -1)), 0);
    for (unsigned i = 0; i < 20; i++)
        assert_int_equal(rte_ring_enqueue(vrx[0], frame_to_sta(2, 0, 40, -1)), 0);
    int rc = dpdk_loop_run(&e, &pm, pool);
    unsigned at_trunk = empty_ring(vtx[1]);
    uint64_t sent[N_PORTS], lost[N_PORTS];
    for (unsigned q = 0; q < N_PORTS; q++) {
        sent[q] = e.port_tx[q];
        lost[q] = e.port_tx_lost[q];
    }
    uint64_t tx_drops = e.c.tx_drops, backlog_max = e.c.tx_backlog_max;
    empty_ring(vtx[0]);
    dp_engine_finish(&e);
    dpdk_ports_stop(&pm);
    assert_int_equal(rc, 0);
    assert_int_equal(at_trunk, 15);
    assert_int_equal(backlog_max, 10);
    assert_int_equal(tx_drops, 40 - 15);
    assert_int_equal(sent[1], 15);
    assert_int_equal(lost[1], 5);
    assert_int_equal(sent[2], 0);
    assert_int_equal(lost[2], 20);
    assert_int_equal(sent[0], 0);
    assert_int_equal(lost[0], 0);
}

/*
 * A frame tagged on the uplink with ap2's VLAN (102) for a STA of ap1, the untagged AP of a trunk, leaves onto the
 * trunk as it came, so in ap2's VLAN: it is counted (vlan_unknown) and sent for ap2, as tx_role takes it back from
 * when it is lost, like such a frame to a tagged AP. Counted sent for ap1, each one lost in the trunk's backlog was
 * taken off ap2's tx_pkts, which had never counted it (0 - 2 wrapped to 2^64 - 2), and ap1 kept them as sent. The
 * trunk's peer takes nothing: its ring takes 1 of 3 such UDP frames, a backlog of 1 the next, the third is lost at
 * once and the backlog's at shutdown.
 */
static void test_a_frame_tagged_for_another_aps_vlan_to_a_trunks_untagged_ap_is_counted_for_that_ap(void **state)
{
    (void)state;
    static struct dpdk_port_map pm;
    static const uint16_t vlans[N_PORTS] = {0, 0, 102};
    struct rte_ring *r[2], *t[2];
    char ids[2][12];
    for (unsigned i = 0; i < 2; i++) {
        int pid = ring_port("untr", i, i == 1 ? 2 : RING_SIZE, &r[i], &t[i]);
        assert_true(pid >= 0);
        snprintf(ids[i], sizeof(ids[i]), "%d", pid);
    }
    const char *names[N_PORTS] = {ids[0], ids[1], ids[1]};
    assert_int_equal(bind_and_start(names, vlans, &pm), 0);
    static struct dp_engine e;
    static struct dp_options o = {.burst = 32, .hold_pkts = 1024, .tx_backlog = 1};
    lab_engine_start(&e, &o, N_PORTS, "dpdk", dpdk_clock_ns());
    for (unsigned i = 0; i < 3; i++)
        assert_int_equal(rte_ring_enqueue(r[0], frame_to_sta(1, 0, 0, 102)), 0);
    dp_stop_requested = 1;
    int rc = dpdk_loop_run(&e, &pm, pool);
    dp_stop_requested = 0;
    int tci = only_frame_tci(t[1]);
    uint64_t sent1 = e.port_tx[1], lost1 = e.port_tx_lost[1], sent2 = e.port_tx[2], lost2 = e.port_tx_lost[2];
    uint64_t unknown = e.c.vlan_unknown, tx_drops = e.c.tx_drops;
    empty_ring(t[0]);
    dp_engine_finish(&e);
    dpdk_ports_stop(&pm);
    assert_int_equal(rc, 0);
    assert_int_equal(tci, 102);
    assert_int_equal(tx_drops, 2);
    assert_int_equal(sent1, 0);
    assert_int_equal(lost1, 0);
    assert_int_equal(sent2, 1);
    assert_int_equal(lost2, 2);
    assert_int_equal(unknown, 3);
}

/* Sends SIGHUP to the thread *arg after 1 ms, as a reload (systemctl reload) may come while the daemon starts. */
static void *hup_soon(void *arg)
{
    struct timespec ms = {.tv_sec = 0, .tv_nsec = 1000000};
    nanosleep(&ms, NULL);
    pthread_kill(*(pthread_t *)arg, SIGHUP);
    return NULL;
}

static uint64_t mono_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The TSC rate is measured over the full 100 ms even when a signal comes meanwhile (a SIGHUP, whose handler only
 * notes the reload): a sleep the signal cut short measured it over what was left, a millisecond here, with the
 * clock readings' jitter then weighing a hundred times more on every slice length and telemetry time of the run.
 */
static void test_the_tsc_rate_is_measured_over_100_ms_also_when_a_signal_comes(void **state)
{
    (void)state;
    dp_engine_install_signals();
    pthread_t self = pthread_self(), th;
    uint64_t t0 = mono_now_ns();
    assert_int_equal(pthread_create(&th, NULL, hup_soon, &self), 0);
    dpdk_clock_init();
    uint64_t took = mono_now_ns() - t0;
    pthread_join(th, NULL);
    int hup = dp_reload_requested;
    dp_reload_requested = 0;
    assert_true(hup);
    assert_true(took >= 100000000u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_waiting_in_rx_at_stop_are_forwarded),
        cmocka_unit_test(test_the_read_at_stop_takes_at_most_a_ring_of_descriptors),
        cmocka_unit_test(test_held_packets_wait_at_shutdown_for_a_slowly_draining_tx_ring),
        cmocka_unit_test(test_shutdown_gives_up_once_on_a_tx_ring_that_takes_nothing),
        cmocka_unit_test(test_a_batch_larger_than_the_tx_ring_reaches_the_slow_ap_whole_and_in_order),
        cmocka_unit_test(test_frames_past_a_full_tx_backlog_are_counted_lost),
        cmocka_unit_test(test_frames_in_a_tx_backlog_come_out_of_the_cores_hold_budget),
        cmocka_unit_test(test_a_tx_backlog_takes_no_more_than_the_hold_budget),
        cmocka_unit_test(test_a_port_whose_peer_is_gone_does_not_keep_the_hold_budget_from_the_other_aps),
        cmocka_unit_test(test_slow_ports_do_not_keep_the_hold_budget_from_a_healthy_ap),
        cmocka_unit_test(test_slow_port_cannot_take_a_healthy_ports_backlog_share),
        cmocka_unit_test(test_a_frame_to_a_tagged_ap_carries_the_pcp_it_came_with_or_that_of_its_dscp),
        cmocka_unit_test(test_a_priority_tagged_frame_is_scheduled_as_untagged_and_keeps_its_priority),
        cmocka_unit_test(test_a_frame_of_a_vlan_of_no_ap_goes_only_to_the_uplink_as_it_came),
        cmocka_unit_test(test_frames_lost_in_a_trunks_tx_backlog_are_counted_for_the_ap_of_their_vlan),
        cmocka_unit_test(test_a_frame_tagged_on_the_uplink_leaves_to_a_tagged_ap_with_one_tag),
        cmocka_unit_test(test_a_broadcast_tagged_on_the_uplink_reaches_a_trunk_once_with_its_one_tag),
        cmocka_unit_test(test_a_broadcast_from_a_trunks_ap_keeps_its_inner_tag_behind_the_other_aps_tag),
        cmocka_unit_test(test_the_tsc_rate_is_measured_over_100_ms_also_when_a_signal_comes),
        cmocka_unit_test(test_a_frame_tagged_for_another_aps_vlan_to_a_trunks_untagged_ap_is_counted_for_that_ap),
    };
    return cmocka_run_group_tests(tests, eal_up, eal_down);
}
