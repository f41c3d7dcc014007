/*
 * test_tsabr.c — TS-ABR-QD (004 §5 eq. (1)) as a Robbins-Monro iteration and its production cases (SPEC §3.2).
 *
 * Model of the link: V(r) = r/beta + noise, Var(noise) = sigma^2 r (004 §5, "Effect of a"), seeded.
 * Theory: r -> beta S, stationary Var r = a sigma^2 beta^2 S / (2 - a/beta) for 0 < a < 2 beta.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tsabr.h"

static uint64_t rng_state;
static double uniform(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull; /* PCG-style LCG step */
    return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static double gauss(void)
{
    return sqrt(-2.0 * log(uniform())) * cos(6.283185307179586 * uniform());
}

static struct adw_tsabr_policy open_policy(double a)
{
    return (struct adw_tsabr_policy){.a_pkts_per_ms = a, .r_init_pkts = 40, .r_min_pkts = 1, .r_max_pkts = 65536,
                                     .v_cap_factor = 10, .rate_change_reset = 10};
}

struct run_stats {
    double mean, var;
};

/* Runs the iteration against the noisy link; statistics of r over the last `keep` of `iters` frames. */
static struct run_stats run_link(double a, double beta, double sigma2, double s_ms, unsigned iters, unsigned keep,
                                 uint64_t seed)
{
    struct adw_tsabr_policy p = open_policy(a);
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    rng_state = seed;
    double sum = 0, sum2 = 0;
    for (unsigned k = 0; k < iters; k++) {
        uint32_t released = adw_tsabr_batch(&t, &p);
        double v_ms = released / beta + sqrt(sigma2 * released) * gauss();
        if (v_ms < 0)
            v_ms = 0;
        adw_tsabr_update(&t, &p, (uint64_t)(s_ms * 1e6), (uint64_t)(v_ms * 1e6), released, false, false);
        if (k >= iters - keep) {
            sum += t.r;
            sum2 += t.r * t.r;
        }
    }
    double mean = sum / keep;
    return (struct run_stats){mean, sum2 / keep - mean * mean};
}

static void test_batch_converges_to_beta_times_slice(void **st)
{
    (void)st;
    const double a = 1, beta = 6.87, s = 20, sigma2 = 0.01;
    struct run_stats rs = run_link(a, beta, sigma2, s, 200000, 190000, 42);
    print_message("mean r %.2f pkts, beta S %.2f pkts (%.2f %%)\n", rs.mean, beta * s,
                  100 * (rs.mean - beta * s) / (beta * s));
    assert_true(fabs(rs.mean - beta * s) <= 0.03 * beta * s);
}

static void test_stationary_variance_matches_theory(void **st)
{
    (void)st;
    const double a = 1, beta = 6.87, s = 20, sigma2 = 0.01;
    double theory = a * sigma2 * beta * beta * s / (2 - a / beta);
    struct run_stats rs = run_link(a, beta, sigma2, s, 200000, 190000, 7);
    print_message("Var r %.3f pkts^2, theory %.3f (%.1f %%)\n", rs.var, theory, 100 * (rs.var - theory) / theory);
    assert_true(fabs(rs.var - theory) <= 0.2 * theory);
}

static void test_gain_at_or_above_twice_beta_does_not_converge(void **st)
{
    (void)st;
    const double beta = 6.87, s = 20, sigma2 = 0.01;
    struct run_stats stable = run_link(1, beta, sigma2, s, 20000, 10000, 3);
    struct run_stats unstable = run_link(2.0 * beta, beta, sigma2, s, 20000, 10000, 3);
    struct run_stats worse = run_link(2.2 * beta, beta, sigma2, s, 20000, 10000, 3);
    print_message("sd r: a=1 %.2f, a=2beta %.2f, a=2.2beta %.2f pkts\n", sqrt(stable.var), sqrt(unstable.var),
                  sqrt(worse.var));
    /* Stable: r sits within a few packets of beta S. Unstable: it swings over a large part of beta S. */
    assert_true(sqrt(stable.var) < 0.05 * beta * s);
    assert_true(sqrt(unstable.var) > 0.25 * beta * s);
    assert_true(sqrt(worse.var) > 0.25 * beta * s);
}

static void test_underfilled_batch_never_grows_r(void **st)
{
    (void)st;
    struct adw_tsabr_policy p = open_policy(1);
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    double r0 = t.r;
    /* 10 packets drained in 2 ms of a 20 ms slice: a full batch would have grown r by 18. */
    adw_tsabr_update(&t, &p, 20000000, 2000000, 10, true, false);
    assert_true(t.r <= r0);
    adw_tsabr_update(&t, &p, 20000000, 2000000, 10, false, false);
    assert_true(t.r > r0);
}

static void test_underfilled_batch_that_overran_still_shrinks_r(void **st)
{
    (void)st;
    struct adw_tsabr_policy p = open_policy(1);
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    adw_tsabr_update(&t, &p, 20000000, 30000000, 10, true, false);
    assert_true(fabs(t.r - (40 - 10)) < 1e-9);
}

static void test_batch_shrinks_when_drain_overruns_slice(void **st)
{
    (void)st;
    struct adw_tsabr_policy p = open_policy(1);
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    adw_tsabr_update(&t, &p, 20000000, 25000000, 40, false, false);
    assert_true(fabs(t.r - 35) < 1e-9);
}

static void test_capped_drain_limits_the_step(void **st)
{
    (void)st;
    struct adw_tsabr_policy p = open_policy(1);
    p.v_cap_factor = 3;
    p.r_init_pkts = 500;
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    /* A drain that never completed, closed after 1 s of a 20 ms slice, counts as 60 ms: r drops by 40, not 980. */
    adw_tsabr_update(&t, &p, 20000000, 1000000000, 500, false, true);
    assert_true(fabs(t.r - 460) < 1e-9);
}

