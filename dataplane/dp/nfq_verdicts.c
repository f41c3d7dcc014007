/* Verdicts for the core's decisions; see nfq_verdicts.h. */
#include "nfq_verdicts.h"

#include <linux/netfilter.h>
#include <stdlib.h>

/* A verdict the kernel took: an accepted packet is counted in total and on the port the core sent it to (--stats
 * "ports", as DPDK counts it). */
static void count_given(struct nfq_verdicts *v, uint32_t verdict, uint16_t port)
{
    if (verdict != NF_ACCEPT)
        return;
    v->e->c.tx_pkts++;
    if (port < v->n_ports)
        v->e->port_tx[port]++;
    else if (port == NFQ_ELSEWHERE)
        v->e->c.routed_elsewhere_pkts++;
}

/* Gives the refused verdicts again, oldest first, until the kernel refuses one: 1 if none is left waiting. */
static int retry(struct nfq_verdicts *v)
{
    const struct nfq_refused *r;
    while ((r = nfq_retry_head(&v->refused)) != NULL) {
        if (v->send(v->arg, r->id, r->verdict) != 0)
            return 0;
        count_given(v, r->verdict, r->port);
        v->e->c.verdicts_retried++;
        nfq_retry_pop(&v->refused);
    }
    return 1;
}

void nfq_verdicts_give(struct nfq_verdicts *v, uint32_t id, uint32_t verdict, uint16_t port)
{
    /* Behind a refused verdict this one waits too, so that packets leave in the order their verdicts were given. */
    if (retry(v) && v->send(v->arg, id, verdict) == 0)
        count_given(v, verdict, port);
    else if (nfq_retry_push(&v->refused, id, verdict, port) != 0) {
        if (verdict == NF_ACCEPT)
            v->errors++;
        else
            v->drops_given_up++;   /* no loss: the unbind drops the packet, as asked */
    }
}

void nfq_verdicts_pass_unscheduled(struct nfq_verdicts *v, uint32_t id)
{
    nfq_verdicts_give(v, id, NF_ACCEPT, NFQ_NO_PORT);
    v->e->c.unscheduled_pkts++;
}

/* The port a packet the core passed leaves on: a flood is routed by the kernel, out of its output device. */
static uint16_t leaves_on(const struct adw_pkt *p, const struct nfq_held *h)
{
    return p->out_port == ADW_PORT_FLOOD ? h->route_port : p->out_port;
}

static void release(struct nfq_verdicts *v, const struct adw_pkt *p)
{
    struct nfq_held *h = p->cookie;
    if (p->out_port == ADW_PORT_DROP) {
        /* Held for a pair a new configuration removed with its AP (counted by the core as drops_config). */
        nfq_verdicts_give(v, h->id, NF_DROP, NFQ_NO_PORT);
        v->e->c.config_drops++;
    } else {
        nfq_verdicts_give(v, h->id, NF_ACCEPT, leaves_on(p, h));
    }
    free(h);
}

unsigned nfq_verdicts_release_due(struct nfq_verdicts *v, uint64_t now_ns)
{
    struct adw_pkt out[NFQ_MAX_BURST];
    unsigned k, total = 0;
    retry(v);
    while ((k = adw_sched_dequeue_burst(v->e->sched, out, NFQ_MAX_BURST, now_ns)) > 0) {
        v->e->c.released_pkts += k;
        for (unsigned i = 0; i < k; i++)
            release(v, &out[i]);
        total += k;
    }
    /* A frame boundary crossed here may have put a reload in force: the next packets read are looked up in its map. */
    dp_engine_follow_core(v->e);
    return total;
}

unsigned nfq_verdicts_flush(struct nfq_verdicts *v)
{
    struct adw_pkt out[NFQ_MAX_BURST];
    unsigned k, total = 0;
    while ((k = adw_sched_flush(v->e->sched, out, NFQ_MAX_BURST)) > 0) {
        v->e->c.flushed_pkts += k;
        for (unsigned i = 0; i < k; i++)
            release(v, &out[i]);
        total += k;
    }
    return total;
}

/* Releases what is due at now_ns and names the loop's next awaited event (*due), as the loop itself does. */
static void release_now(struct nfq_verdicts *v, uint64_t now_ns, uint64_t *due)
{
    dp_engine_note_due(v->e, now_ns, *due);
    nfq_verdicts_release_due(v, now_ns);
    dp_engine_expect(v->e, now_ns);
    *due = adw_sched_next_event_ns(v->e->sched, now_ns);
}

void nfq_verdicts_burst(struct nfq_verdicts *v, struct adw_pkt *pkts, unsigned n, uint64_t now_ns, uint64_t *due)
{
    enum adw_verdict vd[NFQ_MAX_BURST];
    struct dp_engine *e = v->e;
    if (n == 0)
        return;
    adw_sched_enqueue_burst(e->sched, pkts, vd, n, now_ns);
    e->c.rx_pkts += n;
    if (adw_sched_next_event_ns(e->sched, now_ns) <= now_ns)
        release_now(v, now_ns, due);
    for (unsigned i = 0; i < n; i++) {
        struct nfq_held *h = pkts[i].cookie;
        /* A verdict takes microseconds (it forwards the packet): the awaited event may come during the burst's. */
        if (v->clock && vd[i] != ADW_QUEUED) {
            uint64_t t = v->clock();
            if (t >= *due)
                release_now(v, t, due);
        }
        e->port_rx[pkts[i].in_port]++;
        switch (vd[i]) {
        case ADW_PASS:
            e->c.passed_pkts++;
            nfq_verdicts_give(v, h->id, NF_ACCEPT, leaves_on(&pkts[i], h));
            free(h);
            break;
        case ADW_QUEUED:
            e->c.queued_pkts++;
            break;
        default:
            e->c.dropped_pkts++;
            nfq_verdicts_give(v, h->id, NF_DROP, NFQ_NO_PORT);
            free(h);
            break;
        }
    }
}

uint64_t nfq_verdicts_unanswered(const struct nfq_verdicts *v)
{
    return v->refused.n + v->errors + v->drops_given_up;
}

uint64_t nfq_verdicts_lost(struct nfq_verdicts *v)
{
    retry(v);
    /* Only accepts are lost: a refused NF_DROP's packet is dropped by the unbind, as asked (and counted already in
     * dropped_pkts or config_drops). */
    return v->errors + nfq_retry_count(&v->refused, NF_ACCEPT);
}
