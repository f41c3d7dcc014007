/* Tests of the STA-side A-MPDU boundary estimator (agent/frame_boundary.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ampdu_train.h"
#include "frame_boundary.h"

static void rx_est(void *e, uint64_t t)
{
    adw_frame_est_observe(e, t);
}

/* Feeds `frames` A-MPDUs of `size` packets from *t (ampdu_train.h). */
static void feed(struct adw_frame_est *e, uint64_t *t, unsigned frames, unsigned size)
{
    ampdu_train(t, frames, size, rx_est, e);
}

/* What adw_frame_est_take returned. */
struct taken {
    double mean;
    uint32_t frames;
    uint64_t pkts;
};

static struct taken take_at(struct adw_frame_est *e, uint64_t now_ns)
{
    struct taken r;
    r.mean = adw_frame_est_take(e, now_ns, 5000 * US, &r.frames, &r.pkts);
    return r;
}

/* An estimator with the model it points to (so the two live as long as each other), and the time of the last
 * packet it was fed. */
struct fed_estimator {
    struct adw_ack_model m;
    struct adw_frame_est e;
    uint64_t t_end;
};

/* A fresh estimator on the gap model, fed `frames` A-MPDUs of `size` packets, taken `after_us` past the last. */
static struct taken fed_and_taken(struct fed_estimator *f, uint32_t n_max, unsigned frames, unsigned size,
                                  uint64_t after_us)
{
    f->m = gap_model(n_max);
    adw_frame_est_init(&f->e, &f->m);
    f->t_end = 0;
    feed(&f->e, &f->t_end, frames, size);
    return take_at(&f->e, f->t_end + after_us * US);
}

static void test_packets_close_together_share_an_ampdu_and_a_gap_starts_the_next(void **state)
{
    (void)state;
    struct fed_estimator f;
    /* Taken right after the last packet: the tenth A-MPDU is still open and counts in the next interval. */
    struct taken r = fed_and_taken(&f, 64, 10, 7, 10);
    assert_int_equal(r.frames, 9);
    assert_int_equal(r.pkts, 70);
    assert_true(r.mean > 6.999 && r.mean < 7.001);
}

static void test_open_ampdu_closes_when_nothing_came_for_the_idle_time(void **state)
{
    (void)state;
    struct fed_estimator f;
    struct taken r = fed_and_taken(&f, 64, 3, 4, 6000);
    assert_int_equal(r.frames, 3);
    assert_true(r.mean > 3.999 && r.mean < 4.001);
    /* The interval was reset: nothing in the next one. */
    r = take_at(&f.e, f.t_end + 7000 * US);
    assert_int_equal(r.frames, 0);
    assert_int_equal(r.pkts, 0);
    assert_true(r.mean < 0);
}

static void test_ampdu_longer_than_n_max_counts_n_max(void **state)
{
    (void)state;
    struct fed_estimator f;
    struct taken r = fed_and_taken(&f, 8, 2, 20, 6000);
    assert_int_equal(r.frames, 2);
    assert_int_equal(r.pkts, 40);
    assert_true(r.mean > 7.999 && r.mean < 8.001);
}

static void test_packets_join_the_first_ampdu_until_m_gaps_are_known(void **state)
{
    (void)state;
    /* m = 3, the decision on the newest gap alone: boundaries only from the fourth packet on. */
    struct adw_ack_model m = {.version = 1, .m = 3, .intercept = -20.0, .threshold = 0.5, .n_max = 64, .scale = 1};
    m.coef[2] = 0.1;
    struct adw_frame_est e;
    adw_frame_est_init(&e, &m);
    uint64_t t = 0;
    assert_true(adw_frame_est_observe(&e, t));            /* the very first packet opens an A-MPDU */
    assert_false(adw_frame_est_observe(&e, t += 600 * US)); /* 1 gap known */
    assert_false(adw_frame_est_observe(&e, t += 600 * US)); /* 2 gaps known */
    assert_true(adw_frame_est_observe(&e, t += 600 * US));  /* 3: classified */
    assert_false(adw_frame_est_observe(&e, t += 30 * US));
    assert_true(adw_frame_est_observe(&e, t += 600 * US));
    struct taken r = take_at(&e, t + 6000 * US);
    assert_int_equal(r.frames, 3); /* {1,2,3}, {4,5}, {6} */
    assert_true(r.mean > 1.999 && r.mean < 2.001);
}

static void test_clock_stepping_back_counts_as_no_gap(void **state)
{
    (void)state;
    struct adw_ack_model m = gap_model(64);
    struct adw_frame_est e;
    adw_frame_est_init(&e, &m);
    assert_true(adw_frame_est_observe(&e, 10000 * US));
    assert_false(adw_frame_est_observe(&e, 9000 * US));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packets_close_together_share_an_ampdu_and_a_gap_starts_the_next),
        cmocka_unit_test(test_open_ampdu_closes_when_nothing_came_for_the_idle_time),
        cmocka_unit_test(test_ampdu_longer_than_n_max_counts_n_max),
        cmocka_unit_test(test_packets_join_the_first_ampdu_until_m_gaps_are_known),
        cmocka_unit_test(test_clock_stepping_back_counts_as_no_gap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
