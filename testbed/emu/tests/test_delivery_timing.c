/*
 * test_delivery_timing.c — quantiles of the delivery timing error histogram
 * (nearest rank) and the frame store's ids.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "delivery_timing.h"
#include "frame_store.h"

static void test_quantiles_of_known_samples(void **state)
{
    (void)state;
    struct delivery_timing *t = calloc(1, sizeof *t);
    assert_int_equal(delivery_timing_quantile(t, 0.99), 0);
    for (uint64_t i = 1; i <= 100; i++)
        delivery_timing_add(t, i);
    assert_int_equal(delivery_timing_quantile(t, 0.5), 50);
    assert_int_equal(delivery_timing_quantile(t, 0.99), 99);
    assert_int_equal(delivery_timing_quantile(t, 1.0), 100);
    delivery_timing_add(t, 10 * DT_MAX_US);
    assert_int_equal(t->max_us, 10 * DT_MAX_US);
    assert_int_equal(delivery_timing_quantile(t, 1.0), DT_MAX_US);
    free(t);
}

/* Errors 1..150 µs: the p99 is the ceil(0.99 * 150) = 149th smallest, as the dataplane's (not numpy's "lower" 148). */
static void test_p99_is_the_nearest_rank(void **state)
{
    (void)state;
    struct delivery_timing *t = calloc(1, sizeof *t);
    for (uint64_t i = 1; i <= 150; i++)
        delivery_timing_add(t, i);
    assert_int_equal(delivery_timing_quantile(t, 0.99), 149);
    assert_int_equal(delivery_timing_quantile(t, 0.5), 75);
    free(t);
}

static void test_frame_ids_stay_unique_when_slots_are_reused(void **state)
{
    (void)state;
    struct frame_store s;
    assert_int_equal(frame_store_init(&s), 0);
    uint8_t data[64] = {1, 2, 3};
    uint64_t a = frame_store_put(&s, data, sizeof data, 5);
    frame_store_release(&s, a);
    uint64_t b = frame_store_put(&s, data, sizeof data, 6);
    assert_true(a != b);
    assert_true(frame_seq(b) == frame_seq(a) + 1);
    assert_int_equal(frame_store_get(&s, b)->len, 64);
    assert_int_equal(frame_store_get(&s, b)->data[2], 3);
    /* Oversize frames and a full store are refused. */
    static uint8_t big[FRAME_SLOT_BYTES + 1];
    assert_true(frame_store_put(&s, big, sizeof big, 7) == UINT64_MAX);
    for (uint32_t i = 1; i < FRAME_SLOTS; i++)
        assert_true(frame_store_put(&s, data, 1, 8) != UINT64_MAX);
    assert_true(frame_store_put(&s, data, 1, 9) == UINT64_MAX);
    frame_store_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quantiles_of_known_samples),
        cmocka_unit_test(test_p99_is_the_nearest_rank),
        cmocka_unit_test(test_frame_ids_stay_unique_when_slots_are_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
