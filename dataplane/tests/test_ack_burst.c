/*
 * test_ack_burst.c — the appliance-side aggregation-level estimator (SPEC §3.7, 001 §4.1) and the loss signals of
 * 001 §5, through the public API on the 2AP-2STA lab: returning ACK bursts -> MPDUs per A-MPDU in the pair's
 * telemetry, duplicate ACKs and retransmissions counted, malformed models refused naming the field.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ack_burst.h"
#include "adwiser/sched.h"
#include "frame_builder.h"
#include "lab_config.h"
#include "parse.h"
#include "sched_fixture.h"

#define MS 1000000ull
#define US 1000ull

static uint8_t buf[1600];

static void send_pkt(struct adw_sched *s, struct fb_tcp *t, uint16_t in_port, uint64_t now)
{
    struct adw_pkt p = {.data = buf, .len = fb_tcp(buf, sizeof buf, t), .in_port = in_port, .cookie = buf};
    enum adw_verdict v;
    adw_sched_enqueue_burst(s, &p, &v, 1, now);
}

/* STA `sta`'s ACK number `ackno` arriving from the AP port `port`. */
static void ack_from(struct adw_sched *s, unsigned sta, uint16_t port, uint32_t ackno, uint32_t n_sack, uint64_t now)
{
    struct fb_tcp t = lab_up_ack(sta, ackno);
    t.n_sack = (uint8_t)n_sack;
    t.sack_left[0] = ackno + 1448;
    t.sack_right[0] = ackno + 2896;
    send_pkt(s, &t, port, now);
}

/* The STA1's ACK number `ackno` arriving from its AP. */
static void ack_from_sta1(struct adw_sched *s, uint32_t ackno, uint32_t n_sack, uint64_t now)
{
    ack_from(s, 0, 1, ackno, n_sack, now);
}

static void data_to_sta1(struct adw_sched *s, uint32_t seq, uint64_t now)
{
    struct fb_tcp t = lab_down_tcp(0, seq, 1448);
    send_pkt(s, &t, 0, now);
}

/* Threshold model: m = 1, boundary when the gap since the previous ACK exceeds 200 µs (the m = 1 baseline of
 * 001 §4.1). */
static struct adw_ack_model gap_model(void)
{
    struct adw_ack_model m = {.version = 1, .m = 1, .intercept = -200, .threshold = 0.5, .n_max = 64, .scale = 1};
    m.coef[0] = 1;
    m.coef[1] = 0;
    return m;
}

static struct adw_pair_report first_frame_sta1(struct adw_sched *s)
{
    struct adw_pkt out[64];
    while (adw_sched_dequeue_burst(s, out, 64, 40 * MS) == 64)
        ;
    return sched_next_frame(s).pr[0];
}

/* Bursts of `acks` delayed ACKs of STA `sta` (from AP port `port`), 20 µs apart, each acknowledging 2 segments;
 * bursts 2 ms apart. */
static void sta_ack_bursts(struct adw_sched *s, unsigned sta, uint16_t port, unsigned bursts, unsigned acks, uint64_t t0)
{
    uint32_t ackno = 1;
    ack_from(s, sta, port, ackno, 0, t0);
    for (unsigned b = 0; b < bursts; b++)
        for (unsigned a = 0; a < acks; a++) {
            ackno += 2 * 1448;
            ack_from(s, sta, port, ackno, 0, t0 + (b + 1) * 2 * MS + a * 20 * US);
        }
    ack_from(s, sta, port, ackno, 0, t0 + (bursts + 1) * 2 * MS); /* a later ACK closes the last burst */
}

static void ack_bursts(struct adw_sched *s, unsigned bursts, unsigned acks, uint64_t t0)
{
    sta_ack_bursts(s, 0, 1, bursts, acks, t0);
}

/* The two pairs' reports of the last frame that ended by `until` (frames before it are polled and dropped). */
static void last_frame(struct adw_sched *s, uint64_t until, struct adw_pair_report pr[2])
{
    struct adw_pkt out[64];
    while (adw_sched_dequeue_burst(s, out, 64, until) == 64)
        ;
    struct adw_frame_report fr;
    unsigned frames = 0;
    while (adw_sched_poll_frame(s, &fr, pr, 2) == 1)
        frames++;
    assert_true(frames > 0);
}

