/* Run-to-completion loop of the DPDK backend; see dpdk_loop.h. */
#include "dpdk_loop.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

#include "dpdk_tx_backlog.h"
#include "idle_backoff.h"
#include "tsc_clock.h"
#include "tx_stall.h"
#include "vlan_demux.h"
#include "vlan_pcp.h"

#define MAX_BURST 512u          /* upper bound of --burst */

struct tx_port {
    uint16_t dpdk_port;               /* DPDK port id */
    struct rte_eth_dev_tx_buffer *buf;
    struct dpdk_tx_backlog backlog;   /* frames the ring refused, oldest first; while any wait, new ones go behind */
    struct dp_counters *c;            /* the engine's: tx_pkts counts a frame when sent, taken back if it is lost */
    uint64_t *port_tx, *port_tx_lost; /* the engine's, per scheduler port: likewise (tx_lost) */
    const struct vlan_demux *vlans;   /* the loop's: whose frame a lost one was, by its tag (tx_role) */
    unsigned dev;                     /* this port's index in the port map */
    struct adw_sched *sched;          /* the backlog's frames are lent out of its packet budget (backlog_push) */
    uint32_t backlogs_half;           /* the most of that budget all ports' backlogs together take (backlog_push) */
    uint32_t own_share;               /* what of that half this port's backlog may always take (backlog_push) */
    struct tx_port *ports;            /* every port of the loop (n_ports), whose backlogs share that half */
    unsigned n_ports;
    uint64_t last_taken_ns;           /* when the ring last took a frame of the backlog, or the backlog began */
    bool wait_for_peer;               /* shutdown: a full ring is waited on while its peer keeps taking frames */
    bool peer_gone;                   /* the ring took nothing for TX_STALL_NS: what it refuses is lost at once */
};

/* What the loop needs, per DPDK port (dev) and per scheduler port. */
struct loop_ctx {
    struct dp_engine *e;
    const struct dpdk_port_map *m;
    struct rte_mempool *pool;         /* for tagged copies of flooded frames */
    struct tx_port tx[1 + DP_MAX_AP_PORTS];   /* per dev */
    struct vlan_demux vlans;                  /* per dev: which scheduler port a frame belongs to */
    bool releasing;                           /* in release_due: what tx_to buffers is the core's release */
    uint8_t released[1 + DP_MAX_AP_PORTS];    /* per dev: holds released packets not yet flushed */
};

#define SCHED_NONE 0xffffu

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads the TSC and CLOCK_MONOTONIC as close together as it can (the pair with the shortest bracket of 5). */
static void read_pair(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t t1 = rte_get_tsc_cycles(), n = mono_ns(), t2 = rte_get_tsc_cycles();
        if (t2 - t1 < best) {
            best = t2 - t1;
            *tsc = t1 + (t2 - t1) / 2;
            *ns = n;
        }
    }
}

static struct tsc_clock dpdk_clock;

void dpdk_clock_init(void)
{
    uint64_t ta, na, tb, nb;
    read_pair(&ta, &na);
    /* The whole 100 ms even if a signal (a SIGHUP as the daemon starts) cuts the sleep short: over what was left of
     * it the readings' jitter weighs that much more on the rate, and so on every slice and telemetry time. */
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 100000000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
        ;
    read_pair(&tb, &nb);
    if (tsc_clock_calibrate(&dpdk_clock, ta, na, tb, nb) != 0) /* no usable reading: the nominal rate */
        tsc_clock_calibrate(&dpdk_clock, 0, 0, rte_get_tsc_hz(), 1000000000u);
    dpdk_clock.tsc0 = ta;
}

uint64_t dpdk_clock_ns(void)
{
    return tsc_clock_ns(&dpdk_clock, rte_get_tsc_cycles());
}

/* The scheduler port a frame sent on tp was for: the one its VLAN tag (inserted in the frame by tx_to) names on this
 * port, or the port's untagged role. */
static uint16_t tx_role(const struct tx_port *tp, const struct rte_mbuf *m)
{
    uint16_t vid = 0, role;
    const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
    if (rte_pktmbuf_data_len(m) >= sizeof(*eh) + sizeof(struct rte_vlan_hdr)
        && eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN))
        vid = rte_be_to_cpu_16(rte_pktmbuf_mtod_offset(m, const struct rte_vlan_hdr *, sizeof(*eh))->vlan_tci);
    vlan_demux_role(tp->vlans, tp->dev, vid, &role);
    return role;
}

