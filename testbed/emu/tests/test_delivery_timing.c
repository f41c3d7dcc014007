/*
 * test_delivery_timing.c — quantiles of the delivery timing error histogram
 * (nearest rank; past its top bucket) and the frame store's ids.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "delivery_timing.h"
#include "frame_store.h"

static uint64_t quantile(const struct delivery_timing *t, double q)
{
    bool past_top;
    uint64_t v = delivery_timing_quantile(t, q, &past_top);
    assert_false(past_top);
    return v;
}

static void test_quantiles_of_known_samples(void **state)
{
    (void)state;
    struct delivery_timing *t = calloc(1, sizeof *t);
    assert_int_equal(quantile(t, 0.99), 0);
    for (uint64_t i = 1; i <= 100; i++)
        delivery_timing_add(t, i);
    assert_int_equal(quantile(t, 0.5), 50);
    assert_int_equal(quantile(t, 0.99), 99);
    assert_int_equal(quantile(t, 1.0), 100);
    delivery_timing_add(t, 10 * DT_MAX_US);
    assert_int_equal(t->max_us, 10 * DT_MAX_US);
    assert_int_equal(quantile(t, 1.0), 10 * DT_MAX_US); /* the largest is known exactly */
    free(t);
}

/* Errors 1..150 µs: the p99 is the ceil(0.99 * 150) = 149th smallest, as the dataplane's (not numpy's "lower" 148). */
static void test_p99_is_the_nearest_rank(void **state)
{
    (void)state;
    struct delivery_timing *t = calloc(1, sizeof *t);
    for (uint64_t i = 1; i <= 150; i++)
        delivery_timing_add(t, i);
    assert_int_equal(quantile(t, 0.99), 149);
    assert_int_equal(quantile(t, 0.5), 75);
    json_t *j = delivery_timing_json(t);
    assert_int_equal(json_integer_value(json_object_get(j, "p99")), 149);
    json_decref(j);
    free(t);
}

/* An error past the histogram's top is not reported as the top: exactly when it is the largest, else as ">=top". */
static void test_an_error_past_the_top_is_its_value_or_at_least_the_top(void **state)
{
    (void)state;
    struct delivery_timing *t = calloc(1, sizeof *t);
    delivery_timing_add(t, 50000); /* one frame 50 ms late: every quantile is that frame */
    json_t *j = delivery_timing_json(t);
    assert_int_equal(json_integer_value(json_object_get(j, "p50")), 50000);
    assert_int_equal(json_integer_value(json_object_get(j, "p99")), 50000);
    assert_int_equal(json_integer_value(json_object_get(j, "max")), 50000);
    json_decref(j);
    /* 98 frames 10 µs late, one 30 ms, one 50 ms: the p99 (99th) is in the top bucket but not the largest. */
    for (int i = 0; i < 98; i++)
        delivery_timing_add(t, 10);
    delivery_timing_add(t, 30000);
    bool past_top;
    assert_int_equal(delivery_timing_quantile(t, 0.99, &past_top), DT_MAX_US);
    assert_true(past_top);
    assert_int_equal(quantile(t, 1.0), 50000);
    j = delivery_timing_json(t);
    assert_string_equal(json_string_value(json_object_get(j, "p99")), ">=20000");
    assert_int_equal(json_integer_value(json_object_get(j, "p50")), 10);
    json_decref(j);
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
        cmocka_unit_test(test_an_error_past_the_top_is_its_value_or_at_least_the_top),
        cmocka_unit_test(test_frame_ids_stay_unique_when_slots_are_reused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