/* A model whose scale depends on the STAs receiving at the pair's AP: 0.5 with one, 1.0 with two or more. */
static struct adw_ack_model model_by_stas(void)
{
    struct adw_ack_model m = gap_model();
    m.n_scale_by_stas = 2;
    m.scale_by_stas[0] = 0.5;
    m.scale_by_stas[1] = 1.0;
    return m;
}

static void test_scale_is_looked_up_by_the_stas_receiving_at_the_pairs_ap(void **state)
{
    /* One STA alone at its AP: about two A-MPDUs per uplink burst, scale 0.5. Both lab STAs on AP1: scale 1.0.
     * STA2 at AP2 (the lab as it is) does not count for STA1. */
    struct sched_fixture *f = *state;
    struct adw_ack_model m = model_by_stas();
    struct adw_pair_report pr[2];
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, NULL, 0), 0);
    sta_ack_bursts(f->s, 0, 1, 10, 5, 1 * MS);
    sta_ack_bursts(f->s, 1, 2, 10, 5, 1 * MS);
    last_frame(f->s, 40 * MS, pr);
    assert_int_equal(pr[0].agg_stas, 1);
    assert_true(fabs(pr[0].agg_raw - 10.0) < 1e-9);
    assert_true(fabs(pr[0].agg_est - 5.0) < 1e-9);

    f->cfg->stas[1].ap = 0; /* STA2 moves to AP1 */
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, NULL, 0), 0);
    sta_ack_bursts(f->s, 0, 1, 10, 5, 1 * MS);
    sta_ack_bursts(f->s, 1, 1, 10, 5, 1 * MS);
    last_frame(f->s, 40 * MS, pr);
    for (unsigned q = 0; q < 2; q++) {
        assert_int_equal(pr[q].agg_stas, 2);
        assert_true(fabs(pr[q].agg_est - 10.0) < 1e-9);
    }
}

static void test_a_sta_whose_acks_stopped_acknowledging_data_is_no_longer_counted_at_its_ap(void **state)
{
    struct sched_fixture *f = *state;
    struct adw_ack_model m = model_by_stas();
    struct adw_pair_report pr[2];
    f->cfg->stas[1].ap = 0;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, NULL, 0), 0);
    sta_ack_bursts(f->s, 1, 1, 2, 5, 1 * MS); /* STA2's last ACK at 7 ms */
    last_frame(f->s, 40 * MS, pr);
    assert_int_equal(pr[1].agg_stas, 1);
    sta_ack_bursts(f->s, 0, 1, 10, 5, 162 * MS);
    uint32_t sta2_last_ack = 1 + 2 * 5 * 2 * 1448; /* sta_ack_bursts' last ACK number: 2 bursts of 5 x 2 segments */
    for (unsigned k = 0; k < 3; k++)
        ack_from(f->s, 1, 1, sta2_last_ack, 1, (170 + k) * MS); /* duplicates: nothing new received */
    last_frame(f->s, 200 * MS, pr); /* STA2 received nothing for over ADW_ACK_ACTIVE_NS */
    assert_true(pr[1].agg_raw < 0);
    assert_int_equal(pr[0].agg_stas, 1);
    assert_true(fabs(pr[0].agg_est - 5.0) < 1e-9);
}

/* STA `sta`'s ACKs for `ampdus` A-MPDUs 5 ms apart (a round of the AP's STAs), each A-MPDU's 10 segments
 * acknowledged in two uplink PPDUs 1 ms apart (a split): 5 delayed ACKs 20 µs apart in each. */
static void split_ack_bursts(struct adw_sched *s, unsigned sta, unsigned ampdus, uint64_t t0, uint32_t *ackno_io)
{
    uint32_t ackno = *ackno_io;
    ack_from(s, sta, 1, ackno, 0, t0);
    for (unsigned b = 0; b < ampdus; b++)
        for (unsigned half = 0; half < 2; half++)
            for (unsigned a = 0; a < 5; a++) {
                ackno += 2 * 1448;
                ack_from(s, sta, 1, ackno, 0, t0 + (b + 1) * 5 * MS + half * MS + a * 20 * US);
            }
    ack_from(s, sta, 1, ackno, 0, t0 + (ampdus + 1) * 5 * MS);
    *ackno_io = ackno;
}

