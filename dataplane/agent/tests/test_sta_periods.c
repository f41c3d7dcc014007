/* Tests of adwiser-sta-agent's accounting (agent/sta_periods.c): reports per period and the run's totals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ampdu_train.h"
#include "sta_periods.h"

#define IDLE_CLOSE_NS (5000 * US)

static void rx_periods(void *p, uint64_t t)
{
    sta_periods_packet(p, t);
}

/* Feeds `frames` A-MPDUs of `size` packets from *t (ampdu_train.h). */
static void feed(struct sta_periods *p, uint64_t *t, unsigned frames, unsigned size)
{
    ampdu_train(t, frames, size, rx_periods, p);
}

/* What the agent wrote to tm:sta: the sums over its reports. */
struct written {
    unsigned entries;
    uint64_t frames, pkts;
};

static void write_if(struct written *w, bool any, const struct sta_report *r)
{
    if (!any)
        return;
    w->entries++;
    w->frames += r->frames;
    w->pkts += r->pkts;
}

static void test_exit_reports_the_open_ampdu_and_the_last_partial_period(void **state)
{
    (void)state;
    struct adw_ack_model m = gap_model(64);
    struct sta_periods p;
    sta_periods_init(&p, &m, IDLE_CLOSE_NS);
    struct written w = {0};
    struct sta_report r;
    uint64_t t = 0;
    /* A full period, ended while its last A-MPDU is still arriving; then the agent is stopped mid-period, right
     * after the last packet (SIGTERM, or --duration's end, during a transfer). */
    feed(&p, &t, 10, 12);
    write_if(&w, sta_periods_end(&p, t + 10 * US, &r), &r);
    feed(&p, &t, 5, 12);
    bool any = sta_periods_finish(&p, &r);
    write_if(&w, any, &r);
    assert_true(any);
    assert_int_equal(r.frames, 6);       /* the A-MPDU open at the period's end, then the 5 of the partial one */
    assert_true(r.mean > 11.999 && r.mean < 12.001);
    /* Every packet is in one A-MPDU, in the totals (--stats) as in the entries (tm:sta). */
    assert_int_equal(p.pkts, 15 * 12);
    assert_int_equal(p.frames, 15);
    assert_int_equal(w.entries, 2);
    assert_int_equal(w.pkts, p.pkts);
    assert_int_equal(w.frames, p.frames);
}

static void test_exit_after_everything_was_reported_writes_nothing_more(void **state)
{
    (void)state;
    struct adw_ack_model m = gap_model(64);
    struct sta_periods p;
    sta_periods_init(&p, &m, IDLE_CLOSE_NS);
    struct sta_report r;
    uint64_t t = 0;
    feed(&p, &t, 4, 7);
    /* the last A-MPDU closed by the idle time at the period's end */
    assert_true(sta_periods_end(&p, t + 6000 * US, &r));
    assert_int_equal(r.frames, 4);
    assert_false(sta_periods_finish(&p, &r));
    assert_int_equal(r.frames, 0);
    assert_int_equal(r.pkts, 0);
    assert_int_equal(p.frames, 4);
    assert_int_equal(p.pkts, 28);
}

static void test_exit_before_any_packet_writes_nothing(void **state)
{
    (void)state;
    struct adw_ack_model m = gap_model(64);
    struct sta_periods p;
    sta_periods_init(&p, &m, IDLE_CLOSE_NS);
    struct sta_report r;
    assert_false(sta_periods_finish(&p, &r));
    assert_int_equal(p.frames, 0);
    assert_int_equal(p.pkts, 0);
}

/* Sparse traffic: one A-MPDU a period, received in the period's last milliseconds, so it is still open at the
 * period's end (not idle for IDLE_CLOSE_NS yet) and closes in the next. The period that received its packets closed
 * no A-MPDU and writes no entry; its packets must reach the entry of the period that closes it, else tm:sta's
 * mpdus_ok (the controller's received_pps) misses them while --stats counts them. */
static void test_packets_of_a_period_that_closed_no_ampdu_reach_the_next_entry(void **state)
{
    (void)state;
    struct adw_ack_model m = gap_model(64);
    struct sta_periods p;
    sta_periods_init(&p, &m, IDLE_CLOSE_NS);
    struct written w = {0};
    struct sta_report r;
    const uint64_t period = 100000 * US;
    for (uint64_t k = 1; k <= 5; k++) {
        uint64_t t = k * period - 2000 * US;
        feed(&p, &t, 1, 6);
        write_if(&w, sta_periods_end(&p, k * period, &r), &r);
    }
    write_if(&w, sta_periods_finish(&p, &r), &r);
    assert_int_equal(p.pkts, 30);
    assert_int_equal(p.frames, 5);
    assert_int_equal(w.frames, p.frames);
    assert_int_equal(w.pkts, p.pkts);
}

/* The model's scale corrects the classifier's mean A-MPDU as the appliance's core corrects the ACK-burst mean
 * (adw_ack_model_estimate): tm:sta's mpdus is scale x packets per A-MPDU, its counts are what was received. */
/* The report of one period of n A-MPDUs of k packets each, classified by gap_model(64) with the given scale. */
static struct sta_report period_at_scale(double scale, unsigned n, unsigned k)
{
    struct adw_ack_model m = gap_model(64);
    m.scale = scale;
    struct sta_periods p;
    sta_periods_init(&p, &m, IDLE_CLOSE_NS);
    struct sta_report r;
    uint64_t t = 0;
    feed(&p, &t, n, k);
    assert_true(sta_periods_end(&p, t + IDLE_CLOSE_NS, &r));
    return r;
}

static void test_the_reported_mean_is_the_models_scale_times_the_packets_per_ampdu(void **state)
{
    (void)state;
    struct sta_report r = period_at_scale(0.5, 10, 12);
    assert_int_equal(r.frames, 10);
    assert_int_equal(r.pkts, 120);
    assert_true(r.mean > 5.999 && r.mean < 6.001);
}

/* Scaled up past n_max, the mean is capped at n_max, as the core caps its estimate. */
static void test_a_scaled_mean_is_capped_at_n_max(void **state)
{
    (void)state;
    struct sta_report r = period_at_scale(2.0, 4, 40);
    assert_true(r.mean > 63.999 && r.mean < 64.001);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_reports_the_open_ampdu_and_the_last_partial_period),
        cmocka_unit_test(test_exit_after_everything_was_reported_writes_nothing_more),
        cmocka_unit_test(test_exit_before_any_packet_writes_nothing),
        cmocka_unit_test(test_packets_of_a_period_that_closed_no_ampdu_reach_the_next_entry),
        cmocka_unit_test(test_the_reported_mean_is_the_models_scale_times_the_packets_per_ampdu),
        cmocka_unit_test(test_a_scaled_mean_is_capped_at_n_max),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
