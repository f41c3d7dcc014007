/*
 * packet_socket.c — AF_PACKET sockets (packet(7)).
 */
#define _GNU_SOURCE
#include "packet_socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

int packet_socket_open(const char *ifname, char *err, size_t errlen)
{
    unsigned idx = if_nametoindex(ifname);
    if (idx == 0) {
        snprintf(err, errlen, "interface %s: %s", ifname, strerror(errno));
        return -1;
    }
    /* Protocol 0: nothing is queued until bind() names the interface (with ETH_P_ALL the socket took frames of
     * every interface of the namespace in between, and a frame of another port could be forwarded as this one's). */
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "AF_PACKET socket for %s: %s", ifname, strerror(errno));
        return -1;
    }
    struct sockaddr_ll sll = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = (int)idx};
    struct packet_mreq mr = {.mr_ifindex = (int)idx, .mr_type = PACKET_MR_PROMISC};
    int one = 1, buf = 8 << 20;
    if (bind(fd, (struct sockaddr *)&sll, sizeof sll) != 0 ||
        setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) != 0) {
        snprintf(err, errlen, "binding AF_PACKET socket to %s: %s", ifname, strerror(errno));
        close(fd);
        return -1;
    }
    /* Best effort: larger buffers (FORCE works as root) and no copies of our own sends. */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof buf) != 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
    return fd;
}

ssize_t packet_socket_recv(int fd, uint8_t *buf, size_t cap, uint64_t *arrival_ns)
{
    for (;;) {
        struct sockaddr_ll from = {0}; /* read below even if the socket filled in no address */
        union {
            char buf[CMSG_SPACE(sizeof(struct timespec))];
            struct cmsghdr align;
        } control;
        struct iovec iov = {.iov_base = buf, .iov_len = cap};
        struct msghdr mh = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1,
                            .msg_control = control.buf, .msg_controllen = sizeof control.buf};
        ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
        if (n < 0)
            return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -1;
        if (from.sll_pkttype == PACKET_OUTGOING)
            continue;
        *arrival_ns = 0;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof ts);
                *arrival_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
            }
        return n;
    }
}

int packet_socket_send(int fd, const uint8_t *buf, size_t len)
{
    return send(fd, buf, len, MSG_DONTWAIT) == (ssize_t)len ? 0 : -1;
}

uint64_t packet_socket_kernel_drops(int fd)
{
    struct tpacket_stats st;
    socklen_t len = sizeof st;
    return getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0 ? st.tp_drops : 0;
}
