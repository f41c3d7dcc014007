/*
 * libFuzzer target: frame parsing and classification of the scheduling core,
 * reached the way the backends reach it, through adw_sched_enqueue_burst.
 * The core is built with the lab topology (2 APs, 2 STAs, 20 ms slices).
 * Input: byte 0 picks the ingress port (uplink, AP1, AP2) and how far the
 * clock moves (0-63 ms, so slices start and batches and drains close);
 * the rest is the frame.  Held frames are copies (the core keeps pointers to
 * them until release); every due frame is dequeued and freed, and
 * everything is flushed every 256 inputs, so the pool never fills.
 * Invariants checked: each verdict is one of the three, PASS frames get a
 * valid out_port, released frames are ones we handed in.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adwiser/sched.h"

#define N_PORTS 3u

static struct adw_sched *sched;
static uint64_t now_ns = 1000000000ull;
static unsigned inputs;

static void lab_config(struct adw_config *c)
{
    memset(c, 0, sizeof(*c));
    c->schema_version = ADW_SCHEMA_VERSION;
    snprintf(c->appliance_id, sizeof(c->appliance_id), "fuzz");
    c->n_aps = 2;
    c->n_stas = 2;
    for (unsigned i = 0; i < 2; i++) {
        snprintf(c->aps[i].id, sizeof(c->aps[i].id), "ap%u", i + 1);
        snprintf(c->aps[i].port, sizeof(c->aps[i].port), "ap%u", i + 1);
        c->aps[i].channel = 36;
        snprintf(c->stas[i].id, sizeof(c->stas[i].id), "sta%u", i + 1);
        const uint8_t mac[6] = {0x02, 0xad, 0x00, 0x00, (uint8_t)(i + 1), 0x01};
        memcpy(c->stas[i].mac, mac, 6);
        c->stas[i].n_addrs = 1;
        c->stas[i].addrs[0].family = 4;
        const uint8_t ip[4] = {198, 18, 0, (uint8_t)(11 + i)};
        memcpy(c->stas[i].addrs[0].addr, ip, 4);
        c->stas[i].ap = (uint16_t)i;
        c->slices[i].duration_ns = 20000000ull;
        c->slices[i].n_pairs = 1;
        c->slices[i].pairs[0] = (uint16_t)i;
    }
    c->n_slices = 2;
    c->n_conflicts = 1;
    c->conflicts[0].a = 0;
    c->conflicts[0].b = 1;
    adw_config_default_policies(&c->policies);
    c->policies.realtime.n_udp_ports = 1;
    c->policies.realtime.udp_ports[0] = 5004;
}

static void check_out_port(const struct adw_pkt *p)
{
    if (p->out_port != ADW_PORT_FLOOD && p->out_port != ADW_PORT_DROP && p->out_port >= N_PORTS)
        abort();
}

static void release(struct adw_pkt *out, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (!out[i].cookie || out[i].cookie != (const void *)out[i].data)
            abort();   /* the core handed back something we never gave it */
        check_out_port(&out[i]);
        free(out[i].cookie);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct adw_pkt out[64];
    if (!sched) {
        static struct adw_config cfg;
        char err[256];
        struct adw_sched_params p = {.pool_pkts = 4096};
        lab_config(&cfg);
        sched = adw_sched_create(&p, &cfg, now_ns, err, sizeof(err));
        if (!sched) {
            fprintf(stderr, "fuzz: adw_sched_create: %s\n", err);
            abort();
        }
    }
    if (size < 1)
        return 0;
    uint8_t *frame = malloc(size > 1 ? size - 1 : 1);
    if (!frame)
        return 0;
    memcpy(frame, data + 1, size - 1);
    struct adw_pkt pkt = {.data = frame, .len = (uint32_t)(size - 1), .in_port = (uint16_t)(data[0] % N_PORTS),
                          .cookie = frame};
    enum adw_verdict v = (enum adw_verdict)-1;
    adw_sched_enqueue_burst(sched, &pkt, &v, 1, now_ns);
    if (v == ADW_PASS) {
        check_out_port(&pkt);
        free(frame);
    } else if (v == ADW_DROP) {
        free(frame);
    } else if (v != ADW_QUEUED) {
        abort();
    }
    now_ns += (uint64_t)(data[0] >> 2) * 1000000ull;
    unsigned n;
    while ((n = adw_sched_dequeue_burst(sched, out, 64, now_ns)) > 0)
        release(out, n);
    struct adw_frame_report f;
    struct adw_pair_report pairs[2];
    while (adw_sched_poll_frame(sched, &f, pairs, 2) == 1)
        ;
    if (++inputs % 256 == 0)
        while ((n = adw_sched_flush(sched, out, 64)) > 0)
            release(out, n);
    return 0;
}
