/* An Ethernet interface opened as a raw AF_PACKET socket: every frame the
 * interface receives (promiscuous), none that this host sends out of it. */
#ifndef PACKET_PORT_H
#define PACKET_PORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct packet_port {
    int fd;          /* AF_PACKET/SOCK_RAW socket bound to the interface */
    int ifindex;     /* kernel interface index */
    char name[16];   /* interface name (IFNAMSIZ) */
};

/* Opens `ifname`; returns 0, or -1 with a message in `err` (err_len bytes). */
int packet_port_open(struct packet_port *p, const char *ifname, char *err, size_t err_len);
void packet_port_close(struct packet_port *p);

/* Receives one frame without blocking. Returns its full length (may exceed
 * cap: the frame was truncated), 0 if nothing is waiting, -1 on error. */
ssize_t packet_port_recv(struct packet_port *p, uint8_t *buf, size_t cap);

/* Sends one frame; returns 0 or -1 with errno set. */
int packet_port_send(struct packet_port *p, const uint8_t *frame, size_t len);
/* Frames the kernel dropped at p's full receive buffer since the last call (PACKET_STATISTICS tp_drops, which
 * reading resets); 0 if unknown. */
uint64_t packet_port_kernel_drops(struct packet_port *p);

#endif
