/* NFQUEUE backend: held packets are delayed verdicts; see nfq_loop.h. */
#include "nfq_loop.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <linux/netfilter.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libnetfilter_queue/libnetfilter_queue.h>

#include "nfq_fail_open.h"
#include "nfq_port.h"
#include "nfq_read.h"
#include "nfq_verdicts.h"
#include "nfq_wait.h"
#include "sta_ip_map.h"

#define NFQ_QUEUE_MAXLEN 65536u   /* kernel queue length, packets (beyond it: fail-open accept) */
#define NFQ_RCVBUF (16u << 20)    /* netlink socket receive buffer, bytes */
#define ETH_HLEN_SYNTH 14u        /* bytes of the Ethernet header we put in front of the IP packet */
#define NFQ_DRAIN_QUEUEING_NS 10000000u /* shutdown: reading while the kernel still queues, at most, ns */
#define NFQ_DRAIN_MAX_NS 2000000000u   /* shutdown: reading what was queued before queueing stopped, at most, ns */

/*
 * A packet the core holds is a struct nfq_held (nfq_verdicts.h).  Its frame is the IP packet behind a synthesised
 * Ethernet header, because the core parses Ethernet frames: source MAC from the kernel's hardware address, the
 * destination MAC the configured STA owning the destination IP (the router would resolve it the same way), else
 * zero; looked up in the engine's map of the configuration in force (sta_ip_map.h), every packet being read.
 */
struct nfq_ctx {
    struct dp_engine *e;
    struct nfq_q_handle *qh;
    struct nfq_verdicts v;
    int ifindex[1 + DP_MAX_AP_PORTS];   /* ifindex of scheduler port i */
    unsigned n_ports;
    struct adw_pkt batch[NFQ_MAX_BURST];
    unsigned n_batch;
    uint64_t due;                       /* the core's next event the loop awaits, ns */
    int draining;                       /* shutdown: every packet read is accepted, not scheduled */
    uint32_t last_id;                   /* the last packet id read (ids skipped since: fail-open accepted) */
};

uint64_t nfq_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The verdict sink of c->v: 0, or -1 when the kernel did not take it. */
static int kernel_verdict(void *arg, uint32_t id, uint32_t v)
{
    struct nfq_ctx *c = arg;
    return nfq_set_verdict(c->qh, id, v, 0, NULL) < 0 ? -1 : 0;
}

static void process_batch(struct nfq_ctx *c)
{
    nfq_verdicts_burst(&c->v, c->batch, c->n_batch, nfq_clock_ns(), &c->due);
    c->n_batch = 0;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data)
{
    (void)msg;
    (void)qh;   /* the verdicts go through c->v, which holds it */
    struct nfq_ctx *c = data;
    struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
    if (!ph)
        return 0;
    uint32_t id = ntohl(ph->packet_id);
    c->e->c.fail_open_pkts += nfq_ids_skipped(&c->last_id, id);
    if (c->draining) {
        /* Queued before shutdown and never scheduled: it passes (unbinding the queue would drop it). */
        nfq_verdicts_give(&c->v, id, NF_ACCEPT, NFQ_NO_PORT);
        c->e->c.drained_pkts++;
        return 0;
    }
    unsigned char *payload;
    int len = nfq_get_payload(nfa, &payload);
    int port = nfq_port_of(c->ifindex, c->n_ports, nfq_get_indev(nfa), nfq_get_physindev(nfa));
    if (len < 0 || port < 0) {
        /* Not from one of our ports: not ours to schedule. Through the verdict queue, so that a verdict the kernel
         * refuses is given again like any other (the packet stays queued in the kernel until it has one). */
        nfq_verdicts_pass_unscheduled(&c->v, id);
        return 0;
    }
    struct nfq_held *h = malloc(sizeof(*h) + ETH_HLEN_SYNTH + (size_t)len);
    if (!h) {
        nfq_verdicts_pass_unscheduled(&c->v, id);   /* fail open */
        return 0;
    }
    h->id = id;
    h->len = ETH_HLEN_SYNTH + (uint32_t)len;
    int route = nfq_port_of(c->ifindex, c->n_ports, nfq_get_outdev(nfa), nfq_get_physoutdev(nfa));
    h->route_port = route < 0 ? NFQ_ELSEWHERE : (uint16_t)route;
    memset(h->frame, 0, 12);
    struct nfqnl_msg_packet_hw *hw = nfq_get_packet_hw(nfa);
    if (hw && ntohs(hw->hw_addrlen) == 6)
        memcpy(h->frame + 6, hw->hw_addr, 6);
    uint16_t proto = ntohs(ph->hw_protocol);
    if (proto == 0)
        proto = len > 0 && (payload[0] >> 4) == 6 ? 0x86dd : 0x0800;
    h->frame[12] = (uint8_t)(proto >> 8);
    h->frame[13] = (uint8_t)proto;
    if (proto == 0x0800 && len >= 20) {
        uint32_t dip;
        memcpy(&dip, payload + 16, 4);
        sta_ip_map_mac(c->e->cfg_ips, ntohl(dip), h->frame);
    }
    memcpy(h->frame + ETH_HLEN_SYNTH, payload, (size_t)len);
    struct adw_pkt *p = &c->batch[c->n_batch++];
    memset(p, 0, sizeof(*p));
    p->data = h->frame;
    p->len = h->len;
    p->in_port = (uint16_t)port;
    p->cookie = h;
    if (c->n_batch == NFQ_MAX_BURST)
        process_batch(c);
    return 0;
}

