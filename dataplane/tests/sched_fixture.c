/* sched_fixture.c — the 2AP-2STA lab scheduler fixture and TCP headers shared by the scheduler tests. */
#include "sched_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lab_config.h"
#include "parse.h"

static uint8_t bufs[SCHED_FIXTURE_BUFS][1600];
static unsigned next_buf;
struct adw_pkt sched_out[SCHED_OUT_CAP];

int sched_fixture_setup(void **state)
{
    struct sched_fixture *f = calloc(1, sizeof(*f));
    if (f == NULL)
        return -1;
    next_buf = 0;
    f->cfg = lab_config_2ap_2sta(20);
    char err[256];
    f->s = adw_sched_create(NULL, f->cfg, 0, err, sizeof(err));
    if (f->s == NULL) {
        fprintf(stderr, "create: %s\n", err);
        free(f->cfg);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

int sched_fixture_teardown(void **state)
{
    struct sched_fixture *f = *state;
    adw_sched_free(f->s);
    free(f->cfg);
    free(f);
    return 0;
}

void sched_fixture_recreate(struct sched_fixture *f, const struct adw_sched_params *prm)
{
    adw_sched_free(f->s);
    f->s = adw_sched_create(prm, f->cfg, 0, NULL, 0);
}

struct fb_tcp lab_down_tcp(unsigned sta, uint32_t seq, uint32_t payload)
{
    struct fb_tcp t = {.ip_version = 4, .sport = 80, .dport = 40000, .seq = seq, .ack = 1, .flags = ADW_TCP_ACK,
                       .payload_len = payload};
    memcpy(t.src_mac, LAB_SRV_MAC, 6);
    memcpy(t.dst_mac, LAB_STA_MAC[sta], 6);
    memcpy(t.src_ip, LAB_SRV_IP, 4);
    memcpy(t.dst_ip, LAB_STA_IP[sta], 4);
    return t;
}

struct fb_tcp lab_up_ack(unsigned sta, uint32_t ackno)
{
    struct fb_tcp t = {.ip_version = 4, .sport = 40000, .dport = 80, .seq = 1, .ack = ackno, .flags = ADW_TCP_ACK};
    memcpy(t.src_mac, LAB_STA_MAC[sta], 6);
    memcpy(t.dst_mac, LAB_SRV_MAC, 6);
    memcpy(t.src_ip, LAB_STA_IP[sta], 4);
    memcpy(t.dst_ip, LAB_SRV_IP, 4);
    return t;
}

uint8_t *lab_buf(void)
{
    return bufs[next_buf++ % SCHED_FIXTURE_BUFS];
}

struct adw_pkt lab_down_pkt(unsigned sta, uint32_t seq, uint32_t payload)
{
    struct fb_tcp t = lab_down_tcp(sta, seq, payload);
    uint8_t *b = lab_buf();
    return (struct adw_pkt){.data = b, .len = fb_tcp(b, 1600, &t), .in_port = 0, .cookie = b};
}

struct adw_pkt lab_up_ack_pkt(unsigned sta, uint32_t ackno)
{
    struct fb_tcp t = lab_up_ack(sta, ackno);
    uint8_t *b = lab_buf();
    return (struct adw_pkt){.data = b, .len = fb_tcp(b, 1600, &t), .in_port = (uint16_t)(sta + 1), .cookie = b};
}

struct adw_pkt lab_voice_pkt(unsigned sta)
{
    uint8_t *b = lab_buf();
    uint32_t n = fb_udp4(b, 1600, LAB_SRV_MAC, LAB_STA_MAC[sta], LAB_SRV_IP, LAB_STA_IP[sta], 46, 5004, 5004, 20);
    return (struct adw_pkt){.data = b, .len = n, .in_port = 0, .cookie = b};
}

enum adw_verdict sched_enqueue1(struct adw_sched *s, struct adw_pkt *p, uint64_t now)
{
    enum adw_verdict v;
    adw_sched_enqueue_burst(s, p, &v, 1, now);
    return v;
}

unsigned lab_enqueue_data(struct adw_sched *s, unsigned sta, uint32_t seq, unsigned n, uint64_t now)
{
    unsigned queued = 0;
    for (unsigned i = 0; i < n; i++) {
        struct adw_pkt p = lab_down_pkt(sta, seq + i * 1448, 1448);
        queued += sched_enqueue1(s, &p, now) == ADW_QUEUED;
    }
    return queued;
}

void lab_queue_segments(struct adw_sched *s, unsigned sta, uint32_t seq, unsigned n, uint64_t now)
{
    assert_int_equal(lab_enqueue_data(s, sta, seq, n, now), n);
}

void lab_sta_acks(struct adw_sched *s, unsigned sta, unsigned segments, uint64_t now)
{
    struct adw_pkt a = lab_up_ack_pkt(sta, 1 + segments * 1448);
    assert_int_equal(sched_enqueue1(s, &a, now), ADW_PASS);
}

uint64_t lab_one_per_ms_bps(void)
{
    struct adw_pkt p = lab_down_pkt(0, 1, 1448);
    return (uint64_t)(p.len - 14) * 8 * 1000;
}

unsigned sched_dequeue_all(struct adw_sched *s, uint64_t now)
{
    unsigned n = 0, k;
    while ((k = adw_sched_dequeue_burst(s, sched_out + n, SCHED_OUT_CAP - n < 64 ? SCHED_OUT_CAP - n : 64, now)) > 0)
        n += k;
    assert_true(n < SCHED_OUT_CAP); /* a full array may have left packets in the scheduler */
    return n;
}

void sched_assert_out_to(unsigned n, uint16_t port)
{
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(sched_out[i].out_port, port);
}

struct adw_stats sched_stats(struct adw_sched *s)
{
    struct adw_stats st;
    adw_sched_stats_read(s, &st);
    return st;
}

struct sched_frame sched_next_frame(struct adw_sched *s)
{
    struct sched_frame f;
    assert_int_equal(adw_sched_poll_frame(s, &f.fr, f.pr, 2), 1);
    return f;
}
