/* Unit tests of the departure-lateness histogram (lateness_hist.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lateness_hist.h"

static struct lateness_hist h;

/* Nearest rank: p99 of 100 frames is the 99th smallest, so a single late frame
 * among 100 is not their p99 (it was: rank floor(q*n) counted from 0 is one
 * rank too high whenever q*n is whole). */
static void test_quantile_is_nearest_rank(void **state)
{
    (void)state;
    h = (struct lateness_hist){0};
    for (int i = 0; i < 99; i++)
        lateness_hist_add(&h, 3000);
    lateness_hist_add(&h, 5000000);
    assert_int_equal(lateness_hist_quantile_us(&h, 0.99), 3);
    assert_int_equal(lateness_hist_quantile_us(&h, 1.0), 5000);
    lateness_hist_add(&h, 5000000);  /* 2 of 101: the 100th smallest is late */
    assert_int_equal(lateness_hist_quantile_us(&h, 0.99), 5000);
}

static void test_median_of_two_is_the_lower(void **state)
{
    (void)state;
    h = (struct lateness_hist){0};
    lateness_hist_add(&h, 1000);
    lateness_hist_add(&h, 9000);
    assert_int_equal(lateness_hist_quantile_us(&h, 0.5), 1);
    assert_int_equal(lateness_hist_quantile_us(&h, 0.0), 1);
}

/* Past the histogram's 20 ms: the largest frame is its own value, any other quantile there the last bin's lower
 * edge (at least that), not the bin for all of them. */
static void test_lateness_past_the_last_bin_is_the_max_or_at_least_the_bin(void **state)
{
    (void)state;
    h = (struct lateness_hist){0};
    for (int i = 0; i < 97; i++)
        lateness_hist_add(&h, 3000);
    lateness_hist_add(&h, 30000000);
    lateness_hist_add(&h, 40000000);
    lateness_hist_add(&h, 50000000);
    assert_int_equal(lateness_hist_quantile_us(&h, 0.99), LATENESS_HIST_BINS - 1);
    assert_int_equal(lateness_hist_quantile_us(&h, 1.0), 50000);
    assert_int_equal(lateness_hist_quantile_us(&h, 0.97), 3);
}

static void test_empty_histogram_reports_zero(void **state)
{
    (void)state;
    h = (struct lateness_hist){0};
    assert_int_equal(lateness_hist_quantile_us(&h, 0.99), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantile_is_nearest_rank),
        cmocka_unit_test(test_median_of_two_is_the_lower),
        cmocka_unit_test(test_lateness_past_the_last_bin_is_the_max_or_at_least_the_bin),
        cmocka_unit_test(test_empty_histogram_reports_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