/* One message read from the socket: its packets go to on_packet. */
static void handle_msg(void *arg, char *msg, int len)
{
    nfq_handle_packet(arg, msg, len);
}

/*
 * Sets the kernel queue's length to 0: with NFQA_CFG_F_FAIL_OPEN the kernel then accepts every new packet itself
 * instead of queueing it, so the socket holds a finite backlog that a drain can empty before the unbind.
 */
static int stop_queueing(int fd, uint16_t queue_num)
{
    char msg[256] __attribute__((aligned(8)));
    memset(msg, 0, sizeof(msg));
    struct nlmsghdr *nlh = nfq_nlmsg_put(msg, NFQNL_MSG_CONFIG, queue_num);
    nfq_nlmsg_cfg_put_qmaxlen(nlh, 0);
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    return sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0 ? -1 : 0;
}

/*
 * Ids the kernel gave after the last packet read, right before the unbind: still queued (the drain timed out, or
 * queueing could not be stopped), the unbind drops them; otherwise the socket was full when they came and no later
 * packet showed the gap (nfq_fail_open.h).
 */
static void count_trailing_ids(struct nfq_ctx *c, uint16_t queue_num)
{
    FILE *f = fopen("/proc/net/netfilter/nfnetlink_queue", "r");
    struct nfq_queue_line l;
    if (!f)
        return;
    if (nfq_queue_line_read(f, queue_num, &l) == 0)
        nfq_trailing_ids(&c->last_id, &l, nfq_verdicts_unanswered(&c->v), &c->e->c.fail_open_pkts,
                         &c->e->c.shutdown_lost_pkts);
    fclose(f);
}