/* The frames pkts[0..n) of the port will not be transmitted after all (the caller frees them after this): counted
 * lost, not sent, in all and for the scheduler port each was for. */
static void tx_lost(struct tx_port *tp, struct rte_mbuf *const *pkts, uint32_t n)
{
    tp->c->tx_drops += n;
    tp->c->tx_pkts -= n;
    for (uint32_t i = 0; i < n; i++) {
        uint16_t q = tx_role(tp, pkts[i]);
        tp->port_tx[q]--;
        tp->port_tx_lost[q]++;
    }
}

/* Hands the backlog to the ring as far as it takes frames, without waiting; returns how many it took. */
static uint32_t backlog_out(struct tx_port *tp)
{
    uint32_t k = dpdk_tx_backlog_send(&tp->backlog, tp->dpdk_port);
    adw_sched_pool_give_back(tp->sched, k);
    if (k)
        tp->last_taken_ns = dpdk_clock_ns();
    return k;
}

/* Frees the backlog's frames, counted lost (tx_lost) to a peer gone (tx_stall_drops). */
static void backlog_lose(struct tx_port *tp)
{
    for (uint32_t i = 0; i < tp->backlog.len; i++) {
        struct rte_mbuf *m = dpdk_tx_backlog_at(&tp->backlog, i);
        tx_lost(tp, &m, 1);
    }
    tp->c->tx_stall_drops += tp->backlog.len;
    adw_sched_pool_give_back(tp->sched, dpdk_tx_backlog_discard(&tp->backlog));
}

/* What the port's backlog holds beyond its own share of the backlogs' half: what another port may take back. */
static uint32_t beyond_own_share(const struct tx_port *tp)
{
    return tp->backlog.len > tp->own_share ? tp->backlog.len - tp->own_share : 0;
}

/* Frees up to n of the newest frames the port's backlog holds beyond its own share, lost as those a full backlog
 * refuses (tx_backlog_drops): the newest, as the port would have lost them had they come after the half was spent. */
static uint32_t give_up_beyond_share(struct tx_port *tp, uint32_t n)
{
    uint32_t k = beyond_own_share(tp);
    if (k > n)
        k = n;
    for (uint32_t i = 0; i < k; i++) {
        struct rte_mbuf *m = dpdk_tx_backlog_pop_newest(&tp->backlog);
        tx_lost(tp, &m, 1);
        rte_pktmbuf_free(m);
    }
    tp->c->tx_backlog_drops += k;
    adw_sched_pool_give_back(tp->sched, k);
    return k;
}

/* Takes up to n frames of the backlogs' half back for tp from the other ports' backlogs, from what they hold beyond
 * their own shares, the port holding most beyond its share first. Only when tp's backlog is short of its own share
 * and the half is spent: a loop over the ports per refused burst, not per frame. */
static void take_back_own_share(struct tx_port *tp, uint32_t n)
{
    while (n) {
        struct tx_port *most = NULL;
        for (unsigned d = 0; d < tp->n_ports; d++) {
            struct tx_port *p = &tp->ports[d];
            if (p != tp && beyond_own_share(p) > (most ? beyond_own_share(most) : 0))
                most = p;
        }
        if (!most)
            return;
        n -= give_up_beyond_share(most, n);
    }
}

/* What of the budget a backlog may take without taking anything back: what it has room for, within the half. */
static uint32_t backlog_room(const struct tx_port *tp)
{
    uint32_t room = adw_sched_pool_room(tp->sched), lent = adw_sched_pool_lent(tp->sched);
    uint32_t half_left = lent < tp->backlogs_half ? tp->backlogs_half - lent : 0;
    return room < half_left ? room : half_left;
}

