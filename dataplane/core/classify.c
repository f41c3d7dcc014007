/*
 * classify.c — what the core does with a parsed frame (SPEC §2, §3.4, §3.6):
 * which AP-STA pair it belongs to (by MAC first, then by IP, so routed
 * deployments where the STA's MAC is hidden behind a gateway work), which
 * direction it goes (in_port 0 = downlink), and its kind: TCP data, pure TCP
 * ACK or other control segment but a FIN or RST (ACK isolation), real-time (DSCP in the
 * policy or a configured UDP port), or unmanaged (ARP, DHCP, ICMP, other UDP,
 * fragments, other protocols: passed straight through).
 *
 * Downlink UDP to a pair in paced mode is data of the pair: SPEC §3.7 paces
 * "the pair's packets", and 000 §VII drives the aggregation level with UDP.
 * A time-sliced pair's UDP still passes: TS-ABR-QD measures a batch's drain
 * by the TCP ACKs it returns (004 §5), which UDP has none of.
 */
#include <string.h>

#include "sched_internal.h"

static bool is_group(const uint8_t mac[6]) { return (mac[0] & 1) != 0; }

void adw_meta_from_desc(const struct adw_desc *d, bool downlink, struct adw_tcp_meta *m)
{
    memset(m, 0, sizeof(*m));
    if (d->l4 != ADW_L4_TCP)
        return;
    m->is_tcp = true;
    m->flags = d->tcp_flags;
    m->payload_len = d->payload_len;
    m->seq_end = d->seq + d->payload_len + ((d->tcp_flags & ADW_TCP_SYN) ? 1u : 0u) +
                 ((d->tcp_flags & ADW_TCP_FIN) ? 1u : 0u);
    m->ack = d->ack;
    m->n_sack = d->n_sack;
    memcpy(m->sack_left, d->sack_left, sizeof(m->sack_left));
    memcpy(m->sack_right, d->sack_right, sizeof(m->sack_right));
    struct adw_flow_key *k = &m->key;
    k->family = d->l3 == ADW_L3_IPV4 ? 4 : 6;
    unsigned n = k->family == 4 ? 4u : 16u;
    memcpy(k->srv_ip, downlink ? d->src_ip : d->dst_ip, n);
    memcpy(k->sta_ip, downlink ? d->dst_ip : d->src_ip, n);
    k->srv_port = downlink ? d->sport : d->dport;
    k->sta_port = downlink ? d->dport : d->sport;
}

/* DHCP (RFC 2131 server/client ports 67/68, DHCPv6 RFC 8415 546/547) keeps passing straight through. */
static bool dhcp(const struct adw_desc *d)
{
    uint16_t p = d->dport;
    return p == 67 || p == 68 || p == 546 || p == 547;
}

/* Downlink UDP of a pair the controller paces (the pacer holds a rate). */
static bool paced_udp(const struct adw_sched *s, uint16_t pair, const struct adw_desc *d)
{
    if (d->l4 != ADW_L4_UDP || d->fragment || dhcp(d))
        return false;
    return adw_pacer_active(&s->slots[s->plan->slot_of_pair[pair]].pacer);
}

static bool realtime(const struct adw_plan *p, const struct adw_desc *d)
{
    if (p->rt_dscp[d->dscp & 63])
        return true;
    if (d->l4 != ADW_L4_UDP)
        return false;
    const struct adw_realtime_policy *rt = &p->cfg->policies.realtime;
    for (unsigned i = 0; i < rt->n_udp_ports; i++)
        if (rt->udp_ports[i] == d->sport || rt->udp_ports[i] == d->dport)
            return true;
    return false;
}

uint16_t adw_pair_out_port(const struct adw_plan *p, uint16_t pair) { return p->table.ap_port[pair]; }

void adw_classify(struct adw_sched *s, const struct adw_desc *d, bool parsed, const struct adw_pkt *pkt,
                  struct adw_class *c)
{
    const struct adw_plan *p = s->plan;
    c->pair = ADW_PAIR_NONE;
    c->counter = NULL;
    if (pkt->in_port != ADW_PORT_UPLINK) {
        /* Uplink: always to the wired side; TCP of a managed STA feeds drain inference. */
        c->kind = ADW_CLASS_PASS;
        c->out_port = ADW_PORT_UPLINK;
        if (pkt->len >= 14 && is_group(pkt->data)) {
            c->out_port = ADW_PORT_FLOOD;
            c->counter = parsed ? &s->st.pass_broadcast : &s->st.malformed; /* as downlink */
            return;
        }
        if (!parsed) {
            c->counter = &s->st.malformed;
            return;
        }
        c->pair = adw_pair_by_mac(&p->table, d->src_mac);
        if (c->pair == ADW_PAIR_NONE && (d->l3 == ADW_L3_IPV4 || d->l3 == ADW_L3_IPV6))
            c->pair = adw_pair_by_ip(&p->table, d->l3 == ADW_L3_IPV4 ? 4 : 6, d->src_ip);
        if (c->pair == ADW_PAIR_NONE)
            c->counter = &s->st.pass_unknown;
        else
            c->kind = ADW_CLASS_UPLINK;
        return;
    }
    /* Downlink. */
    c->kind = ADW_CLASS_PASS;
    if (pkt->len < 14 || is_group(pkt->data)) {
        c->out_port = ADW_PORT_FLOOD;
        c->counter = parsed ? &s->st.pass_broadcast : &s->st.malformed;
        return;
    }
    c->pair = adw_pair_by_mac(&p->table, pkt->data);
    if (c->pair == ADW_PAIR_NONE && parsed && (d->l3 == ADW_L3_IPV4 || d->l3 == ADW_L3_IPV6))
        c->pair = adw_pair_by_ip(&p->table, d->l3 == ADW_L3_IPV4 ? 4 : 6, d->dst_ip);
    if (c->pair == ADW_PAIR_NONE) {
        c->out_port = ADW_PORT_FLOOD;
        c->counter = parsed ? &s->st.pass_unknown : &s->st.malformed;
        return;
    }
    c->out_port = adw_pair_out_port(p, c->pair);
    if (!parsed) {
        c->counter = &s->st.malformed;
        return;
    }
    if (d->l3 == ADW_L3_ARP) {
        c->counter = &s->st.pass_arp;
        return;
    }
    if ((d->l3 == ADW_L3_IPV4 || d->l3 == ADW_L3_IPV6) && !d->fragment && realtime(p, d)) {
        c->kind = ADW_CLASS_RT;
        return;
    }
    if (d->l4 == ADW_L4_TCP && !d->fragment) {
        /* A bare FIN follows its flow's data in sequence: in the ACK queue it went out ahead of the data still
         * queued, reached the STA out of order and could not be acknowledged until that data came in later batches,
         * so the batch's drain (which waits for the ACK of the highest sequence released) never ended. A bare RST
         * too: ahead of that data it closed the STA's socket before the data the server sent earlier arrived. */
        c->kind = d->payload_len > 0 || (d->tcp_flags & (ADW_TCP_FIN | ADW_TCP_RST)) ? ADW_CLASS_DATA : ADW_CLASS_ACK;
        return;
    }
    if (paced_udp(s, c->pair, d)) {
        c->kind = ADW_CLASS_DATA;
        return;
    }
    c->counter = &s->st.pass_other;
}