int nfq_loop_run(struct dp_engine *e, const char *const *roles, const char *const *ifnames, unsigned n_ports,
                 const char *pid_path)
{
    static struct nfq_ctx c;
    static char buf[65536 + 4096] __attribute__((aligned));
    int rc = -1;

    memset(&c, 0, sizeof(c));
    c.e = e;
    c.n_ports = n_ports;
    c.v = (struct nfq_verdicts){.e = e, .n_ports = n_ports, .send = kernel_verdict, .arg = &c, .clock = nfq_clock_ns};
    for (unsigned i = 0; i < n_ports; i++) {
        c.ifindex[i] = (int)if_nametoindex(ifnames[i]);
        if (c.ifindex[i] == 0) {
            fprintf(stderr, "adwiser-dp: %s: no interface '%s' in this namespace\n", roles[i], ifnames[i]);
            return -1;
        }
        fprintf(stderr, "adwiser-dp: port %u (%s) = interface %s (ifindex %d)\n", i, roles[i], ifnames[i],
                c.ifindex[i]);
    }
    struct nfq_handle *h = nfq_open();
    if (!h) {
        fprintf(stderr, "adwiser-dp: nfq_open: %s\n", strerror(errno));
        return -1;
    }
    c.qh = nfq_create_queue(h, (uint16_t)e->opt->queue_num, on_packet, &c);
    if (!c.qh) {
        fprintf(stderr, "adwiser-dp: cannot bind NFQUEUE %u: %s (another process on it?)\n", e->opt->queue_num,
                strerror(errno));
        goto out_close;
    }
    if (nfq_set_mode(c.qh, NFQNL_COPY_PACKET, 0xffff) < 0) {
        fprintf(stderr, "adwiser-dp: nfq_set_mode: %s\n", strerror(errno));
        goto out_queue;
    }
    nfq_set_queue_maxlen(c.qh, NFQ_QUEUE_MAXLEN);
    /* A full kernel queue accepts rather than drops (fail-open), like --queue-bypass when we are gone. */
    nfq_set_queue_flags(c.qh, NFQA_CFG_F_FAIL_OPEN, NFQA_CFG_F_FAIL_OPEN);
    int fd = nfq_fd(h);
    int one = 1, rcvbuf = (int)NFQ_RCVBUF;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
    setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof(one));
    dp_write_pid_file(pid_path);
    const struct nfq_reader rd = {.fd = fd, .buf = buf, .len = sizeof(buf), .clock = nfq_clock_ns,
                                  .handle = handle_msg, .arg = h};

    uint64_t start = nfq_clock_ns();
    e->start_ns = start;
    dp_engine_expect(e, start);
    c.due = adw_sched_next_event_ns(e->sched, start);
    while (!dp_stop_requested) {
        uint64_t wait_ns = nfq_poll_timeout_ns(nfq_clock_ns(), c.due);
        struct timespec ts = {.tv_sec = (time_t)(wait_ns / 1000000000u), .tv_nsec = (long)(wait_ns % 1000000000u)};
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = ppoll(&pfd, 1, &ts, NULL);
        if (pr > 0) {
            /* Up to the awaited event: what was read is enqueued, then what is due released (nfq_read.h). */
            nfq_read_socket(&rd, c.due, NFQ_READ_MAX);
            process_batch(&c);
        }
        uint64_t now = nfq_clock_ns();
        dp_engine_tick(e, now, c.due);
        nfq_verdicts_release_due(&c.v, now);
        if (e->opt->run_ms && now - start >= e->opt->run_ms * 1000000u)
            break;
        dp_engine_expect(e, now);
        c.due = adw_sched_next_event_ns(e->sched, now);
    }

    e->elapsed_ns = nfq_clock_ns() - start;
    /* Shutdown: a verdict for every held packet. */
    nfq_verdicts_flush(&c.v);
    /*
     * Then what is queued but not yet read: unbinding drops every entry still in the kernel queue (--queue-bypass
     * only helps packets that come after).  First what arrived meanwhile, in order, while the kernel still queues;
     * then the kernel is told to stop queueing (new packets pass at once) and the rest, now finite, is read.
     */
    c.draining = 1;
    nfq_read_socket(&rd, nfq_clock_ns() + NFQ_DRAIN_QUEUEING_NS, UINT_MAX);
    if (stop_queueing(fd, (uint16_t)e->opt->queue_num) != 0)
        fprintf(stderr, "adwiser-dp: cannot stop queueing before the unbind (%s): packets queued meanwhile drop\n",
                strerror(errno));
    uint64_t read_queueing = e->c.drained_pkts;
    if (!nfq_read_socket(&rd, nfq_clock_ns() + NFQ_DRAIN_MAX_NS, UINT_MAX))
        fprintf(stderr, "adwiser-dp: shutdown: the queue was not empty after %u ms; what remains drops\n",
                NFQ_DRAIN_MAX_NS / 1000000u);
    if (e->c.drained_pkts)
        fprintf(stderr, "adwiser-dp: shutdown: %llu queued packets read and accepted before the unbind (%llu after "
                "queueing stopped)\n", (unsigned long long)e->c.drained_pkts,
                (unsigned long long)(e->c.drained_pkts - read_queueing));
    e->c.tx_drops += nfq_verdicts_lost(&c.v);   /* first: its last try may answer packets still queued */
    count_trailing_ids(&c, (uint16_t)e->opt->queue_num);
    if (e->c.shutdown_lost_pkts)
        fprintf(stderr, "adwiser-dp: shutdown: %llu queued packets never read, dropped by the unbind\n",
                (unsigned long long)e->c.shutdown_lost_pkts);
    rc = 0;
out_queue:
    nfq_destroy_queue(c.qh);
out_close:
    nfq_close(h);
    return rc;
}
