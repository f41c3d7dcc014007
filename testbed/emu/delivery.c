/*
 * delivery.c — frames out of the air model: each delivered MPDU's frame
 * leaves the receiver's interface when the model delivers it, with its
 * lateness against the virtual delivery time recorded per link; frames the
 * model gave up on are counted; every PPDU becomes one ground-truth line
 * (see README.md, "Ground-truth log"), also those on the air when wlan-emu
 * stops (emu_finish_exchanges).
 */
#include "emu.h"
#include "json_string.h"

static void on_deliver(void *ctx, const struct wlan_delivery *d)
{
    struct emu *e = ctx;
    struct frame_slot *f = frame_store_get(&e->store, d->id);
    bool sent = send_on(e, d->dst, f->data, f->len);
    uint64_t t = now_us(e);
    struct link_stats *l = link_of(e, d->src, d->dst);
    l->in_air--;
    if (!sent) { /* a tx error only: frames_out and the timing are of frames that left */
        l->tx_errors++;
        frame_store_release(&e->store, d->id);
        return;
    }
    l->frames_out++;
    delivery_timing_add(&l->timing, t > d->deliver_us ? t - d->deliver_us : 0);
    delivery_timing_add(&l->wakeup, e->advance_us > d->deliver_us ? e->advance_us - d->deliver_us : 0);
    frame_store_release(&e->store, d->id);
}

static void on_dropped(void *ctx, const struct wlan_delivery *d)
{
    struct emu *e = ctx;
    struct link_stats *l = link_of(e, d->src, d->dst);
    l->dropped++;
    l->in_air--;
    frame_store_release(&e->store, d->id);
}

static void on_ground_truth(void *ctx, const struct wlan_gt_record *r)
{
    struct emu *e = ctx;
    if (!e->gt)
        return;
    fprintf(e->gt, "{\"start_us\":%llu,\"duration_us\":%u,\"src\":", (unsigned long long)r->start_us,
            r->duration_us);
    json_put_string(e->gt, e->cfg->nodes[r->tx].name);
    fputs(",\"dst\":", e->gt);
    json_put_string(e->gt, e->cfg->nodes[r->rx].name);
    fprintf(e->gt,
            ",\"ac\":\"%s\",\"mcs\":%u,"
            "\"phy_mbps\":%.1f,\"mpdus\":%u,\"ok\":%u,\"bytes\":%u,\"collided\":%s,\"preamble_lost\":%s,"
            "\"ba_ok\":%s,\"rts\":%s,\"ids\":[",
            r->ac == WLAN_AC_VO ? "VO" : "BE", r->mcs, r->phy_mbps, r->n_mpdu, r->n_ok, r->bytes,
            r->collided ? "true" : "false", r->preamble_lost ? "true" : "false", r->ba_ok ? "true" : "false",
            r->rts ? "true" : "false");
    for (uint32_t i = 0; i < r->n_mpdu; i++)
        fprintf(e->gt, "%s%llu", i ? "," : "", (unsigned long long)frame_seq(r->ids[i]));
    fputs("],\"ok_mask\":\"", e->gt);
    for (uint32_t i = 0; i < r->n_mpdu; i++)
        fputc(r->ok[i] ? '1' : '0', e->gt);
    /* Parallel to ids: when each MPDU entered the AP's queue, on start_us's clock. */
    fputs("\",\"enq_us\":[", e->gt);
    for (uint32_t i = 0; i < r->n_mpdu; i++)
        fprintf(e->gt, "%s%llu", i ? "," : "", (unsigned long long)r->enq_us[i]);
    fputs("]}\n", e->gt);
    e->gt_records++;
}

void emu_finish_exchanges(struct emu *e)
{
    wlan_air_finish_exchanges(e->air);
    for (uint64_t next; (next = wlan_air_next_event_us(e->air)) != UINT64_MAX;) {
        uint64_t at_ns = e->t0_ns + next * 1000;
        struct timespec at = {(time_t)(at_ns / 1000000000u), (long)(at_ns % 1000000000u)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
        const struct wlan_air_callbacks *cb = emu_callbacks(e);
        wlan_air_advance(e->air, e->advance_us, cb);
    }
}

const struct wlan_air_callbacks *emu_callbacks(struct emu *e)
{
    /* Every caller advances the air to the current instant. */
    e->advance_us = now_us(e);
    static struct wlan_air_callbacks cb;
    cb = (struct wlan_air_callbacks){on_deliver, on_ground_truth, on_dropped, e};
    return &cb;
}
