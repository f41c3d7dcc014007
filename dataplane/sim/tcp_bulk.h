/*
 * tcp_bulk.h — the two ends of a bulk downlink TCP transfer in the
 * simulation, reduced to what the appliance sees and reacts to:
 *  - a server (bulk: always data to send; or an HTTP server handing over one
 *    page at a time through app_limit) with a Reno-like window: slow start, then +1 segment per
 *    window of ACKs; a segment the appliance or the AP dropped is resent ahead of new
 *    data and halves the window (once per window of data), as a SACK TCP
 *    would after its duplicate ACKs;
 *  - a STA that acknowledges cumulatively every second segment and at the end
 *    of each burst (its AP's queue ran empty), at once on out-of-order
 *    arrival, and reports the highest out-of-order block with a SACK option.
 * Sequence numbers start near 2^32 so every run crosses the wrap-around.
 */
#ifndef ADW_SIM_TCP_BULK_H
#define ADW_SIM_TCP_BULK_H

#include <stdbool.h>
#include <stdint.h>

#define TCP_MSS 1448
#define TCP_RING 8192            /* segments tracked (buffers, receive bitmap) */
#define TCP_CWND_MAX 4000.0      /* segments */
#define TCP_FRAME_MAX 1600

struct tcp_bulk {
    uint32_t sta;                /* STA index */
    uint32_t isn;                /* initial sequence number */
    double cwnd, ssthresh;       /* segments */
    uint64_t next_seg;           /* next new segment to send */
    uint64_t acked_seg;          /* segments cumulatively acknowledged (server's view) */
    uint64_t recover_seg;        /* no new window reduction before this is acknowledged */
    uint64_t retx[TCP_RING];     /* dropped segments waiting to be resent (ring) */
    uint32_t retx_head, retx_n;
    uint64_t app_limit;          /* the application has handed over this many segments (UINT64_MAX: bulk) */
    /* STA side */
    uint64_t rcv_next;           /* next in-order segment expected */
    uint64_t rcv_max;            /* highest segment received + 1 */
    bool got[TCP_RING];          /* segments received beyond rcv_next */
    uint32_t unacked;            /* in-order segments delivered since the last ACK */
    uint64_t delivered_bytes;    /* payload bytes delivered in order (measured window) */
    uint64_t segs_lost;          /* segments the appliance or the AP dropped (measured window) */
    /* appliance-facing frames (must stay valid while the core holds them) */
    uint8_t frame[TCP_RING][TCP_FRAME_MAX];
    uint32_t frame_len[TCP_RING];
    uint64_t frame_seg[TCP_RING]; /* segment in each frame buffer; the frame's cookie points here */
    /* the STA's ACKs on their way to the appliance, built as it sent them (ring) */
    uint8_t ack_frame[TCP_RING][96];
    uint32_t ack_len[TCP_RING];
    uint64_t ack_count[TCP_RING];  /* segments each acknowledges */
    uint32_t ack_next;
};

void tcp_init(struct tcp_bulk *t, uint32_t sta);
/* Next segment the server may send now (a resend first), or -1 if the window is full. */
int64_t tcp_next_to_send(struct tcp_bulk *t);
/* Writes the frame of segment seg (server -> STA) and returns its buffer slot. */
uint32_t tcp_build_segment(struct tcp_bulk *t, uint64_t seg);
/* Segment seg was dropped on its way: by the appliance, or tail-dropped by the STA's full AP. */
void tcp_server_dropped(struct tcp_bulk *t, uint64_t seg, bool measure);
/* The STA receives segment seg; returns true if it sends an ACK now (*ack_count = segments acknowledged). */
bool tcp_sta_receive(struct tcp_bulk *t, uint64_t seg, bool burst_end, bool measure, uint64_t *ack_count);
/* Writes the ACK frame the STA sends now, acknowledging ack_count segments (with a SACK block if data is missing),
 * and returns its slot (ack_frame, ack_len, ack_count). Built when sent: the SACK block is what the STA had then. */
uint32_t tcp_build_ack(struct tcp_bulk *t, uint64_t ack_count);
/* The server receives an ACK of ack_count segments. */
void tcp_server_ack(struct tcp_bulk *t, uint64_t ack_count);

#endif