static void test_split_acks_closer_than_the_sta_counts_gap_are_one_burst(void **state)
{
    /* Gap table [0, 2000 µs]: alone at its AP a STA's splits count as bursts of their own (the classifier's
     * 200 µs); with a second STA receiving, the 1 ms split is inside one A-MPDU's burst. */
    struct sched_fixture *f = *state;
    struct adw_ack_model m = gap_model();
    m.n_gap_by_stas = 2;
    m.gap_by_stas_us[0] = 0;
    m.gap_by_stas_us[1] = 2000;
    struct adw_pair_report pr[2];
    uint32_t ack1 = 1, ack2 = 1;
    f->cfg->stas[1].ap = 0;
    sched_fixture_recreate(f, NULL);
    assert_non_null(f->s);
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, NULL, 0), 0);
    split_ack_bursts(f->s, 0, 6, 1 * MS, &ack1);
    last_frame(f->s, 40 * MS, pr);
    assert_int_equal(pr[0].agg_stas, 1);
    assert_int_equal(pr[0].agg_bursts, 12);
    assert_true(fabs(pr[0].agg_raw - 10.0) < 1e-9);

    split_ack_bursts(f->s, 1, 6, 41 * MS, &ack2); /* STA2 receives too: two STAs from the next report on */
    last_frame(f->s, 80 * MS, pr);
    assert_int_equal(pr[0].agg_stas, 2);
    split_ack_bursts(f->s, 0, 6, 81 * MS, &ack1);
    last_frame(f->s, 120 * MS, pr);
    assert_int_equal(pr[0].agg_bursts, 6);
    assert_true(fabs(pr[0].agg_raw - 20.0) < 1e-9);
}

static void test_a_model_with_a_scale_per_sta_count_uses_its_last_entry_beyond_the_table(void **state)
{
    (void)state;
    struct adw_ack_model m = model_by_stas();
    m.n_max = 64;
    assert_true(fabs(adw_ack_model_estimate(&m, 20.0, 5) - 20.0) < 1e-12);
    assert_true(fabs(adw_ack_model_estimate(&m, 20.0, 0) - 10.0) < 1e-12); /* no count yet: the first entry */
    m.n_scale_by_stas = 0;
    m.scale = 0.25;
    assert_true(fabs(adw_ack_model_estimate(&m, 20.0, 2) - 5.0) < 1e-12); /* no table: `scale` for any count */
}

static void test_ack_bursts_give_mpdus_per_ampdu(void **state)
{
    struct sched_fixture *f = *state;
    struct adw_ack_model m = gap_model();
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, NULL, 0), 0);
    data_to_sta1(f->s, 1, 0); /* teaches the MSS (1448) */
    ack_bursts(f->s, 10, 5, 1 * MS);
    struct adw_pair_report r = first_frame_sta1(f->s);
    /* The first burst holds only the initial ACK (no advance, not counted); then 10 bursts of 10 segments. */
    assert_int_equal(r.agg_bursts, 10);
    assert_true(fabs(r.agg_est - 10.0) < 1e-9);
}

static void test_estimate_is_capped_at_n_max(void **state)
{
    struct sched_fixture *f = *state;
    struct adw_ack_model m = gap_model();
    m.n_max = 6;
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, NULL, 0), 0);
    ack_bursts(f->s, 4, 5, 1 * MS);
    struct adw_pair_report r = first_frame_sta1(f->s);
    assert_true(fabs(r.agg_est - 6.0) < 1e-9);
}

static void test_estimate_is_scaled_by_the_models_correction_and_acked_segments_are_not(void **state)
{
    /* The controller counts what the STA received from acked_segs (ap_queue_grew, busy_part_of_slot in its
     * loop): the scale corrects the size of an A-MPDU, not the number of segments acknowledged. */
    struct sched_fixture *f = *state;
    struct adw_ack_model m = gap_model();
    m.scale = 0.6;
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, NULL, 0), 0);
    data_to_sta1(f->s, 1, 0);
    ack_bursts(f->s, 10, 5, 1 * MS);
    struct adw_pair_report r = first_frame_sta1(f->s);
    assert_true(fabs(r.agg_est - 6.0) < 1e-9); /* 0.6 x 10 segments per burst */
    assert_true(fabs(r.acked_segs - 100.0) < 1e-9);
}

static void test_without_a_model_there_is_no_estimate(void **state)
{
    struct sched_fixture *f = *state;
    ack_bursts(f->s, 4, 5, 1 * MS);
    struct adw_pair_report r = first_frame_sta1(f->s);
    assert_true(r.agg_est < 0);
    assert_int_equal(r.agg_bursts, 0);
}

