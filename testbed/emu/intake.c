/*
 * intake.c — frames read from wlan-emu's interfaces into the air model.
 *
 * A unicast frame from AP k's interface to a STA of AP k (MAC pinned or
 * learned from the STA's own frames) is queued downlink in the model at its
 * arrival time, and a unicast frame from a STA's interface uplink to its AP.
 * Group-addressed frames, frames for unknown MACs, runts and oversize frames
 * bypass the air at once and are counted (README.md, "Forwarding rules").
 */
#include <string.h>

#include "emu.h"
#include "eth_frame.h"

/* Sends a frame at once to every STA port of AP node ap. */
static void flood_to_stas(struct emu *e, int ap, const uint8_t *buf, size_t len)
{
    for (int i = 0; i < e->n_ports; i++) {
        int n = e->ports[i].node;
        if (e->cfg->nodes[n].role == WLAN_ROLE_STA && e->cfg->nodes[n].ap == ap)
            send_on(e, n, buf, len);
    }
}

/* intake_us: how long the frame waited between its arrival on the interface and our read (UINT64_MAX: unknown). */
static void into_air(struct emu *e, int src, int dst, const struct eth_info *info, const uint8_t *buf,
                     size_t len, uint64_t now, uint64_t intake_us)
{
    uint64_t id = frame_store_put(&e->store, buf, (uint32_t)len, now);
    if (id == UINT64_MAX) {
        e->no_slot++;
        return;
    }
    struct wlan_frame f = {.id = id, .len_bytes = (uint32_t)len, .src = (uint8_t)src, .dst = (uint8_t)dst,
                           .ac = info->ac};
    struct link_stats *l = link_of(e, src, dst);
    if (wlan_air_enqueue(e->air, &f, now) != 0) {
        l->refused++;
        frame_store_release(&e->store, id);
        return;
    }
    l->frames_in++;
    l->in_air++;
    l->bytes_in += len;
    if (intake_us != UINT64_MAX)
        delivery_timing_add(&l->intake, intake_us);
}

static void from_ap(struct emu *e, struct port *p, const uint8_t *buf, size_t len, uint64_t now, uint64_t intake_us)
{
    struct eth_info info;
    eth_classify(buf, len, &info);
    if (info.kind == ETH_MALFORMED) {
        e->bypass_malformed++;
        flood_to_stas(e, p->node, buf, len);
        return;
    }
    if (info.kind == ETH_GROUP) {
        e->bypass_group++;
        flood_to_stas(e, p->node, buf, len);
        return;
    }
    for (int i = 0; i < e->n_ports; i++) {
        struct port *s = &e->ports[i];
        if (e->cfg->nodes[s->node].role != WLAN_ROLE_STA || e->cfg->nodes[s->node].ap != p->node || !s->has_mac ||
            memcmp(s->mac, info.dst, 6) != 0)
            continue;
        if (len > FRAME_SLOT_BYTES) {
            e->bypass_oversize++;
            send_on(e, s->node, buf, len);
        } else {
            into_air(e, p->node, s->node, &info, buf, len, now, intake_us);
        }
        return;
    }
    e->bypass_unknown++;
    flood_to_stas(e, p->node, buf, len);
}

static void from_sta(struct emu *e, struct port *p, const uint8_t *buf, size_t len, uint64_t now, uint64_t intake_us)
{
    struct eth_info info;
    eth_classify(buf, len, &info);
    int ap = e->cfg->nodes[p->node].ap;
    if (info.kind == ETH_MALFORMED) {
        e->bypass_malformed++;
        send_on(e, ap, buf, len);
        return;
    }
    if (!(info.src[0] & 1) && !p->mac_pinned) { /* learn the STA's address from what it sends (mac= pins it) */
        memcpy(p->mac, info.src, 6);
        p->has_mac = true;
    }
    if (info.kind == ETH_GROUP) {
        e->bypass_group++;
        send_on(e, ap, buf, len);
    } else if (len > FRAME_SLOT_BYTES) {
        e->bypass_oversize++;
        send_on(e, ap, buf, len);
    } else {
        into_air(e, p->node, ap, &info, buf, len, now, intake_us);
    }
}

int emu_drain_port(struct emu *e, struct port *p)
{
    int got = 0;
    while (got < RX_BATCH) {
        uint64_t arrival_ns;
        ssize_t n = packet_socket_recv(p->fd, e->rxbuf, RX_BUF_BYTES, &arrival_ns);
        if (n == 0)
            break;
        if (n < 0) {
            e->rx_errors++;
            break;
        }
        got++;
        if ((size_t)n > RX_BUF_BYTES) {
            /* Read cut short (n is the frame's length, MSG_TRUNC): forwarded, it would leave corrupted. */
            e->rx_errors++;
            continue;
        }
        size_t len = (size_t)n;
        /* The wait before the air model sees the frame: a real AP's queue would have held it from arrival. */
        uint64_t read_ns = realtime_ns();
        uint64_t intake_us = arrival_ns == 0 ? UINT64_MAX : read_ns > arrival_ns ? (read_ns - arrival_ns) / 1000 : 0;
        /* Bring the air up to the arrival instant before queueing into it. */
        const struct wlan_air_callbacks *cb = emu_callbacks(e);
        uint64_t now = e->advance_us;
        wlan_air_advance(e->air, now, cb);
        if (e->cfg->nodes[p->node].role == WLAN_ROLE_AP)
            from_ap(e, p, e->rxbuf, len, now, intake_us);
        else
            from_sta(e, p, e->rxbuf, len, now, intake_us);
    }
    return got;
}