/*
 * Appends what of pkts[0..n) the backlog has room for; returns how many it took. A waiting frame holds an mbuf that
 * the core's budget (hold_pkts: the pool less what the rings take) counted free: it is lent out of the budget, so
 * the core holds that much less, and in normal running a frame is taken only while the budget has room. Otherwise
 * a port whose peer is slow would fill its backlog while the core held its whole budget: the pool would run dry and
 * new frames would be missed at RX, uncounted, rather than refused by the core (drops_pool) or here
 * (tx_backlog_drops). Nor is a frame taken once all ports' backlogs together hold their share of the budget
 * (backlogs_half, half of it): a port whose peer is slow but not gone (it takes a frame within TX_STALL_NS) keeps
 * its backlog, and two such ports at the defaults (--tx-backlog 4096, a budget of 5984) took the whole budget for
 * as long as they stayed slow, the core refusing every packet it would hold for the healthy APs (drops_pool).
 * Within the half each port has its own share (own_share, the half over the ports), which its backlog may always
 * fill, taking back what other backlogs hold beyond their own shares (take_back_own_share); beyond its own share a
 * backlog takes only what the half has left. Shared first come, one slow port's backlog filled the whole half, and
 * a healthy AP's batch larger than its ring lost what the ring could not take at once. A port may still use the
 * whole half while the others need none of it (a batch to one AP), and the core still keeps the other half.
 * At shutdown (wait_for_peer) RX is no longer read, so the budget is counted, not enforced.
 * A frame flooded to several ports is one mbuf lent once per backlog: more than it takes, never less.
 */
static uint32_t backlog_push(struct tx_port *tp, struct rte_mbuf **pkts, uint32_t n)
{
    if (!tp->wait_for_peer) {
        uint32_t room = backlog_room(tp), space = tp->backlog.cap - tp->backlog.len, want = n < space ? n : space;
        uint32_t own_left = beyond_own_share(tp) ? 0 : tp->own_share - tp->backlog.len;
        if (want > room && own_left > room) {
            take_back_own_share(tp, (want < own_left ? want : own_left) - room);
            room = backlog_room(tp);
        }
        if (n > room)
            n = room;
    }
    uint32_t taken = dpdk_tx_backlog_push(&tp->backlog, pkts, n);
    adw_sched_pool_lend(tp->sched, taken);
    return taken;
}

/*
 * False once the port's ring has taken nothing of its backlog for TX_STALL_NS. Its peer is gone (link down): the
 * backlog is lost (tx_stall_drops), and until the ring takes a frame again what it refuses is lost at once rather
 * than kept (backlog_in). Kept, a dead port's backlog would hold its mbufs out of the core's budget for as long as
 * the link stays down: two dead AP ports at the defaults took the whole budget, and the core refused every packet
 * for the other APs (drops_pool); within the backlogs' half of the budget (backlog_push) one would still keep up to
 * that half from the core. At shutdown the rest of the exit no longer waits for the port either.
 */
static bool peer_still_takes(struct tx_port *tp)
{
    if (tx_stall_peer_takes(tp->last_taken_ns, dpdk_clock_ns()))
        return true;
    tp->peer_gone = true;
    backlog_lose(tp);
    return false;
}

/* The frames pkts[0..n) of a port whose peer is gone: freed, counted lost (tx_stall_drops). */
static void lose_to_gone_peer(struct tx_port *tp, struct rte_mbuf **pkts, uint32_t n)
{
    tx_lost(tp, pkts, n);
    for (uint32_t i = 0; i < n; i++)
        rte_pktmbuf_free(pkts[i]);
    tp->c->tx_stall_drops += n;
}

/* The port's ring took sent frames handed to it from its TX buffer: if its peer was gone, it is back. */
static void ring_took(struct tx_port *tp, uint16_t sent)
{
    if (sent)
        tp->peer_gone = false;
}

/*
 * Puts pkts[0..n) at the end of the port's backlog. A full backlog, or the core's budget spent (backlog_push), loses
 * the rest (tx_backlog_drops) in normal running, as the loop must go on for the other ports; at shutdown a full
 * backlog is waited on while its peer takes frames. A port whose peer is gone keeps nothing (peer_still_takes).
 */
static void backlog_in(struct tx_port *tp, struct rte_mbuf **pkts, uint32_t n)
{
    if (tp->peer_gone) {
        lose_to_gone_peer(tp, pkts, n);
        return;
    }
    if (tp->backlog.len == 0)
        tp->last_taken_ns = dpdk_clock_ns(); /* a new backlog: the ring's peer gets its time from now */
    uint32_t taken = backlog_push(tp, pkts, n);
    while (taken < n && tp->wait_for_peer) {
        if (backlog_out(tp) == 0) {
            if (!peer_still_takes(tp))
                break;
            rte_delay_us_sleep(10);
        }
        taken += backlog_push(tp, pkts + taken, n - taken);
    }
    if (tp->backlog.max_len > tp->c->tx_backlog_max)
        tp->c->tx_backlog_max = tp->backlog.max_len;
    if (taken == n)
        return;
    if (tp->peer_gone) {
        lose_to_gone_peer(tp, pkts + taken, n - taken);
        return;
    }
    tx_lost(tp, pkts + taken, n - taken);
    for (uint32_t i = taken; i < n; i++)
        rte_pktmbuf_free(pkts[i]);
    tp->c->tx_backlog_drops += n - taken;
}

