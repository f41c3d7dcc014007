/*
 * packet_socket.h — one AF_PACKET socket per emulator interface: bound to
 * the interface, promiscuous, non-blocking, outgoing copies ignored,
 * incoming frames stamped by the kernel.
 */
#ifndef PACKET_SOCKET_H
#define PACKET_SOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Opens the socket; returns the fd or -1 with a message in err. */
int packet_socket_open(const char *ifname, char *err, size_t errlen);
/* Receives one incoming frame; returns its length, 0 if none is waiting
 * (outgoing copies are skipped), -1 on error. *arrival_ns is the kernel's
 * receive timestamp (SO_TIMESTAMPNS, CLOCK_REALTIME ns: taken when the frame
 * was queued for the interface's receive processing), 0 if it gave none. */
ssize_t packet_socket_recv(int fd, uint8_t *buf, size_t cap, uint64_t *arrival_ns);
/* Sends a frame; returns 0 or -1. */
int packet_socket_send(int fd, const uint8_t *buf, size_t len);
/* Frames the kernel dropped because the socket's receive buffer was full, since the last call (PACKET_STATISTICS
 * tp_drops: reading resets it); 0 if unknown. */
uint64_t packet_socket_kernel_drops(int fd);

#endif
