/* Run-to-completion loop of the DPDK backend; see dpdk_loop.h. */
#include "dpdk_loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "idle_backoff.h"

#define MAX_BURST 512u          /* upper bound of --burst */
#define TX_RETRIES 1000u        /* TX bursts tried on a full ring before a packet is counted lost */

struct tx_port {
    uint16_t dpdk_port;               /* DPDK port id */
    struct rte_eth_dev_tx_buffer *buf;
    uint64_t *drops;                  /* the engine's tx_drops */
};

uint64_t dpdk_clock_ns(void)
{
    static uint64_t tsc0, hz;
    if (hz == 0) {
        hz = rte_get_tsc_hz();
        tsc0 = rte_get_tsc_cycles();
    }
    unsigned __int128 d = (unsigned __int128)(rte_get_tsc_cycles() - tsc0) * 1000000000u;
    return (uint64_t)(d / hz);
}

/*
 * A full TX ring (af_packet's kernel ring busy) is retried rather than
 * dropped: "nothing lost" holds through bursts as long as the peer drains.
 */
static void tx_unsent(struct rte_mbuf **pkts, uint16_t count, void *userdata)
{
    struct tx_port *tp = userdata;
    uint16_t sent = 0;
    for (unsigned tries = 0; sent < count && tries < TX_RETRIES; tries++)
        sent += rte_eth_tx_burst(tp->dpdk_port, 0, pkts + sent, (uint16_t)(count - sent));
    for (uint16_t i = sent; i < count; i++)
        rte_pktmbuf_free(pkts[i]);
    *tp->drops += (uint64_t)(count - sent);
}

/* Sends one packet the core decided on: to out_port, or every port but in_port on ADW_PORT_FLOOD. */
static void send_pkt(struct dp_engine *e, struct tx_port *tx, const struct adw_pkt *p)
{
    struct rte_mbuf *m = p->cookie;
    if (p->out_port == ADW_PORT_FLOOD) {
        unsigned copies = e->n_ports - (p->in_port < e->n_ports ? 1u : 0u);
        if (copies == 0) {
            rte_pktmbuf_free(m);
            return;
        }
        /* One mbuf, several TX rings: each PMD's free drops one reference. */
        rte_mbuf_refcnt_update(m, (int16_t)(copies - 1));
        for (unsigned q = 0; q < e->n_ports; q++) {
            if (q == p->in_port)
                continue;
            rte_eth_tx_buffer(tx[q].dpdk_port, 0, tx[q].buf, m);
            e->c.tx_pkts++;
        }
        return;
    }
    if (p->out_port == ADW_PORT_DROP) {
        /* Held for a pair a new configuration removed with its AP: the core counted it (drops_config). */
        rte_pktmbuf_free(m);
        e->c.config_drops++;
        return;
    }
    if (p->out_port >= e->n_ports) {
        rte_pktmbuf_free(m);
        e->c.tx_drops++;
        return;
    }
    rte_eth_tx_buffer(tx[p->out_port].dpdk_port, 0, tx[p->out_port].buf, m);
    e->c.tx_pkts++;
}

static void flush_tx(struct dp_engine *e, struct tx_port *tx)
{
    for (unsigned q = 0; q < e->n_ports; q++)
        rte_eth_tx_buffer_flush(tx[q].dpdk_port, 0, tx[q].buf);
}

static unsigned rx_port(struct dp_engine *e, struct tx_port *tx, uint16_t sched_port, uint16_t dpdk_port,
                        unsigned burst)
{
    struct rte_mbuf *mb[MAX_BURST];
    struct adw_pkt pk[MAX_BURST];
    enum adw_verdict v[MAX_BURST];
    uint16_t n = rte_eth_rx_burst(dpdk_port, 0, mb, (uint16_t)burst);
    if (n == 0)
        return 0;
    for (uint16_t i = 0; i < n; i++) {
        /* The core parses headers from one contiguous buffer. */
        if (mb[i]->nb_segs > 1)
            rte_pktmbuf_linearize(mb[i]);
        memset(&pk[i], 0, sizeof(pk[i]));
        pk[i].data = rte_pktmbuf_mtod(mb[i], const uint8_t *);
        pk[i].len = rte_pktmbuf_data_len(mb[i]);
        pk[i].in_port = sched_port;
        pk[i].cookie = mb[i];
    }
    uint64_t now = dpdk_clock_ns();
    adw_sched_enqueue_burst(e->sched, pk, v, n, now);
    e->c.rx_pkts += n;
    for (uint16_t i = 0; i < n; i++) {
        switch (v[i]) {
        case ADW_PASS:
            e->c.passed_pkts++;
            send_pkt(e, tx, &pk[i]);
            break;
        case ADW_QUEUED:
            e->c.queued_pkts++;
            break;
        default:
            e->c.dropped_pkts++;
            rte_pktmbuf_free(mb[i]);
            break;
        }
    }
    return n;
}

