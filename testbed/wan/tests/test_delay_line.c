/* Unit tests of the WAN link model (delay_line.h): serialisation at the
 * bottleneck rate plus propagation delay, FIFO order, bounded backlog. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "delay_line.h"

static uint8_t frame[DELAY_LINE_FRAME_MAX + 1];

/* 1500 bytes at 200 Mbit/s serialise in 60 µs; with 75 ms delay it leaves at 75.06 ms. */
static void test_frame_due_after_serialisation_plus_delay(void **state)
{
    (void)state;
    struct delay_line dl;
    assert_int_equal(delay_line_init(&dl, 16, 200000000ull, 75000000ull, 0), 0);
    assert_int_equal(delay_line_push(&dl, 1000, frame, 1500), 0);
    assert_int_equal(delay_line_head(&dl)->due_ns, 1000 + 60000 + 75000000ull);
    delay_line_free(&dl);
}

/* Back-to-back frames queue behind each other at the bottleneck. */
static void test_back_to_back_frames_are_spaced_by_rate(void **state)
{
    (void)state;
    struct delay_line dl;
    assert_int_equal(delay_line_init(&dl, 16, 100000000ull, 0, 0), 0);
    assert_int_equal(delay_line_push(&dl, 0, frame, 1250), 0);  /* 100 µs */
    assert_int_equal(delay_line_push(&dl, 10, frame, 1250), 0);
    assert_int_equal(delay_line_head(&dl)->due_ns, 100000);
    delay_line_pop(&dl);
    assert_int_equal(delay_line_head(&dl)->due_ns, 200000);
    assert_int_equal(delay_line_backlog_bytes(&dl, 100000), 1250);
    delay_line_free(&dl);
}

/* A frame that would exceed the backlog limit is dropped and counted; later,
 * once the link has drained, frames are accepted again. */
static void test_backlog_over_limit_drops_at_tail(void **state)
{
    (void)state;
    struct delay_line dl;
    assert_int_equal(delay_line_init(&dl, 64, 8000000ull, 0, 3000), 0); /* 1 byte/µs */
    assert_int_equal(delay_line_push(&dl, 0, frame, 1500), 0);
    assert_int_equal(delay_line_push(&dl, 0, frame, 1500), 0);
    assert_int_equal(delay_line_push(&dl, 0, frame, 1500), -1);
    assert_int_equal(dl.ctr.drop_queue, 1);
    assert_int_equal(delay_line_push(&dl, 2000000, frame, 1500), 0);
    assert_int_equal(dl.ctr.accepted_frames, 3);
    delay_line_free(&dl);
}

static void test_unlimited_rate_adds_only_delay(void **state)
{
    (void)state;
    struct delay_line dl;
    assert_int_equal(delay_line_init(&dl, 4, 0, 5000, 100), 0);
    for (int i = 0; i < 4; i++)
        assert_int_equal(delay_line_push(&dl, 7, frame, 1500), 0);
    assert_int_equal(delay_line_head(&dl)->due_ns, 5007);
    assert_int_equal(delay_line_push(&dl, 7, frame, 60), -1);
    assert_int_equal(dl.ctr.drop_ring, 1);
    delay_line_free(&dl);
}

static void test_oversize_frame_dropped_and_counted(void **state)
{
    (void)state;
    struct delay_line dl;
    assert_int_equal(delay_line_init(&dl, 4, 0, 0, 0), 0);
    assert_int_equal(delay_line_push(&dl, 0, frame, DELAY_LINE_FRAME_MAX + 1), -1);
    assert_int_equal(dl.ctr.drop_oversize, 1);
    assert_null(delay_line_head(&dl));
    delay_line_free(&dl);
}

/* Frames leave in arrival order with their own contents. */
static void test_frames_leave_in_arrival_order(void **state)
{
    (void)state;
    struct delay_line dl;
    uint8_t a[60] = {1}, b[60] = {2};
    assert_int_equal(delay_line_init(&dl, 2, 0, 0, 0), 0);
    assert_int_equal(delay_line_push(&dl, 0, a, sizeof(a)), 0);
    assert_int_equal(delay_line_push(&dl, 0, b, sizeof(b)), 0);
    assert_int_equal(delay_line_head(&dl)->data[0], 1);
    delay_line_pop(&dl);
    assert_int_equal(delay_line_push(&dl, 0, a, sizeof(a)), 0); /* wraps around */
    assert_int_equal(delay_line_head(&dl)->data[0], 2);
    delay_line_pop(&dl);
    assert_int_equal(delay_line_head(&dl)->data[0], 1);
    delay_line_free(&dl);
}

/* Serialisation times that are not whole ns must not be rounded down frame by
 * frame: 60 bytes at 7 Gbit/s take 68.57 ns, and 1000 of them 68571 ns, not
 * 1000 x 68 (a link 0.8 % faster than asked). */
static void test_fractional_serialisation_time_accumulates(void **state)
{
    (void)state;
    struct delay_line dl;
    assert_int_equal(delay_line_init(&dl, 1000, 7000000000ull, 0, 0), 0);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(delay_line_push(&dl, 0, frame, 60), 0);
    assert_int_equal(dl.link_free_ns, 68571); /* 480000 bits / 7e9 bit/s = 68571.43 ns */
    delay_line_free(&dl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frame_due_after_serialisation_plus_delay),
        cmocka_unit_test(test_back_to_back_frames_are_spaced_by_rate),
        cmocka_unit_test(test_backlog_over_limit_drops_at_tail),
        cmocka_unit_test(test_unlimited_rate_adds_only_delay),
        cmocka_unit_test(test_oversize_frame_dropped_and_counted),
        cmocka_unit_test(test_frames_leave_in_arrival_order),
        cmocka_unit_test(test_fractional_serialisation_time_accumulates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