static void test_acked_segments_are_counted_without_a_model(void **state)
{
    struct sched_fixture *f = *state;
    data_to_sta1(f->s, 1, 0);
    ack_bursts(f->s, 4, 5, 1 * MS);
    assert_true(fabs(first_frame_sta1(f->s).acked_segs - 40.0) < 1e-9);
}

static void test_duplicate_acks_and_retransmissions_are_counted(void **state)
{
    struct sched_fixture *f = *state;
    for (unsigned i = 0; i < 10; i++)
        data_to_sta1(f->s, 1 + i * 1448, 1 * MS);
    data_to_sta1(f->s, 1 + 3 * 1448, 2 * MS); /* a retransmission */
    ack_from_sta1(f->s, 1 + 3 * 1448, 0, 3 * MS);
    ack_from_sta1(f->s, 1 + 3 * 1448, 1, 3 * MS + 10 * US); /* duplicate, with SACK */
    ack_from_sta1(f->s, 1 + 3 * 1448, 1, 3 * MS + 20 * US);
    struct adw_pair_report r = first_frame_sta1(f->s);
    assert_int_equal(r.dup_acks, 2);
    assert_int_equal(r.retx_pkts, 1);
    assert_true(fabs(r.loss_frac - 1.0 / 11.0) < 1e-9);
}

static void test_model_probability_is_the_logistic_of_times_and_their_sd(void **state)
{
    (void)state;
    struct adw_ack_model m = {.version = 1, .m = 3, .intercept = -1.0, .threshold = 0.5, .n_max = 64};
    m.coef[0] = 0.01;
    m.coef[1] = -0.02;
    m.coef[2] = 0.03;
    m.coef[3] = 0.5; /* sigma */
    double x[3] = {10, 20, 60};
    double sd = sqrt(((20.0 * 20) + (10.0 * 10) + (30.0 * 30)) / 3); /* about the mean 30 */
    double z = -1.0 + 0.01 * 10 - 0.02 * 20 + 0.03 * 60 + 0.5 * sd;
    assert_true(fabs(adw_ack_model_prob(&m, x) - 1.0 / (1.0 + exp(-z))) < 1e-12);
}

static void test_invalid_model_is_refused_naming_the_field(void **state)
{
    struct sched_fixture *f = *state;
    char err[128];
    struct adw_ack_model m = gap_model();
    m.m = 0;
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "m:"));
    m = gap_model();
    m.threshold = 1.5;
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "threshold"));
    m = gap_model();
    m.scale = 0;
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "scale"));
    m = gap_model();
    m.n_gap_by_stas = 1;
    m.gap_by_stas_us[0] = -5;
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "gap_by_stas_us[0]"));
    m = model_by_stas();
    m.scale_by_stas[1] = -1;
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "scale_by_stas[1]"));
    m = gap_model();
    m.coef[1] = NAN;
    assert_int_equal(adw_sched_set_ack_model(f->s, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "coef[1]"));
    /* nothing was applied: still no estimate */
    ack_bursts(f->s, 4, 5, 1 * MS);
    assert_true(first_frame_sta1(f->s).agg_est < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        LAB_TEST(test_ack_bursts_give_mpdus_per_ampdu),
        LAB_TEST(test_estimate_is_capped_at_n_max),
        LAB_TEST(test_estimate_is_scaled_by_the_models_correction_and_acked_segments_are_not),
        LAB_TEST(test_scale_is_looked_up_by_the_stas_receiving_at_the_pairs_ap),
        LAB_TEST(test_a_sta_whose_acks_stopped_acknowledging_data_is_no_longer_counted_at_its_ap),
        LAB_TEST(test_split_acks_closer_than_the_sta_counts_gap_are_one_burst),
        LAB_TEST(test_a_model_with_a_scale_per_sta_count_uses_its_last_entry_beyond_the_table),
        LAB_TEST(test_without_a_model_there_is_no_estimate),
        LAB_TEST(test_acked_segments_are_counted_without_a_model),
        LAB_TEST(test_duplicate_acks_and_retransmissions_are_counted),
        LAB_TEST(test_model_probability_is_the_logistic_of_times_and_their_sd),
        LAB_TEST(test_invalid_model_is_refused_naming_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