/* Hands every packet the core has due at now to its port; returns how many. */
static unsigned release_due(struct dp_engine *e, struct tx_port *tx, struct adw_pkt *out, unsigned burst, uint64_t now)
{
    unsigned k, total = 0;
    while ((k = adw_sched_dequeue_burst(e->sched, out, burst, now)) > 0) {
        e->c.released_pkts += k;
        total += k;
        for (unsigned i = 0; i < k; i++)
            send_pkt(e, tx, &out[i]);
        if (k < burst)
            break;
    }
    return total;
}

int dpdk_loop_run(struct dp_engine *e, const struct dpdk_port_map *m)
{
    struct tx_port tx[1 + DP_MAX_AP_PORTS];
    struct adw_pkt out[MAX_BURST];
    struct idle_backoff ib;
    unsigned burst = e->opt->burst;
    int rc = 0;

    idle_backoff_init(&ib);
    memset(tx, 0, sizeof(tx));
    for (unsigned q = 0; q < m->n; q++) {
        tx[q].dpdk_port = m->dpdk_port[q];
        tx[q].drops = &e->c.tx_drops;
        tx[q].buf = rte_zmalloc_socket("adw_txbuf", RTE_ETH_TX_BUFFER_SIZE(MAX_BURST), 0,
                                       rte_eth_dev_socket_id(m->dpdk_port[q]));
        if (!tx[q].buf) {
            fprintf(stderr, "adwiser-dp: out of memory for TX buffers\n");
            rc = -1;
            goto out;
        }
        rte_eth_tx_buffer_init(tx[q].buf, (uint16_t)burst);
        rte_eth_tx_buffer_set_err_callback(tx[q].buf, tx_unsent, &tx[q]);
    }

    uint64_t start = dpdk_clock_ns();
    e->start_ns = start;
    dp_engine_expect(e, start);
    uint64_t due = adw_sched_next_event_ns(e->sched, start);
    while (!dp_stop_requested) {
        unsigned moved = 0;
        uint64_t now;
        for (unsigned q = 0; q < m->n; q++) {
            moved += rx_port(e, tx, (uint16_t)q, m->dpdk_port[q], burst);
            /* A slice start falling due while many ports are busy is served between their bursts, not after all. */
            if (q + 1 < m->n && (now = dpdk_clock_ns()) >= due) {
                dp_engine_note_due(e, now, due);
                moved += release_due(e, tx, out, burst, now);
                dp_engine_expect(e, now);
                due = adw_sched_next_event_ns(e->sched, now);
            }
        }
        now = dpdk_clock_ns();
        dp_engine_tick(e, now, due);
        moved += release_due(e, tx, out, burst, now);
        flush_tx(e, tx);
        if (e->opt->run_ms && now - start >= e->opt->run_ms * 1000000u)
            break;
        dp_engine_expect(e, now);
        due = adw_sched_next_event_ns(e->sched, now);
        if (!e->opt->busy_poll) {
            uint64_t s = idle_backoff_step(&ib, moved, now, due);
            if (s)
                idle_backoff_sleep(&ib, s);
        }
    }

    e->elapsed_ns = dpdk_clock_ns() - start;
    /* Shutdown: every held packet goes out, none is dropped. */
    unsigned k;
    while ((k = adw_sched_flush(e->sched, out, burst)) > 0) {
        e->c.flushed_pkts += k;
        for (unsigned i = 0; i < k; i++)
            send_pkt(e, tx, &out[i]);
        flush_tx(e, tx);
    }
    flush_tx(e, tx);
out:
    for (unsigned q = 0; q < m->n; q++)
        rte_free(tx[q].buf);
    return rc;
}
