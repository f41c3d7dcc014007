/*
 * sim_main.c — discrete-event simulation of the scheduling core in the
 * 2AP-2STA lab of 004 §4-§6.1: the real core (libadwiser_core.a) between a
 * bulk TCP server and two synthetic APs (ap_model.h) whose STAs' ACKs come
 * back through the core. Virtual time; the core is called exactly as a
 * backend calls it (enqueue bursts, dequeue at adw_sched_next_event_ns,
 * poll_frame for telemetry).
 *
 * It prints, per pair, r(k) converging (TS-ABR-QD, 004 §5 eq. (1)), the mean
 * drain time V against the slice S, and the throughput against the bound
 * beta_i S_i / S of a pair that uses its whole slice at its isolated rate.
 * It is a tool for understanding, not evidence: the APs here are a
 * queueing model, the emulated testbed is the real test.
 *
 * Scenario "bulk" (004 §6.1): bulk downlink TCP at both STAs.
 * Scenario "http" (004 §6.3, Table 5): bulk TCP at STA1; STA2 downloads a
 * 22.64 Mbit page (one connection here, ten in the paper) then thinks for
 * 100-500 ms, with dynamic slicing on so its idle slices go to STA1.
 *
 * usage: adwiser-sim [slice_ms (20)] [seconds (10)] [seed (1)] [bulk|http]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adwiser/sched.h"
#include "ap_model.h"
#include "event_queue.h"
#include "lab_config.h"
#include "rng.h"
#include "tcp_bulk.h"

#define MS 1000000ull
#define D_SERVER_NS (1 * MS)     /* server <-> appliance, one way */
#define D_ACK_NS 250000ull       /* STA's ACK to the appliance through its AP (uplink access) */
#define MAX_FRAMES 4096
#define PAGE_SEGS ((uint64_t)(22.64e6 / 8 / TCP_MSS + 1)) /* 004 §6.3: 22.640 Mb per page */
#define FIRST_PAGE_NS (500 * MS)

/* Isolated throughputs of 004 Table 3 as MPDU service rates (1448-byte payload): 79.6 and 103.5 Mbit/s. */
static const double BETA[2] = {79.6e6 / (TCP_MSS * 8) / 1000, 103.5e6 / (TCP_MSS * 8) / 1000};

struct frame_row {
    uint32_t r[2];
    double v_ms[2];
    uint32_t rel[2];
    uint32_t limit[2];
};

static struct tcp_bulk flows[2];
static struct ap_model aps[2];
static struct frame_row rows[MAX_FRAMES];

/* The HTTP user at STA2 (scenario http). */
struct http_user {
    bool on;
    bool loading;                /* a page is being downloaded */
    uint64_t page_start_ns;
    unsigned pages;              /* pages completed in the measured window */
    double resp_sum_ms;
};

static void push_sendable(struct event_queue *q, struct tcp_bulk *t, uint32_t sta, uint64_t at)
{
    for (int64_t seg; (seg = tcp_next_to_send(t)) >= 0;)
        eq_push(q, at, EV_DATA_AT_CORE, sta, (uint64_t)seg);
}

