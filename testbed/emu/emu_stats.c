/*
 * emu_stats.c — wlan-emu's stats file, written at exit: per link the frames
 * in and out, the model's counters (PPDUs, MPDUs, retransmissions,
 * collisions, airtime, mean A-MPDU and PHY rate), the delivery timing error
 * and intake latency; the bypass counters; the emulator's CPU use.
 */
#include <jansson.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "emu.h"

int emu_write_stats(struct emu *e, const char *path, double wall_s)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    double sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    json_t *links = json_array();
    struct delivery_timing *all = calloc(1, sizeof *all);
    for (uint32_t s = 0; s < e->cfg->n_nodes; s++)
        for (uint32_t d = 0; d < e->cfg->n_nodes; d++) {
            struct wlan_link_counters k;
            wlan_air_link_counters(e->air, (int)s, (int)d, &k);
            struct link_stats *l = link_of(e, (int)s, (int)d);
            if (k.ppdus == 0 && l->frames_in == 0 && l->refused == 0)
                continue;
            for (int i = 0; i <= DT_MAX_US; i++)
                all->bucket[i] += l->timing.bucket[i];
            all->n += l->timing.n;
            if (l->timing.max_us > all->max_us)
                all->max_us = l->timing.max_us;
            json_t *j = json_pack(
                "{s:s,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:I,s:f,s:o,s:o,s:f}",
                "src", e->cfg->nodes[s].name, "dst", e->cfg->nodes[d].name,
                "frames_in", (json_int_t)l->frames_in, "bytes_in", (json_int_t)l->bytes_in,
                "frames_out", (json_int_t)l->frames_out, "dropped", (json_int_t)l->dropped,
                "queue_drops", (json_int_t)k.queue_drops, "ppdus", (json_int_t)k.ppdus,
                "mpdus", (json_int_t)k.mpdus_tx, "mpdus_ok", (json_int_t)k.mpdus_ok,
                "retx", (json_int_t)k.mpdus_retx, "delivered", (json_int_t)k.delivered,
                "bytes", (json_int_t)k.delivered_bytes, "collided", (json_int_t)k.collided,
                "preamble_lost", (json_int_t)k.preamble_lost,
                "mean_ampdu", k.ppdus ? json_real((double)k.sum_ampdu / (double)k.ppdus) : json_null(),
                "mean_phy_mbps", k.ppdus ? json_real(k.sum_phy_mbps / (double)k.ppdus) : json_null(),
                "airtime_us", (json_int_t)k.airtime_us, "airtime_frac", wall_s > 0 ? (double)k.airtime_us / (wall_s * 1e6) : 0.0,
                "timing_error_us", delivery_timing_json(&l->timing),
                "wakeup_error_us", delivery_timing_json(&l->wakeup),
                "throughput_mbps", wall_s > 0 ? (double)k.delivered_bytes * 8.0 / (wall_s * 1e6) : 0.0);
            /* RTS/CTS of the APs' fallback attempts (rate_control.rts_on_fallback; 004 §4.1 counts
             * the protected share of A-MPDUs). */
            json_object_set_new(j, "intake_latency_us", delivery_timing_json(&l->intake));
            /* What became of every frame queued into the air: frames_in = frames_out + tx_errors + dropped +
             * in_air_at_exit, the last being what the air still held when wlan-emu stopped mid-traffic. */
            json_object_set_new(j, "tx_errors", json_integer((json_int_t)l->tx_errors));
            json_object_set_new(j, "in_air_at_exit", json_integer((json_int_t)l->in_air));
            json_object_set_new(j, "rts_tx", json_integer((json_int_t)k.rts_tx));
            json_object_set_new(j, "rts_failed", json_integer((json_int_t)k.rts_failed));
            json_object_set_new(j, "ppdus_protected", json_integer((json_int_t)k.ppdus_protected));
            json_array_append_new(links, j);
        }
    json_t *root = json_pack(
        "{s:f,s:f,s:f,s:f,s:o,s:o,s:{s:I,s:I,s:I,s:I},s:I,s:I,s:I,s:I}", "wall_s", wall_s, "cpu_user_s", user,
        "cpu_sys_s", sys, "cpu_percent", wall_s > 0 ? 100.0 * (user + sys) / wall_s : 0.0, "links", links,
        "timing_error_us", delivery_timing_json(all), "bypass", "broadcast_multicast", (json_int_t)e->bypass_group,
        "unknown_destination", (json_int_t)e->bypass_unknown, "malformed", (json_int_t)e->bypass_malformed,
        "oversize", (json_int_t)e->bypass_oversize, "no_slot_drops", (json_int_t)e->no_slot,
        "tx_errors", (json_int_t)e->tx_errors, "rx_errors", (json_int_t)e->rx_errors, "groundtruth_records",
        (json_int_t)e->gt_records);
    json_object_set_new(root, "t0_unix_ns", json_integer((json_int_t)e->t0_unix_ns));
    /* Frames the kernel dropped at a full receive buffer before wlan-emu read them (the loop descheduled through a
     * burst): lost on the way in, counted nowhere else. */
    uint64_t kernel_drops = 0;
    for (int i = 0; i < e->n_ports; i++)
        kernel_drops += packet_socket_kernel_drops(e->ports[i].fd);
    json_object_set_new(root, "rx_dropped_kernel", json_integer((json_int_t)kernel_drops));
    free(all);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = json_dump_file(root, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
    json_decref(root);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    return rc;
}
