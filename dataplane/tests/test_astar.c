/* test_astar.c — A* queue sizing (003 §IV-V): limit = min(Q_eBDP, q_ALT). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "adwiser/config.h"
#include "astar.h"

static struct adw_queue_sizing_policy policy(void)
{
    return (struct adw_queue_sizing_policy){.t_max_ns = 200000000ull, .c_pkts = 5, .q_max_pkts = 4096,
                                            .q_min_pkts = 32, .a1 = 0.1, .b1 = 0.1, .ewma_alpha = 0.1};
}

static void test_limit_follows_service_time_change(void **st)
{
    (void)st;
    struct adw_queue_sizing_policy p = policy();
    struct adw_astar a;
    adw_astar_init(&a, &p, 0);
    assert_int_equal(a.limit, 4096); /* nothing measured: no constraint */
    for (int i = 0; i < 200; i++)
        adw_astar_service_sample(&a, &p, 250000.0); /* 0.25 ms per packet: 200 ms / 0.25 ms + 5 = 805 */
    assert_in_range(a.limit, 800, 810);
    for (int i = 0; i < 200; i++)
        adw_astar_service_sample(&a, &p, 2500000.0); /* the link slows tenfold: 80 + 5 */
    assert_in_range(a.limit, 84, 86);
    for (int i = 0; i < 200; i++)
        adw_astar_service_sample(&a, &p, 100000.0); /* faster again: 2005 */
    assert_in_range(a.limit, 2000, 2010);
}

static void test_ebdp_average_moves_gradually(void **st)
{
    (void)st;
    struct adw_queue_sizing_policy p = policy();
    struct adw_astar a;
    adw_astar_init(&a, &p, 0);
    adw_astar_service_sample(&a, &p, 250000.0);
    uint32_t before = a.limit;
    adw_astar_service_sample(&a, &p, 2500000.0);
    /* one slow sample with W = 0.1 moves T_serv to 0.475 ms, not 2.5 ms */
    assert_true(a.limit < before && a.limit > 400);
}

static void test_alt_shrinks_when_busy_and_grows_when_idle(void **st)
{
    (void)st;
    struct adw_queue_sizing_policy p = policy();
    struct adw_astar a;
    adw_astar_init(&a, &p, 0);
    /* busy (queue above the batch threshold) for 10 s: q_ALT -= 0.1 pkt/ms * 10000 ms = 1000 */
    adw_astar_observe(&a, 0, 500, 100);
    adw_astar_interval(&a, &p, 10000000000ull);
    assert_int_equal(a.limit, 3096);
    /* idle for 5 s: +500 */
    adw_astar_observe(&a, 10000000000ull, 50, 100);
    adw_astar_interval(&a, &p, 15000000000ull);
    assert_int_equal(a.limit, 3596);
}

static void test_limit_is_the_smaller_and_clamped(void **st)
{
    (void)st;
    struct adw_queue_sizing_policy p = policy();
    struct adw_astar a;
    adw_astar_init(&a, &p, 0);
    adw_astar_service_sample(&a, &p, 250000.0); /* Q_eBDP 805 */
    adw_astar_observe(&a, 0, 500, 100);
    adw_astar_interval(&a, &p, 100000000000ull); /* busy 100 s: q_ALT -> clamp at q_min */
    assert_int_equal(a.limit, 32);
    adw_astar_observe(&a, 100000000000ull, 0, 100);
    adw_astar_interval(&a, &p, 110000000000ull); /* idle 10 s: q_ALT 1032 > Q_eBDP */
    assert_in_range(a.limit, 800, 810);
}

static void test_limit_never_falls_under_its_floor(void **st)
{
    (void)st;
    struct adw_queue_sizing_policy p = policy();
    struct adw_astar a;
    adw_astar_init(&a, &p, 0);
    adw_astar_set_floor(&a, &p, 202); /* two batches of 101 */
    for (int i = 0; i < 100; i++)
        adw_astar_service_sample(&a, &p, 4000000.0); /* a slow drain: 200 ms / 4 ms + 5 = 55 */
    assert_int_equal(a.limit, 202);
    adw_astar_set_floor(&a, &p, 40);
    assert_in_range(a.limit, 54, 56); /* above the floor the A* value rules */
    adw_astar_set_floor(&a, &p, 10000);
    assert_int_equal(a.limit, 4096); /* still clamped to q_max */
}

/* 003 §V-A: with a1 = 10, b1 = 1 per second, q_ALT stands still when the queue is above its threshold 10/11 of
 * the time; the default gains are these (per ms), not a 50 % balance that caps utilisation near one half. */
static void test_default_alt_gains_hold_the_limit_at_ten_elevenths_busy(void **st)
{
    (void)st;
    struct adw_policies pol;
    adw_config_default_policies(&pol);
    const struct adw_queue_sizing_policy *p = &pol.queue_sizing;
    assert_true(p->b1 / p->a1 <= 0.1 + 1e-12);
    struct adw_astar a;
    adw_astar_init(&a, p, 0);
    a.q_alt = 300;
    uint64_t t = 0;
    for (int frame = 0; frame < 1000; frame++) { /* 40 ms frames: idle 40/11 ms, then above the threshold */
        adw_astar_observe(&a, t, 0, 100);
        adw_astar_observe(&a, t + 3636364, 200, 100);
        t += 40000000;
        adw_astar_interval(&a, p, t);
    }
    assert_in_range((uint32_t)a.q_alt, 299, 301);
    for (int frame = 0; frame < 250; frame++) { /* always above the threshold: a standing queue */
        adw_astar_observe(&a, t, 200, 100);
        t += 40000000;
        adw_astar_interval(&a, p, t);
    }
    assert_in_range((uint32_t)a.q_alt, 289, 291); /* shrinks by b1 = 1 packet per busy second */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_follows_service_time_change),
        cmocka_unit_test(test_ebdp_average_moves_gradually),
        cmocka_unit_test(test_alt_shrinks_when_busy_and_grows_when_idle),
        cmocka_unit_test(test_limit_is_the_smaller_and_clamped),
        cmocka_unit_test(test_default_alt_gains_hold_the_limit_at_ten_elevenths_busy),
        cmocka_unit_test(test_limit_never_falls_under_its_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
