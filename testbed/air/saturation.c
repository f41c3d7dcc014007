/*
 * saturation.c — saturated downlink TCP-like load (see saturation.h).
 */
#include "saturation.h"

#include <string.h>

void sat_default_params(struct sat_params *p)
{
    p->segment_bytes = 1514;  /* 14 Ethernet + 20 IP + 32 TCP (timestamps) + 1448 */
    p->payload_bytes = 1448;
    p->ack_bytes = 66;        /* 14 + 20 + 32 */
    p->backlog_pkts = 256;
    p->warmup_us = 1000000;
    p->duration_us = 5000000;
    p->seed = 1;
}

struct sat_state {
    const struct sat_params *p;
    wlan_air_t *air;
    int n;
    const int *ap, *sta;
    uint64_t now_us;
    uint64_t next_id;
    uint32_t unacked[SAT_MAX_PAIRS];      /* segments delivered since the last ACK */
    uint64_t payload[SAT_MAX_PAIRS];      /* bytes delivered in the window */
    uint64_t ppdus[SAT_MAX_PAIRS], mpdus[SAT_MAX_PAIRS], ok[SAT_MAX_PAIRS], collided[SAT_MAX_PAIRS];
    uint64_t pre_lost[SAT_MAX_PAIRS], airtime[SAT_MAX_PAIRS], protected_[SAT_MAX_PAIRS];
    double phy_sum[SAT_MAX_PAIRS];
    uint64_t delivered[SAT_MAX_PAIRS], dropped[SAT_MAX_PAIRS]; /* segments handed up / given up, in the window */
};

static int pair_of_sta(const struct sat_state *s, int node)
{
    for (int i = 0; i < s->n; i++)
        if (s->sta[i] == node)
            return i;
    return -1;
}

static int pair_of_ap(const struct sat_state *s, int node)
{
    for (int i = 0; i < s->n; i++)
        if (s->ap[i] == node)
            return i;
    return -1;
}

static void on_deliver(void *ctx, const struct wlan_delivery *d)
{
    struct sat_state *s = ctx;
    int i = pair_of_sta(s, d->dst);
    if (i < 0)
        return; /* an ACK reaching the AP side */
    if (d->deliver_us >= s->p->warmup_us) {
        s->payload[i] += s->p->payload_bytes;
        s->delivered[i]++;
    }
    if (++s->unacked[i] >= 2) {
        s->unacked[i] = 0;
        struct wlan_frame ack = {.id = s->next_id++, .len_bytes = s->p->ack_bytes,
                                 .src = (uint8_t)s->sta[i], .dst = (uint8_t)s->ap[i], .ac = WLAN_AC_BE};
        wlan_air_enqueue(s->air, &ack, d->deliver_us);
    }
}

static void on_dropped(void *ctx, const struct wlan_delivery *d)
{
    struct sat_state *s = ctx;
    int i = pair_of_sta(s, d->dst);
    if (i >= 0 && d->deliver_us >= s->p->warmup_us)
        s->dropped[i]++;
}

static void on_ppdu(void *ctx, const struct wlan_gt_record *r)
{
    struct sat_state *s = ctx;
    int i = pair_of_ap(s, r->tx);
    if (i < 0 || r->start_us < s->p->warmup_us)
        return;
    s->ppdus[i]++;
    s->mpdus[i] += r->n_mpdu;
    s->ok[i] += r->n_ok;
    s->collided[i] += r->collided;
    s->pre_lost[i] += r->preamble_lost;
    s->protected_[i] += r->rts;
    s->airtime[i] += r->duration_us;
    s->phy_sum[i] += r->phy_mbps;
}

static void refill(struct sat_state *s)
{
    for (int i = 0; i < s->n; i++)
        while (wlan_air_queued(s->air, s->ap[i], s->sta[i]) < s->p->backlog_pkts) {
            struct wlan_frame f = {.id = s->next_id++, .len_bytes = s->p->segment_bytes,
                                   .src = (uint8_t)s->ap[i], .dst = (uint8_t)s->sta[i], .ac = WLAN_AC_BE};
            if (wlan_air_enqueue(s->air, &f, s->now_us) != 0)
                break;
        }
}

int sat_run(const struct wlan_air_config *c, const int *ap, const int *sta, int n,
            const struct sat_params *p, struct sat_pair_result *out)
{
    if (n < 1 || n > SAT_MAX_PAIRS)
        return -1;
    struct sat_state s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.n = n;
    s.ap = ap;
    s.sta = sta;
    s.air = wlan_air_create(c, p->seed);
    if (!s.air)
        return -1;
    struct wlan_air_callbacks cb = {.deliver = on_deliver, .ground_truth = on_ppdu, .dropped = on_dropped, .ctx = &s};
    uint64_t end = p->warmup_us + p->duration_us;
    refill(&s);
    while (s.now_us < end) {
        uint64_t t = wlan_air_next_event_us(s.air);
        if (t > end)
            t = end;
        wlan_air_advance(s.air, t, &cb);
        s.now_us = t;
        refill(&s);
    }
    for (int i = 0; i < n; i++) {
        out[i] = (struct sat_pair_result){0};
        out[i].throughput_mbps = (double)s.payload[i] * 8.0 / (double)p->duration_us;
        out[i].ppdus = s.ppdus[i];
        if (s.ppdus[i]) {
            out[i].mean_ampdu = (double)s.mpdus[i] / (double)s.ppdus[i];
            out[i].mean_phy_mbps = s.phy_sum[i] / (double)s.ppdus[i];
            out[i].collided_frac = (double)s.collided[i] / (double)s.ppdus[i];
            out[i].mpdu_loss_frac = 1.0 - (double)s.ok[i] / (double)s.mpdus[i];
            out[i].preamble_lost_frac = (double)s.pre_lost[i] / (double)s.ppdus[i];
            out[i].airtime_frac = (double)s.airtime[i] / (double)p->duration_us;
            out[i].protected_frac = (double)s.protected_[i] / (double)s.ppdus[i];
        }
        if (s.delivered[i] + s.dropped[i]) {
            out[i].retry_drop_frac = (double)s.dropped[i] / (double)(s.delivered[i] + s.dropped[i]);
        }
        struct wlan_link_counters k;
        wlan_air_link_counters(s.air, ap[i], sta[i], &k);
        if (k.rts_tx)
            out[i].rts_fail_frac = (double)k.rts_failed / (double)k.rts_tx;
    }
    wlan_air_destroy(s.air);
    return 0;
}
