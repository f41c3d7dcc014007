/*
 * emu_harness.h — a wlan-emu (struct emu) of the 2AP-2STA lab whose ports are socketpairs instead of AF_PACKET
 * sockets on interfaces, so the intake, delivery and stats code runs without root or namespaces. A test writes
 * frames into peer[node] as the namespace behind that port would, and reads what wlan-emu sent out of it there.
 * SOCK_SEQPACKET keeps frame boundaries and, unlike SOCK_DGRAM, queues more than net.unix.max_dgram_qlen frames.
 */
#ifndef EMU_HARNESS_H
#define EMU_HARNESS_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emu.h"

#define HARNESS_AP1 0
#define HARNESS_STA1 2

struct harness {
    struct emu e;
    int peer[WLAN_MAX_NODES];    /* the namespace's end of each bound node's port, -1 if unbound */
};

static const uint8_t harness_sta1_mac[6] = {0x02, 0xad, 0, 0, 1, 1};
static const uint8_t harness_server_mac[6] = {0x02, 0xad, 0, 0, 0, 1};

static int harness_bind(struct harness *h, int node)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv) != 0)
        return -1;
    int big = 4 << 20;
    for (int i = 0; i < 2; i++) {
        setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        setsockopt(sv[i], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    }
    struct port *p = &h->e.ports[h->e.n_ports];
    memset(p, 0, sizeof *p);
    p->node = node;
    p->fd = sv[0];
    h->e.port_of_node[node] = h->e.n_ports++;
    h->peer[node] = sv[1];
    return 0;
}

/* AP1 and STA1 bound, STA1's MAC pinned; 0 or -1. */
static int harness_init(struct harness *h, const char *air_json)
{
    memset(h, 0, sizeof *h);
    struct wlan_air_config cfg;
    char err[256];
    if (wlan_air_config_load(air_json, &cfg, err, sizeof err) != 0)
        return -1;
    h->e.air = wlan_air_create(&cfg, 1);
    h->e.links = calloc(WLAN_MAX_NODES * WLAN_MAX_NODES, sizeof *h->e.links);
    h->e.rxbuf = malloc(RX_BUF_BYTES);
    if (!h->e.air || !h->e.links || !h->e.rxbuf || frame_store_init(&h->e.store) != 0)
        return -1;
    h->e.cfg = wlan_air_config(h->e.air);
    for (int i = 0; i < WLAN_MAX_NODES; i++)
        h->e.port_of_node[i] = h->peer[i] = -1;
    h->e.t0_ns = mono_ns();
    if (harness_bind(h, HARNESS_AP1) != 0 || harness_bind(h, HARNESS_STA1) != 0)
        return -1;
    struct port *sta = &h->e.ports[h->e.port_of_node[HARNESS_STA1]];
    memcpy(sta->mac, harness_sta1_mac, 6);
    sta->has_mac = sta->mac_pinned = true;
    return 0;
}

static void harness_free(struct harness *h)
{
    for (int i = 0; i < h->e.n_ports; i++)
        close(h->e.ports[i].fd);
    for (int i = 0; i < WLAN_MAX_NODES; i++)
        if (h->peer[i] >= 0)
            close(h->peer[i]);
    frame_store_free(&h->e.store);
    free(h->e.links);
    free(h->e.rxbuf);
    wlan_air_destroy(h->e.air);
}

/* An IPv4 frame of len bytes (len >= 34) from src to dst carrying seq in its payload. */
static void harness_frame(uint8_t *f, size_t len, const uint8_t dst[6], const uint8_t src[6], uint32_t seq)
{
    memset(f, 0, len);
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    f[12] = 0x08;
    f[14] = 0x45;
    memcpy(f + 30, &seq, sizeof seq);
}

/* One turn of wlan-emu's loop: the air up to now, then every port drained. Returns the frames read. */
static int harness_turn(struct harness *h)
{
    const struct wlan_air_callbacks *cb = emu_callbacks(&h->e);
    wlan_air_advance(h->e.air, h->e.advance_us, cb);
    int got = 0;
    for (int i = 0; i < h->e.n_ports; i++)
        got += emu_drain_port(&h->e, &h->e.ports[i]);
    return got;
}

#endif