/*
 * What a TX buffer's burst left because the ring was full waits in the port's backlog. A slice may release its
 * whole batch (up to r_max packets) at once to a ring of DPDK_TX_DESC descriptors that a NIC empties at its line
 * rate (a 1500-byte frame every 12 us at 1 Gbit/s, descriptors freed 32 at a time), far slower than the loop fills
 * it; retrying here would hold the loop up, and giving up would drop the batch's tail.
 */
static void tx_unsent(struct rte_mbuf **pkts, uint16_t count, void *userdata)
{
    backlog_in(userdata, pkts, count);
}

/* The TCI of the tag m carries in the frame if it is the frame's own, the one it came in with (on a port that is no
 * trunk), else -1. Behind an AP's tag that rx_role took off (m->vlan_tci set then, no tag stripped into the mbuf) a
 * tag is the AP's frame's payload (802.1Q stacking), and a new AP's tag goes in front of it. */
static int own_tci(const struct rte_mbuf *m)
{
    if (m->vlan_tci && !(m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED))
        return -1;
    return vlan_pcp_frame_tci(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m));
}

/* Queues m for scheduler port q: tagged with q's VLAN if it has one (m must not be shared then), keeping the
 * frame's 802.1p priority (vlan_pcp.h; m->vlan_tci: the TCI it arrived with, rx_role). A frame that still carries a
 * tag (from a port that is no trunk) is never given a second one in front of it, which would carry PCP 0 and make
 * the AP take the frame as one of its VLAN whose payload is another 802.1Q frame: a priority tag or one of q's VLAN
 * is made q's; one of another VLAN is not q's to rewrite and leaves as it came, counted (vlan_unknown). So does one
 * to a trunk's untagged AP: it leaves in the VLAN of its tag, not q's. */
static void tx_to(struct loop_ctx *x, uint16_t q, struct rte_mbuf *m)
{
    const struct dpdk_port_map *pm = x->m;
    uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
    uint32_t len = rte_pktmbuf_data_len(m);
    int own = pm->vlan[q] || vlan_demux_is_trunk(&x->vlans, pm->dev_of[q]) ? own_tci(m) : -1;
    if (own >= 0 && vlan_pcp_foreign(own, pm->vlan[q])) {
        x->e->c.vlan_unknown++;
        /* Sent for the AP its tag names on q's port, as tx_role will take it back from if it is lost. */
        vlan_demux_role(&x->vlans, pm->dev_of[q], (uint16_t)own, &q);
    } else if (own >= 0 && pm->vlan[q]) { /* an untagged AP's priority tag, maybe on a shared mbuf, is left as is */
        uint16_t tci = vlan_pcp_tci(pm->vlan[q], (uint16_t)own, f + 4, len - 4);
        if (tci != own) { /* a flood's shared mbuf already of q's VLAN is left untouched */
            f[14] = (uint8_t)(tci >> 8);
            f[15] = (uint8_t)tci;
        }
    } else if (pm->vlan[q]) {
        m->vlan_tci = vlan_pcp_tci(pm->vlan[q], m->vlan_tci, f, len);
        if (rte_vlan_insert(&m) != 0) {
            rte_pktmbuf_free(m);
            x->e->c.tx_drops++;
            return;
        }
    }
    struct tx_port *t = &x->tx[pm->dev_of[q]];
    x->released[pm->dev_of[q]] |= x->releasing;
    x->e->c.tx_pkts++;
    x->e->port_tx[q]++;
    if (t->backlog.len) /* the TX buffer is empty then: its last flush made the backlog */
        backlog_in(t, &m, 1);
    else
        ring_took(t, rte_eth_tx_buffer(t->dpdk_port, 0, t->buf, m));
}

/*
 * ADW_PORT_FLOOD of a frame that carries its own tag of VLAN vid (not 0): tx_to leaves it as it came to every port,
 * so each DPDK port gets it once, all sharing the one mbuf, not once per AP of a trunk. It goes to the port's AP of
 * that VLAN if it has one, else to its first scheduler port (counted vlan_unknown if that is an AP of another VLAN).
 */
