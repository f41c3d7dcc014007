/*
 * tcp_bulk.h — the two ends of a bulk downlink TCP transfer in the
 * simulation, reduced to what the appliance sees: a server that keeps up to
 * `window` segments outstanding (ACK-clocked, no congestion control: the
 * appliance's batches are the bottleneck) and resends a segment the
 * appliance dropped, and a STA that acknowledges cumulatively every second
 * segment and at the end of each burst (its AP's queue ran empty).
 * Sequence numbers start near 2^32 so every run crosses the wrap-around.
 */
#ifndef ADW_SIM_TCP_BULK_H
#define ADW_SIM_TCP_BULK_H

#include <stdbool.h>
#include <stdint.h>

#define TCP_MSS 1448
#define TCP_RING 4096            /* segments tracked (buffers, receive bitmap); > window */
#define TCP_FRAME_MAX 1600

struct tcp_bulk {
    uint32_t sta;                /* STA index */
    uint32_t window;             /* segments outstanding at most */
    uint32_t isn;                /* initial sequence number */
    uint64_t next_seg;           /* next new segment to send */
    uint64_t acked_seg;          /* segments cumulatively acknowledged (server's view) */
    /* STA side */
    uint64_t rcv_next;           /* next in-order segment expected */
    bool got[TCP_RING];          /* out-of-order segments received */
    uint32_t unacked;            /* in-order segments delivered since the last ACK */
    uint64_t delivered_bytes;    /* payload bytes delivered in order (measured window) */
    /* appliance-facing frames (must stay valid while the core holds them) */
    uint8_t frame[TCP_RING][TCP_FRAME_MAX];
    uint32_t frame_len[TCP_RING];
    uint64_t frame_seg[TCP_RING]; /* segment in each frame buffer; the frame's cookie points here */
    uint8_t ack_frame[TCP_RING][128];
    uint32_t ack_len[TCP_RING];
    uint32_t ack_next;
};

void tcp_init(struct tcp_bulk *t, uint32_t sta, uint32_t window);
/* Number of new segments the server may send now (window minus outstanding). */
uint32_t tcp_sendable(const struct tcp_bulk *t);
/* Writes the frame of segment seg (server -> STA) and returns its buffer slot. */
uint32_t tcp_build_segment(struct tcp_bulk *t, uint64_t seg);
/* The STA receives segment seg; returns true and sets *ack_count (segments acknowledged) if it sends an ACK. */
bool tcp_sta_receive(struct tcp_bulk *t, uint64_t seg, bool burst_end, bool measure, uint64_t *ack_count);
/* Writes the STA's ACK frame for ack_count segments; returns a pointer to it and its length. */
const uint8_t *tcp_build_ack(struct tcp_bulk *t, uint64_t ack_count, uint32_t *len);
/* The server receives an ACK of ack_count segments. */
void tcp_server_ack(struct tcp_bulk *t, uint64_t ack_count);

#endif