static void test_r_stays_within_bounds(void **st)
{
    (void)st;
    struct adw_tsabr_policy p = open_policy(5);
    p.r_min_pkts = 4;
    p.r_max_pkts = 100;
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    for (int i = 0; i < 50; i++)
        adw_tsabr_update(&t, &p, 20000000, 0, 40, false, true); /* instant drains push r up */
    assert_int_equal(adw_tsabr_batch(&t, &p), 100);
    for (int i = 0; i < 50; i++)
        adw_tsabr_update(&t, &p, 20000000, 60000000, 40, false, true);
    assert_int_equal(adw_tsabr_batch(&t, &p), 4);
}

static void test_sharp_rate_change_resets_r(void **st)
{
    (void)st;
    struct adw_tsabr_policy p = open_policy(1);
    p.rate_change_reset = 0.5;
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    unsigned resets = 0;
    /* Steady 7 pkt/ms ... */
    for (int k = 0; k < 200; k++) {
        uint32_t n = adw_tsabr_batch(&t, &p);
        resets += adw_tsabr_update(&t, &p, 20000000, (uint64_t)(n / 7.0 * 1e6), n, false, false) == ADW_TSABR_RESET;
    }
    assert_int_equal(resets, 0);
    assert_true(fabs(t.r - 140) < 2);
    /* ... then the link drops to 2 pkt/ms (a STA moved away): after three such drains r restarts at r_init. */
    for (int k = 0; k < 3; k++) {
        uint32_t n = adw_tsabr_batch(&t, &p);
        resets += adw_tsabr_update(&t, &p, 20000000, (uint64_t)(n / 2.0 * 1e6), n, false, false) == ADW_TSABR_RESET;
    }
    assert_int_equal(resets, 1);
    assert_int_equal(adw_tsabr_batch(&t, &p), 40);
}

/* Rate up with r above r_init (or down with r below it): r_init is on the wrong side, no reset; eq. (1) moves r. */
static void test_a_rate_change_never_resets_r_away_from_the_new_rate(void **st)
{
    (void)st;
    struct adw_tsabr_policy p = open_policy(1);
    p.rate_change_reset = 0.5;
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    for (int k = 0; k < 200; k++) { /* 7 pkt/ms: r settles at 140, above r_init = 40 */
        uint32_t n = adw_tsabr_batch(&t, &p);
        adw_tsabr_update(&t, &p, 20000000, (uint64_t)(n / 7.0 * 1e6), n, false, false);
    }
    for (int k = 0; k < 3; k++) { /* the link doubles its rate */
        uint32_t n = adw_tsabr_batch(&t, &p);
        assert_int_equal(adw_tsabr_update(&t, &p, 20000000, (uint64_t)(n / 14.0 * 1e6), n, false, false),
                         ADW_TSABR_UPDATED);
    }
    assert_true(adw_tsabr_batch(&t, &p) > 140);
    p.r_init_pkts = 500; /* now r is below r_init and the link slows down to 2 pkt/ms */
    for (int k = 0; k < 20; k++) {
        uint32_t n = adw_tsabr_batch(&t, &p);
        assert_int_equal(adw_tsabr_update(&t, &p, 20000000, (uint64_t)(n / 2.0 * 1e6), n, false, false),
                         ADW_TSABR_UPDATED);
    }
    assert_true(adw_tsabr_batch(&t, &p) < 140);
}

static void test_no_reset_while_the_rate_average_warms_up(void **st)
{
    (void)st;
    struct adw_tsabr_policy p = open_policy(1);
    p.rate_change_reset = 0.5;
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    /* the first drains of a new pair move a lot (TCP still ramping up): no reset before the average settles */
    for (int k = 0; k < 6; k++) {
        uint32_t n = adw_tsabr_batch(&t, &p);
        double rate = k == 0 ? 7.0 : 2.0;
        assert_int_equal(adw_tsabr_update(&t, &p, 20000000, (uint64_t)(n / rate * 1e6), n, false, false),
                         ADW_TSABR_UPDATED);
    }
}

static void test_single_outlier_does_not_reset(void **st)
{
    (void)st;
    struct adw_tsabr_policy p = open_policy(1);
    p.rate_change_reset = 0.5;
    struct adw_tsabr t;
    adw_tsabr_init(&t, &p);
    for (int k = 0; k < 100; k++) {
        uint32_t n = adw_tsabr_batch(&t, &p);
        double rate = (k % 10 == 5) ? 2.0 : 7.0;
        assert_int_equal(adw_tsabr_update(&t, &p, 20000000, (uint64_t)(n / rate * 1e6), n, false, false),
                         ADW_TSABR_UPDATED);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_converges_to_beta_times_slice),
        cmocka_unit_test(test_stationary_variance_matches_theory),
        cmocka_unit_test(test_gain_at_or_above_twice_beta_does_not_converge),
        cmocka_unit_test(test_underfilled_batch_never_grows_r),
        cmocka_unit_test(test_underfilled_batch_that_overran_still_shrinks_r),
        cmocka_unit_test(test_batch_shrinks_when_drain_overruns_slice),
        cmocka_unit_test(test_capped_drain_limits_the_step),
        cmocka_unit_test(test_r_stays_within_bounds),
        cmocka_unit_test(test_sharp_rate_change_resets_r),
        cmocka_unit_test(test_a_rate_change_never_resets_r_away_from_the_new_rate),
        cmocka_unit_test(test_no_reset_while_the_rate_average_warms_up),
        cmocka_unit_test(test_single_outlier_does_not_reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