static void flood_own_vlan(struct loop_ctx *x, uint16_t in_port, struct rte_mbuf *m, uint16_t vid)
{
    const struct dpdk_port_map *pm = x->m;
    uint16_t to[1 + DP_MAX_AP_PORTS];
    unsigned n = 0;
    for (unsigned d = 0; d < pm->n_dev; d++)
        to[d] = SCHED_NONE;
    for (uint16_t q = 0; q < x->e->n_ports; q++) {
        uint16_t d = pm->dev_of[q];
        if (q == in_port || (to[d] != SCHED_NONE && pm->vlan[q] != vid))
            continue;
        n += to[d] == SCHED_NONE;
        to[d] = q;
    }
    if (n == 0) {
        rte_pktmbuf_free(m);
        return;
    }
    rte_mbuf_refcnt_update(m, (int16_t)(n - 1));
    for (unsigned d = 0; d < pm->n_dev; d++)
        if (to[d] != SCHED_NONE)
            tx_to(x, to[d], m);
}

/*
 * ADW_PORT_FLOOD: every scheduler port but in_port.  Untagged ports share
 * the one mbuf (each PMD's free drops one reference); tagged ports get
 * copies, made before the original can be freed by a TX.
 */
static void flood(struct loop_ctx *x, uint16_t in_port, struct rte_mbuf *m)
{
    int own = own_tci(m);
    if (own > 0 && (own & 0x0fff)) {
        flood_own_vlan(x, in_port, m, (uint16_t)(own & 0x0fff));
        return;
    }
    unsigned n = x->e->n_ports, untagged = 0;
    for (uint16_t q = 0; q < n; q++) {
        if (q == in_port)
            continue;
        if (!x->m->vlan[q]) {
            untagged++;
            continue;
        }
        struct rte_mbuf *c = rte_pktmbuf_copy(m, x->pool, 0, UINT32_MAX);
        if (!c) {
            x->e->c.tx_drops++;
            continue;
        }
        tx_to(x, q, c);
    }
    if (untagged == 0) {
        rte_pktmbuf_free(m);
        return;
    }
    rte_mbuf_refcnt_update(m, (int16_t)(untagged - 1));
    for (uint16_t q = 0; q < n; q++)
        if (q != in_port && !x->m->vlan[q])
            tx_to(x, q, m);
}

/* Sends one packet the core decided on: to out_port, or every port but in_port on ADW_PORT_FLOOD. */
static void send_pkt(struct loop_ctx *x, const struct adw_pkt *p)
{
    struct rte_mbuf *m = p->cookie;
    if (p->out_port == ADW_PORT_FLOOD) {
        flood(x, p->in_port, m);
        return;
    }
    if (p->out_port == ADW_PORT_DROP) {
        /* Held for a pair a new configuration removed with its AP: the core counted it (drops_config). */
        rte_pktmbuf_free(m);
        x->e->c.config_drops++;
        return;
    }
    if (p->out_port >= x->e->n_ports) {
        rte_pktmbuf_free(m);
        x->e->c.tx_drops++;
        return;
    }
    tx_to(x, p->out_port, m);
}

/*
 * Sends dev d's frames: its backlog if it has one (its TX buffer is empty then, the new frames being behind the
 * backlog; a backlog the ring has taken nothing of for TX_STALL_NS is lost, peer_still_takes), otherwise its TX
 * buffer. Returns how many frames of the backlog the ring took.
 */
static uint32_t tx_out(struct loop_ctx *x, unsigned d)
{
    struct tx_port *t = &x->tx[d];
    x->released[d] = 0;
    if (t->backlog.len) {
        uint32_t k = backlog_out(t);
        if (k == 0)
            peer_still_takes(t);
        return k;
    }
    ring_took(t, rte_eth_tx_buffer_flush(t->dpdk_port, 0, t->buf));
    return 0;
}

static unsigned flush_tx(struct loop_ctx *x)
{
    unsigned sent = 0;
    for (unsigned d = 0; d < x->m->n_dev; d++)
        sent += tx_out(x, d);
    return sent;
}

/* Whether frames wait for a ring that still takes them (the loop then sleeps only briefly when idle). */
static bool tx_waiting(const struct loop_ctx *x, uint64_t now)
{
    for (unsigned d = 0; d < x->m->n_dev; d++)
        if (x->tx[d].backlog.len && tx_stall_peer_takes(x->tx[d].last_taken_ns, now))
            return true;
    return false;
}

