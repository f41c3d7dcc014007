/* test_slice_clock.c — frames of slices; a new slice map only at a frame boundary (SPEC §3.1). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "lab_config.h"
#include "slice_clock.h"

#define MS 1000000ull

static void test_slices_start_in_order_and_frames_repeat(void **st)
{
    (void)st;
    struct adw_config *c = lab_config_2ap_2sta(20);
    struct adw_slice_clock k;
    adw_slice_clock_init(&k, c, 100 * MS);
    struct adw_slice_event ev;
    assert_int_equal(adw_slice_clock_step(&k, 99 * MS, &ev), 0);
    assert_int_equal(adw_slice_clock_step(&k, 100 * MS, &ev), 1);
    assert_true(ev.frame_boundary);
    assert_int_equal(ev.slice, 0);
    assert_int_equal(adw_slice_clock_step(&k, 100 * MS, &ev), 0);
    assert_int_equal(adw_slice_clock_next_ns(&k), 120 * MS);
    assert_int_equal(adw_slice_clock_step(&k, 125 * MS, &ev), 1);
    assert_false(ev.frame_boundary);
    assert_int_equal(ev.slice, 1);
    assert_int_equal(ev.start_ns, 120 * MS);
    assert_int_equal(adw_slice_clock_step(&k, 140 * MS, &ev), 1);
    assert_true(ev.frame_boundary);
    assert_int_equal(ev.frame, 1);
    assert_int_equal(ev.start_ns, 140 * MS);
    free(c);
}

static void test_new_map_shapes_only_the_frame_it_is_installed_at(void **st)
{
    (void)st;
    struct adw_config *c = lab_config_2ap_2sta(20), *c2 = lab_config_2ap_2sta(5);
    struct adw_slice_clock k;
    adw_slice_clock_init(&k, c, 0);
    struct adw_slice_event ev;
    adw_slice_clock_step(&k, 0, &ev);
    adw_slice_clock_step(&k, 20 * MS, &ev);
    assert_int_equal(adw_slice_clock_step(&k, 40 * MS, &ev), 1);
    assert_true(ev.frame_boundary);
    adw_slice_clock_set_map(&k, c2);
    assert_int_equal(adw_slice_clock_next_ns(&k), 45 * MS);
    assert_int_equal(adw_slice_clock_step(&k, 45 * MS, &ev), 1);
    assert_int_equal(adw_slice_clock_step(&k, 50 * MS, &ev), 1);
    assert_true(ev.frame_boundary);
    assert_int_equal(ev.frame, 2);
    free(c);
    free(c2);
}

static void test_late_caller_skips_whole_frames_and_stays_anchored(void **st)
{
    (void)st;
    struct adw_config *c = lab_config_2ap_2sta(20);
    struct adw_slice_clock k;
    adw_slice_clock_init(&k, c, 0);
    struct adw_slice_event ev;
    adw_slice_clock_step(&k, 0, &ev);
    unsigned events = 0;
    while (adw_slice_clock_step(&k, 405 * MS, &ev))
        events++;
    /* slice 1 of frame 0, then straight to frame 10 at 400 ms (frames 1..9 skipped) */
    assert_int_equal(events, 2);
    assert_int_equal(ev.frame, 10);
    assert_int_equal(ev.start_ns, 400 * MS);
    assert_int_equal(k.frames_skipped, 9);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slices_start_in_order_and_frames_repeat),
        cmocka_unit_test(test_new_map_shapes_only_the_frame_it_is_installed_at),
        cmocka_unit_test(test_late_caller_skips_whole_frames_and_stays_anchored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
