/* Tests of the simulation's summary of the core's frame reports (sim/frame_stats.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "frame_stats.h"

#define MS 1000000ull

/* One frame's reports: pair 0 with batch r, drains that ended in it and their drain times (ms); pair 1 idle. */
static void add_frame(struct frame_stats *f, uint32_t r, unsigned drains, const double *v_ms)
{
    static uint64_t last_v_ns;
    struct adw_pair_report pr[2] = {{.r_pkts = r}, {.r_pkts = 0}};
    for (unsigned d = 0; d < drains; d++) {
        pr[0].v_sum_ns += (uint64_t)(v_ms[d] * MS);
        last_v_ns = (uint64_t)(v_ms[d] * MS);
    }
    pr[0].drains = drains;
    pr[0].v_ns = last_v_ns; /* the core's v_ns: the last drain that ended, repeated while none ends */
    frame_stats_add(f, pr);
}

static void test_mean_v_is_over_the_drains_not_the_frames(void **state)
{
    (void)state;
    struct frame_stats *f = malloc(sizeof(*f));
    assert_non_null(f);
    frame_stats_init(f, 0);
    add_frame(f, 100, 2, (const double[]){10, 20}); /* an overrun drain ended in the same frame as the next */
    add_frame(f, 100, 0, NULL);                     /* none ended: v_ns repeats 20 */
    add_frame(f, 100, 1, (const double[]){20});
    struct steady_pair sp;
    frame_stats_steady(f, 0, &sp);
    assert_true(sp.mean_v_ms > 16.66 && sp.mean_v_ms < 16.67); /* (10 + 20 + 20) / 3 drains */
    free(f);
}

static void test_steady_state_covers_every_frame_after_the_warm_up(void **state)
{
    (void)state;
    struct frame_stats *f = malloc(sizeof(*f));
    assert_non_null(f);
    /* 1 ms slices for 40 s: 20,000 frames, the steady state from frame 5,000 on. */
    frame_stats_init(f, 5000);
    for (unsigned k = 0; k < 20000; k++)
        add_frame(f, k < 5000 ? 3 : 7, 1, (const double[]){k < 5000 ? 0.5 : 1.0});
    struct steady_pair sp;
    frame_stats_steady(f, 0, &sp);
    assert_int_equal(sp.frames, 15000);
    assert_true(sp.mean_r > 6.999 && sp.mean_r < 7.001);
    assert_true(sp.mean_v_ms > 0.999 && sp.mean_v_ms < 1.001);
    free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mean_v_is_over_the_drains_not_the_frames),
        cmocka_unit_test(test_steady_state_covers_every_frame_after_the_warm_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