/* Shutdown: waits until every port's backlog is in its ring, all ports at once, each while its peer takes frames. */
static void wait_backlogs(struct loop_ctx *x)
{
    for (;;) {
        bool waiting = false;
        for (unsigned d = 0; d < x->m->n_dev; d++) {
            struct tx_port *tp = &x->tx[d];
            if (!tp->backlog.len)
                continue;
            if (backlog_out(tp) == 0 && !peer_still_takes(tp))
                continue;
            waiting |= tp->backlog.len > 0;
        }
        if (!waiting)
            return;
        rte_delay_us_sleep(10);
    }
}

/*
 * Hands every packet the core has due at now to its port and sends them at once; returns how many.
 *
 * The core chose this instant (a slice start, a real-time packet into a gap of the conflicting AP's
 * transmissions, with that AP's next batch a guard_us later: realtime_release.c), so the released packets are
 * flushed here, not after the other ports' flushes at the end of the iteration. Over veths (net_af_packet) a
 * flush runs the receiving namespace's stack inside our sendto: the uplink flush carrying STA1's TCP ACKs made
 * the server send new data from within it and took p50 75, p99 400 us, max 1 ms (voice-bulk, traced), longer
 * than the guard (300 us then; 340 now), so downlink voice released behind it reached the air as AP1's next batch
 * started.
 */
static unsigned release_due(struct loop_ctx *x, struct adw_pkt *out, unsigned burst, uint64_t now)
{
    unsigned k, total = 0;
    x->releasing = true;
    while ((k = adw_sched_dequeue_burst(x->e->sched, out, burst, now)) > 0) {
        x->e->c.released_pkts += k;
        total += k;
        /* Released packets waited up to a frame (thousands of others since): their mbufs are cold, and the PMD
         * reads each one's header when it sends or frees it: both lines of it, as rte_pktmbuf_free reads the
         * segment link (m->next) in the second. Fetched together here rather than one miss at a time. */
        for (unsigned i = 0; i < k; i++) {
            rte_prefetch0(out[i].cookie);
            rte_prefetch0((const char *)out[i].cookie + RTE_CACHE_LINE_MIN_SIZE);
        }
        for (unsigned i = 0; i < k; i++)
            send_pkt(x, &out[i]);
        if (k < burst)
            break;
    }
    x->releasing = false;
    for (unsigned d = 0; d < x->m->n_dev; d++)
        if (x->released[d])
            tx_out(x, d);
    return total;
}

/*
 * The scheduler port a frame from dev d belongs to (vlan_demux.h); *of_no_ap
 * is set if it is on a trunk with a VLAN of no AP.  On a
 * trunk the tag may be in the frame or, if the driver stripped it, in the
 * mbuf; a frame taken as a tagged AP's is untagged here, so the core and the
 * uplink see plain frames, and any other frame keeps its tag in the frame.
 * m->vlan_tci is left the TCI the frame came with (its PCP is kept when it is
 * tagged again, tx_to), 0 if none was taken off.
 */
static uint16_t rx_role(struct loop_ctx *x, unsigned d, struct rte_mbuf *m, bool *of_no_ap)
{
    uint16_t vid = 0, role;
    int in_frame = 0;
    if (vlan_demux_is_trunk(&x->vlans, d)) {
        if (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) {
            vid = m->vlan_tci;
        } else if (rte_pktmbuf_data_len(m) >= sizeof(struct rte_ether_hdr) + sizeof(struct rte_vlan_hdr)
                   && rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN)) {
            const struct rte_vlan_hdr *vh = rte_pktmbuf_mtod_offset(m, struct rte_vlan_hdr *, sizeof(struct rte_ether_hdr));
            vid = rte_be_to_cpu_16(vh->vlan_tci);
            in_frame = 1;
        }
    }
    switch (vlan_demux_role(&x->vlans, d, vid, &role)) {
    case VLAN_DEMUX_TAGGED_AP:
        if (in_frame)
            rte_vlan_strip(m);
        m->ol_flags &= ~(RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED);
        m->vlan_tci = vid;
        return role;
    case VLAN_DEMUX_UNKNOWN:
        x->e->c.vlan_unknown++;
        *of_no_ap = true;
        break;
    case VLAN_DEMUX_PORT_ROLE:
        break;
    }
    /* Not an AP's tag: a tag the PMD took off goes back into the frame, which is handed over as it came. A
     * priority tag (VLAN 0) so keeps its PCP out of an untagged port too; the core parses behind it. */
    if ((m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) && rte_vlan_insert(&m) == 0)
        m->ol_flags &= ~RTE_MBUF_F_RX_VLAN;
    if (!(m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED))
        m->vlan_tci = 0;   /* a PMD may leave it set without a tag taken off */
    return role;
}