int main(int argc, char **argv)
{
    unsigned slice_ms = argc > 1 ? (unsigned)atoi(argv[1]) : 20;
    unsigned seconds = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
    uint64_t seed = argc > 3 ? (uint64_t)atoll(argv[3]) : 1;
    const char *scenario = argc > 4 ? argv[4] : "bulk";
    struct http_user http = {.on = strcmp(scenario, "http") == 0};
    if (slice_ms < 1 || slice_ms > 500 || seconds < 2 || seconds > 60 || (!http.on && strcmp(scenario, "bulk"))) {
        fprintf(stderr, "usage: %s [slice_ms 1..500] [seconds 2..60] [seed] [bulk|http]\n", argv[0]);
        return 2;
    }
    struct adw_config *cfg = lab_config_2ap_2sta(slice_ms);
    if (cfg != NULL && http.on)
        cfg->policies.dynamic_slicing.enabled = true;
    char err[256];
    struct adw_sched *s = cfg ? adw_sched_create(NULL, cfg, 0, err, sizeof(err)) : NULL;
    struct event_queue q;
    if (s == NULL || eq_init(&q, 1u << 20) != 0) {
        fprintf(stderr, "adwiser-sim: %s\n", s == NULL ? err : "out of memory");
        return 1;
    }
    const uint64_t S = (uint64_t)slice_ms * MS, F = 2 * S, end_ns = (uint64_t)seconds * 1000 * MS;
    const uint64_t warm_ns = end_ns / 4;
    struct rng rng = {.s = 0x9e3779b97f4a7c15ull ^ seed};
    for (unsigned i = 0; i < 2; i++) {
        tcp_init(&flows[i], i);
        ap_init(&aps[i], i, BETA[i], i * S, S, F);
    }
    if (http.on) {
        flows[1].app_limit = 0;
        eq_push(&q, FIRST_PAGE_NS, EV_PAGE_START, 1, 0);
    }
    for (unsigned i = 0; i < 2; i++)
        push_sendable(&q, &flows[i], i, D_SERVER_NS);
    eq_push(&q, 0, EV_CORE_TICK, 0, 0);
    uint64_t tick_at = 0;
    unsigned n_rows = 0;
    struct adw_pkt out[256];
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
    struct sim_event ev;
    while (eq_pop(&q, &ev) && ev.t_ns < end_ns) {
        uint64_t now = ev.t_ns;
        bool measure = now >= warm_ns;
        switch (ev.kind) {
        case EV_CORE_TICK: {
            if (now == tick_at)
                tick_at = UINT64_MAX;
            unsigned n;
            while ((n = adw_sched_dequeue_burst(s, out, 256, now)) > 0)
                for (unsigned i = 0; i < n; i++)
                    ap_receive(&aps[out[i].out_port - 1], *(const uint64_t *)out[i].cookie, now, &q, &rng);
            while (adw_sched_poll_frame(s, &fr, pr, 2) && n_rows < MAX_FRAMES) {
                struct frame_row *row = &rows[n_rows++];
                for (unsigned i = 0; i < 2; i++) {
                    row->r[i] = pr[i].r_pkts;
                    row->v_ms[i] = pr[i].v_ns / 1e6;
                    row->rel[i] = pr[i].released_pkts;
                    row->limit[i] = pr[i].limit_pkts;
                }
            }
            break;
        }
        case EV_DATA_AT_CORE: {
            struct tcp_bulk *t = &flows[ev.a];
            uint32_t slot = tcp_build_segment(t, ev.b);
            struct adw_pkt p = {
                .data = t->frame[slot], .len = t->frame_len[slot], .in_port = 0, .cookie = &t->frame_seg[slot]};
            enum adw_verdict v;
            adw_sched_enqueue_burst(s, &p, &v, 1, now);
            if (v == ADW_DROP)
                tcp_server_dropped(t, ev.b, measure);
            break;
        }
        case EV_AP_DONE: {
            struct ap_model *ap = &aps[ev.a];
            uint64_t seg = ap_done(ap, now, &q, &rng, measure);
            uint64_t ack_count;
            if (tcp_sta_receive(&flows[ev.a], seg, ap->n == 0, measure, &ack_count))
                eq_push(&q, now + D_ACK_NS, EV_ACK_AT_CORE, ev.a, ack_count);
            if (http.on && ev.a == 1 && http.loading && flows[1].rcv_next >= flows[1].app_limit) {
                http.loading = false;
                if (measure) {
                    http.pages++;
                    http.resp_sum_ms += (double)(now - http.page_start_ns) / 1e6;
                }
                eq_push(&q, now + (uint64_t)((100 + 400 * rng_uniform(&rng)) * MS), EV_PAGE_START, 1, 0);
            }
            break;
        }
        case EV_ACK_AT_CORE: {
            uint32_t len;
            const uint8_t *f = tcp_build_ack(&flows[ev.a], ev.b, &len);
            struct adw_pkt p = {.data = f, .len = len, .in_port = (uint16_t)(ev.a + 1)};
            enum adw_verdict v;
            adw_sched_enqueue_burst(s, &p, &v, 1, now);
            eq_push(&q, now + D_SERVER_NS, EV_ACK_AT_SERVER, ev.a, ev.b);
            break;
        }
        case EV_ACK_AT_SERVER: {
            struct tcp_bulk *t = &flows[ev.a];
            tcp_server_ack(t, ev.b);
            push_sendable(&q, t, ev.a, now + D_SERVER_NS);
            break;
        }
        case EV_PAGE_START: /* the request takes one server delay to arrive; the page then flows */
            http.loading = true;
            http.page_start_ns = now;
            flows[ev.a].app_limit = flows[ev.a].rcv_next + PAGE_SEGS;
            push_sendable(&q, &flows[ev.a], ev.a, now + 2 * D_SERVER_NS);
            break;
        }
        uint64_t nxt = adw_sched_next_event_ns(s, now);
        if (nxt < tick_at) {
            eq_push(&q, nxt, EV_CORE_TICK, 0, 0);
            tick_at = nxt;
        }
    }

    printf("ADWISER core simulation: 2AP-2STA lab (004 §4-6), %s, S1 = S2 = %u ms, "
           "a = %.1f pkt/ms, r_init = %u, %u s, seed %llu\n",
           http.on ? "bulk TCP at STA1 + HTTP at STA2 with dynamic slicing" : "downlink bulk TCP at both STAs",
           slice_ms, cfg->policies.ts_abr_qd.a_pkts_per_ms, cfg->policies.ts_abr_qd.r_init_pkts, seconds,
           (unsigned long long)seed);
    printf("AP model: exponential per-packet airtime, beta1 = %.2f pkt/ms (79.6 Mbit/s isolated), "
           "beta2 = %.2f pkt/ms (103.5 Mbit/s); ACK return %.2f ms; Reno-like server %.0f ms away\n\n",
           BETA[0], BETA[1], D_ACK_NS / 1e6, D_SERVER_NS / 1e6);
    printf("frame   r1(k)  V1(ms)  rel1  limit1 |  r2(k)  V2(ms)  rel2  limit2\n");
    for (unsigned k = 0; k < n_rows; k++) {
        if (!(k < 12 || k % 25 == 0 || k + 1 == n_rows))
            continue;
        const struct frame_row *w = &rows[k];
        printf("%5u  %6u  %6.2f  %4u  %6u | %6u  %6.2f  %4u  %6u\n", k, w->r[0], w->v_ms[0], w->rel[0], w->limit[0],
               w->r[1], w->v_ms[1], w->rel[1], w->limit[1]);
    }
    double window_s = (double)(end_ns - warm_ns) / 1e9, utility = 0, bound = 0;
    unsigned first = (unsigned)(warm_ns / F);
    printf("\nsteady state (after %.1f s):\n", warm_ns / 1e9);
    printf("(sd theory: sqrt(a sigma^2 beta^2 S / (2 - a/beta)), 004 §5, with exponential airtime: sigma^2 beta^2 = 1)\n");
    printf("pair       beta*S(pkts)  mean r  sd r  sd theory  mean V(ms)  S(ms)  tput(Mbit/s)  bound(Mbit/s)  ratio  "
           "outside own slice(%% air)\n");
    for (unsigned i = 0; i < 2; i++) {
        double sum = 0, sum2 = 0, vsum = 0;
        unsigned n = 0;
        for (unsigned k = first; k < n_rows; k++, n++) {
            sum += rows[k].r[i];
            sum2 += (double)rows[k].r[i] * rows[k].r[i];
            vsum += rows[k].v_ms[i];
        }
        double mean = n ? sum / n : 0, sd = n ? sqrt(fmax(0, sum2 / n - mean * mean)) : 0;
        double tput = flows[i].delivered_bytes * 8 / window_s / 1e6;
        double bnd = BETA[i] * 1000 * TCP_MSS * 8 * ((double)S / F) / 1e6;
        utility += log(tput);
        bound += log(bnd);
        double a = cfg->policies.ts_abr_qd.a_pkts_per_ms;
        double sd_theory = sqrt(a * slice_ms / (2 - a / BETA[i]));
        printf("ap%u/sta%u  %12.1f  %6.1f  %4.1f  %9.1f  %10.2f  %5u  %12.1f  %13.1f  %5.3f  %14.1f\n", i + 1, i + 1,
               BETA[i] * slice_ms, mean, sd, sd_theory, n ? vsum / n : 0, slice_ms, tput, bnd, tput / bnd,
               aps[i].air_ns ? 100.0 * aps[i].air_outside_ns / aps[i].air_ns : 0);
    }
    struct adw_stats st;
    adw_sched_stats_read(s, &st);
    if (http.on)
        printf("HTTP at STA2: %u pages, mean response %.0f ms (page %.2f Mbit, think 100-500 ms); STA1's airtime "
               "outside its own slice is the idle slices it was given\n",
               http.pages, http.pages ? http.resp_sum_ms / http.pages : 0.0, PAGE_SEGS * TCP_MSS * 8 / 1e6);
    else
        printf("utility sum ln(theta) = %.2f, bound sum ln(beta_i S_i / S) = %.2f\n", utility, bound);
    printf("core: frames %llu, batches %llu (under-filled %llu), drains completed %llu, capped %llu, "
           "superseded %llu, overrun %llu, drops %llu (resent by the server), slices reassigned %llu\n",
           (unsigned long long)st.frames, (unsigned long long)st.batches, (unsigned long long)st.batches_underfilled,
           (unsigned long long)st.drains_completed, (unsigned long long)st.drains_capped,
           (unsigned long long)st.drains_superseded,
           (unsigned long long)st.drains_overrun, (unsigned long long)(st.drops_tail + st.drops_pool),
           (unsigned long long)st.reassignments);
    adw_sched_free(s);
    eq_free(&q);
    free(cfg);
    return 0;
}
