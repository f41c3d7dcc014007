/* sim_lab.c — see sim_lab.h. */
#include "sim_lab.h"

#include <stdio.h>
#include <stdlib.h>

#include "lab_config.h"

const double SIM_BETA[2] = {79.6e6 / (TCP_MSS * 8) / 1000, 103.5e6 / (TCP_MSS * 8) / 1000};

static void push_sendable(struct event_queue *q, struct tcp_bulk *t, uint32_t sta, uint64_t at)
{
    for (int64_t seg; (seg = tcp_next_to_send(t)) >= 0;)
        eq_push(q, at, EV_DATA_AT_CORE, sta, (uint64_t)seg);
}

struct sim_lab *sim_lab_create(unsigned slice_ms, unsigned seconds, uint64_t seed, bool http, char *err,
                               size_t errlen)
{
    struct sim_lab *L = calloc(1, sizeof(*L));
    if (L == NULL || (L->cfg = lab_config_2ap_2sta(slice_ms)) == NULL) {
        snprintf(err, errlen, "out of memory");
        free(L);
        return NULL;
    }
    L->http.on = http;
    if (http)
        L->cfg->policies.dynamic_slicing.enabled = true;
    if ((L->s = adw_sched_create(NULL, L->cfg, 0, err, errlen)) == NULL) {
        sim_lab_free(L);
        return NULL;
    }
    if (eq_init(&L->q, 1u << 20) != 0) {
        snprintf(err, errlen, "out of memory");
        sim_lab_free(L);
        return NULL;
    }
    L->slice_ns = (uint64_t)slice_ms * SIM_MS;
    L->frame_ns = 2 * L->slice_ns;
    L->end_ns = (uint64_t)seconds * 1000 * SIM_MS;
    L->warm_ns = L->end_ns / 4;
    L->rng = (struct rng){.s = 0x9e3779b97f4a7c15ull ^ seed};
    frame_stats_init(&L->frames, (unsigned)(L->warm_ns / L->frame_ns));
    for (unsigned i = 0; i < 2; i++) {
        tcp_init(&L->flows[i], i);
        ap_init(&L->aps[i], i, SIM_BETA[i], i * L->slice_ns, L->slice_ns, L->frame_ns);
    }
    if (http) {
        L->flows[1].app_limit = 0;
        eq_push(&L->q, FIRST_PAGE_NS, EV_PAGE_START, 1, 0);
    }
    for (unsigned i = 0; i < 2; i++)
        push_sendable(&L->q, &L->flows[i], i, D_SERVER_NS);
    eq_push(&L->q, 0, EV_CORE_TICK, 0, 0);
    L->tick_at = 0;
    return L;
}

void sim_lab_free(struct sim_lab *L)
{
    if (L == NULL)
        return;
    if (L->s)
        adw_sched_free(L->s);
    eq_free(&L->q);
    free(L->cfg);
    free(L);
}

static void core_tick(struct sim_lab *L, uint64_t now)
{
    struct adw_pkt out[256];
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    if (now == L->tick_at)
        L->tick_at = UINT64_MAX;
    unsigned n;
    while ((n = adw_sched_dequeue_burst(L->s, out, 256, now)) > 0)
        for (unsigned i = 0; i < n; i++) {
            uint32_t a = out[i].out_port - 1;
            uint64_t seg = *(const uint64_t *)out[i].cookie;
            /* A full AP tail-drops (ap_receive counts it); the server learns of the loss as it does of the
             * appliance's drops, from the STA's SACKs, modelled as at once. */
            if (ap_receive(&L->aps[a], seg, now, &L->q, &L->rng) != 0)
                tcp_server_dropped(&L->flows[a], seg, now >= L->warm_ns);
        }
    while (adw_sched_poll_frame(L->s, &fr, pr, 2))
        frame_stats_add(&L->frames, pr);
}

static void data_at_core(struct sim_lab *L, uint32_t sta, uint64_t seg, uint64_t now, bool measure)
{
    struct tcp_bulk *t = &L->flows[sta];
    uint32_t slot = tcp_build_segment(t, seg);
    struct adw_pkt p = {.data = t->frame[slot], .len = t->frame_len[slot], .in_port = 0, .cookie = &t->frame_seg[slot]};
    enum adw_verdict v;
    adw_sched_enqueue_burst(L->s, &p, &v, 1, now);
    if (v == ADW_DROP)
        tcp_server_dropped(t, seg, measure);
}

static void ap_done_at(struct sim_lab *L, uint32_t a, uint64_t now, bool measure)
{
    struct ap_model *ap = &L->aps[a];
    uint64_t seg = ap_done(ap, now, &L->q, &L->rng, measure);
    uint64_t ack_count;
    if (tcp_sta_receive(&L->flows[a], seg, ap->n == 0, measure, &ack_count))
        eq_push(&L->q, now + D_ACK_NS, EV_ACK_AT_CORE, a, tcp_build_ack(&L->flows[a], ack_count));
    struct http_user *h = &L->http;
    if (h->on && a == 1 && h->loading && L->flows[1].rcv_next >= L->flows[1].app_limit) {
        h->loading = false;
        if (measure) {
            h->pages++;
            h->resp_sum_ms += (double)(now - h->page_start_ns) / 1e6;
        }
        eq_push(&L->q, now + (uint64_t)((100 + 400 * rng_uniform(&L->rng)) * SIM_MS), EV_PAGE_START, 1, 0);
    }
}

static void ack_at_core(struct sim_lab *L, uint32_t sta, uint32_t slot, uint64_t now)
{
    const struct tcp_bulk *t = &L->flows[sta];
    struct adw_pkt p = {.data = t->ack_frame[slot], .len = t->ack_len[slot], .in_port = (uint16_t)(sta + 1)};
    enum adw_verdict v;
    adw_sched_enqueue_burst(L->s, &p, &v, 1, now);
    eq_push(&L->q, now + D_SERVER_NS, EV_ACK_AT_SERVER, sta, t->ack_count[slot]);
}

void sim_lab_handle(struct sim_lab *L, const struct sim_event *ev)
{
    uint64_t now = ev->t_ns;
    bool measure = now >= L->warm_ns;
    switch (ev->kind) {
    case EV_CORE_TICK:
        core_tick(L, now);
        break;
    case EV_DATA_AT_CORE:
        data_at_core(L, ev->a, ev->b, now, measure);
        break;
    case EV_AP_DONE:
        ap_done_at(L, ev->a, now, measure);
        break;
    case EV_ACK_AT_CORE:
        ack_at_core(L, ev->a, (uint32_t)ev->b, now);
        break;
    case EV_ACK_AT_SERVER:
        tcp_server_ack(&L->flows[ev->a], ev->b);
        push_sendable(&L->q, &L->flows[ev->a], ev->a, now + D_SERVER_NS);
        break;
    case EV_PAGE_START: /* the request takes one server delay to arrive; the page then flows */
        L->http.loading = true;
        L->http.page_start_ns = now;
        L->flows[ev->a].app_limit = L->flows[ev->a].rcv_next + PAGE_SEGS;
        push_sendable(&L->q, &L->flows[ev->a], ev->a, now + 2 * D_SERVER_NS);
        break;
    }
    uint64_t nxt = adw_sched_next_event_ns(L->s, now);
    if (nxt < L->tick_at) {
        eq_push(&L->q, nxt, EV_CORE_TICK, 0, 0);
        L->tick_at = nxt;
    }
}

void sim_lab_run(struct sim_lab *L)
{
    struct sim_event ev;
    while (eq_pop(&L->q, &ev) && ev.t_ns < L->end_ns)
        sim_lab_handle(L, &ev);
}