/* Receives a burst from dev d and hands it to the core; *due is the core's next event, kept current. */
static unsigned rx_dev(struct loop_ctx *x, unsigned d, unsigned burst, struct adw_pkt *out, uint64_t *due)
{
    struct rte_mbuf *mb[MAX_BURST];
    struct adw_pkt pk[MAX_BURST];
    enum adw_verdict v[MAX_BURST];
    bool of_no_ap[MAX_BURST];
    struct dp_engine *e = x->e;
    uint16_t n = rte_eth_rx_burst(x->tx[d].dpdk_port, 0, mb, (uint16_t)burst);
    if (n == 0)
        return 0;
    for (uint16_t i = 0; i < n; i++) {
        /* The core parses headers from one contiguous buffer. */
        if (mb[i]->nb_segs > 1)
            rte_pktmbuf_linearize(mb[i]);
        memset(&pk[i], 0, sizeof(pk[i]));
        of_no_ap[i] = false;
        pk[i].in_port = rx_role(x, d, mb[i], &of_no_ap[i]);
        pk[i].data = rte_pktmbuf_mtod(mb[i], const uint8_t *);
        pk[i].len = rte_pktmbuf_data_len(mb[i]);
        pk[i].cookie = mb[i];
        e->port_rx[pk[i].in_port]++;
    }
    uint64_t now = dpdk_clock_ns();
    adw_sched_enqueue_burst(e->sched, pk, v, n, now);
    e->c.rx_pkts += n;
    /* What the burst let the core release (a real-time packet on arrival, or one that waited for the drain an
     * uplink ACK of this burst closed) leaves before the burst's passed packets are even buffered. */
    if (adw_sched_next_event_ns(e->sched, now) <= now) {
        dp_engine_note_due(e, now, *due);
        release_due(x, out, burst, now);
        dp_engine_expect(e, now);
        *due = adw_sched_next_event_ns(e->sched, now);
    }
    for (uint16_t i = 0; i < n; i++) {
        switch (v[i]) {
        case ADW_PASS:
            e->c.passed_pkts++;
            /* The core took it for its AP's (vlan_demux_role): a broadcast would be flooded to the other APs, a
             * frame of another VLAN into theirs. It goes where the core sends such an AP's unicast: uplink. */
            if (of_no_ap[i] && pk[i].out_port == ADW_PORT_FLOOD)
                pk[i].out_port = ADW_PORT_UPLINK;
            send_pkt(x, &pk[i]);
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

/*
 * Shutdown: what waits in the RX rings when the stop comes goes through the core like any frame (passed ones leave
 * now, held ones with the flush that follows) instead of being dropped with the rings when the ports close. At most
 * a ring's descriptors per port, all a ring could hold at the stop, so a port that never runs dry (net_null, a
 * line-rate source) cannot hold the exit up. Returns how many were read.
 */
static uint64_t drain_rx(struct loop_ctx *x, struct adw_pkt *out, unsigned burst)
{
    uint64_t total = 0;
    uint64_t now = dpdk_clock_ns();
    dp_engine_expect(x->e, now);
    uint64_t due = adw_sched_next_event_ns(x->e->sched, now);
    for (unsigned d = 0; d < x->m->n_dev; d++) {
        unsigned got = 0, n;
        while (got < DPDK_RX_DESC
               && (n = rx_dev(x, d, DPDK_RX_DESC - got < burst ? DPDK_RX_DESC - got : burst, out, &due)) > 0)
            got += n;
        total += got;
    }
    flush_tx(x);
    return total;
}

int dpdk_loop_run(struct dp_engine *e, const struct dpdk_port_map *m, struct rte_mempool *pool)
{
    static struct loop_ctx x;
    struct tx_port *tx = x.tx;
    struct adw_pkt out[MAX_BURST];
    struct idle_backoff ib;
    unsigned burst = e->opt->burst;
    int rc = 0;

    idle_backoff_init(&ib);
    memset(&x, 0, sizeof(x));
    x.e = e;
    x.m = m;
    x.pool = pool;
    if (vlan_demux_init(&x.vlans, m) != 0) {
        fprintf(stderr, "adwiser-dp: out of memory for the VLAN map\n");
        return -1;
    }
    for (unsigned q = 0; q < m->n_dev; q++) {
        tx[q].dpdk_port = m->dev[q];
        tx[q].c = &e->c;
        tx[q].port_tx = e->port_tx;
        tx[q].port_tx_lost = e->port_tx_lost;
        tx[q].vlans = &x.vlans;
        tx[q].dev = q;
        tx[q].sched = e->sched;
        tx[q].backlogs_half = e->opt->hold_pkts / 2; /* the core always keeps the other half (backlog_push) */
        tx[q].own_share = tx[q].backlogs_half / m->n_dev;
        tx[q].ports = tx;
        tx[q].n_ports = m->n_dev;
        tx[q].buf = rte_zmalloc_socket("adw_txbuf", RTE_ETH_TX_BUFFER_SIZE(MAX_BURST), 0,
                                       rte_eth_dev_socket_id(m->dev[q]));
        if (!tx[q].buf || dpdk_tx_backlog_init(&tx[q].backlog, e->opt->tx_backlog, rte_eth_dev_socket_id(m->dev[q]))) {
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
        unsigned moved = flush_tx(&x); /* what waits for a full ring goes first, before this iteration adds to it */
        uint64_t now;
        for (unsigned d = 0; d < m->n_dev; d++) {
            moved += rx_dev(&x, d, burst, out, &due);
            /* A slice start falling due while many ports are busy is served between their bursts, not after all. */
            if (d + 1 < m->n_dev && (now = dpdk_clock_ns()) >= due) {
                dp_engine_note_due(e, now, due);
                moved += release_due(&x, out, burst, now);
                dp_engine_expect(e, now);
                due = adw_sched_next_event_ns(e->sched, now);
            }
        }
        now = dpdk_clock_ns();
        if (e->n_rx_per_s < DP_RX_SECONDS && now - start >= (e->n_rx_per_s + 1) * 1000000000ull)
            e->rx_per_s[e->n_rx_per_s++] = e->c.rx_pkts;
        dp_engine_tick(e, now, due);
        moved += release_due(&x, out, burst, now);
        flush_tx(&x);
        if (e->opt->run_ms && now - start >= e->opt->run_ms * 1000000u)
            break;
        dp_engine_expect(e, now);
        due = adw_sched_next_event_ns(e->sched, now);
        if (!e->opt->busy_poll) {
            /* The sleep is measured from the clock as it is now: the tick (a reload's parse, a frame's telemetry
             * write) may have taken long enough since `now` to put the next slice start within the sleep. */
            now = dpdk_clock_ns();
            uint64_t s = idle_backoff_step(&ib, moved, now, due);
            if (s && tx_waiting(&x, now))
                s = idle_backoff_tx_waiting(&ib, s);
            if (s)
                idle_backoff_sleep(&ib, s);
        }
    }

    e->elapsed_ns = dpdk_clock_ns() - start;
    for (unsigned q = 0; q < m->n_dev; q++) {
        tx[q].wait_for_peer = true;
        tx[q].last_taken_ns = dpdk_clock_ns();
    }
    uint64_t waiting = drain_rx(&x, out, burst);
    if (waiting)
        fprintf(stderr, "adwiser-dp: shutdown: %llu packets waiting in the RX rings read and sent through the core\n",
                (unsigned long long)waiting);
    /* Shutdown: every held packet goes out, none is dropped. */
    unsigned k;
    while ((k = adw_sched_flush(e->sched, out, burst)) > 0) {
        e->c.flushed_pkts += k;
        for (unsigned i = 0; i < k; i++)
            send_pkt(&x, &out[i]);
        flush_tx(&x);
    }
    flush_tx(&x);
    wait_backlogs(&x);
out:
    for (unsigned q = 0; q < m->n_dev; q++) {
        if (tx[q].backlog.len) /* only after a failed start: the shutdown waited for every backlog */
            backlog_lose(&tx[q]);
        dpdk_tx_backlog_fini(&tx[q].backlog);
        rte_free(tx[q].buf);
    }
    vlan_demux_free(&x.vlans);
    return rc;
}
