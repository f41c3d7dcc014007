/* Raw AF_PACKET access to one interface (see packet_port.h). */
#define _GNU_SOURCE
#include "packet_port.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

/* Socket buffers deep enough to absorb a burst of a 200 Mbit/s link while
 * the loop sleeps towards the next departure (4 MiB ≈ 170 ms at 200 Mbit/s). */
#define PORT_SOCKBUF_BYTES (4 * 1024 * 1024)

int packet_port_open(struct packet_port *p, const char *ifname, char *err, size_t err_len)
{
    memset(p, 0, sizeof(*p));
    p->fd = -1;
    if (strlen(ifname) >= sizeof(p->name)) {
        snprintf(err, err_len, "interface name too long: %s", ifname);
        return -1;
    }
    snprintf(p->name, sizeof(p->name), "%s", ifname);
    p->ifindex = (int)if_nametoindex(ifname);
    if (p->ifindex == 0) {
        snprintf(err, err_len, "no such interface: %s", ifname);
        return -1;
    }
    /* Protocol 0: nothing is queued until bind() names the interface (with ETH_P_ALL the socket took frames of
     * every interface of the namespace in between, and a frame of the other port was sent back out of its own). */
    p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (p->fd < 0) {
        snprintf(err, err_len, "socket(AF_PACKET) for %s: %s", ifname, strerror(errno));
        return -1;
    }
    struct sockaddr_ll sll = {
        .sll_family = AF_PACKET,
        .sll_protocol = htons(ETH_P_ALL),
        .sll_ifindex = p->ifindex,
    };
    if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        snprintf(err, err_len, "bind to %s: %s", ifname, strerror(errno));
        goto fail;
    }
    struct packet_mreq mr = {.mr_ifindex = p->ifindex, .mr_type = PACKET_MR_PROMISC};
    if (setsockopt(p->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
        snprintf(err, err_len, "promiscuous mode on %s: %s", ifname, strerror(errno));
        goto fail;
    }
    /* Frames we transmit must not loop back into our own receive path. Older
     * kernels lack the option; recv() also filters PACKET_OUTGOING. */
    int one = 1;
    (void)setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
    int sz = PORT_SOCKBUF_BYTES;
    if (setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
        (void)setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
    if (setsockopt(p->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) < 0)
        (void)setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    return 0;
fail:
    close(p->fd);
    p->fd = -1;
    return -1;
}

void packet_port_close(struct packet_port *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

ssize_t packet_port_recv(struct packet_port *p, uint8_t *buf, size_t cap)
{
    for (;;) {
        struct sockaddr_ll from;
        socklen_t fl = sizeof(from);
        ssize_t n = recvfrom(p->fd, buf, cap, MSG_TRUNC, (struct sockaddr *)&from, &fl);
        if (n < 0)
            return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
        if (from.sll_pkttype == PACKET_OUTGOING)
            continue;
        return n;
    }
}

int packet_port_send(struct packet_port *p, const uint8_t *frame, size_t len)
{
    ssize_t n = send(p->fd, frame, len, 0);
    return n == (ssize_t)len ? 0 : -1;
}

uint64_t packet_port_kernel_drops(struct packet_port *p)
{
    struct tpacket_stats st;
    socklen_t len = sizeof st;
    return getsockopt(p->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0 ? st.tp_drops : 0;
}
