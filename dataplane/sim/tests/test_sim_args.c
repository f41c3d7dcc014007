/* Tests of adwiser-sim's command line (sim/sim_args.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim_args.h"

static int parse(int argc, const char *const *argv, struct sim_args *a)
{
    return sim_args_parse(argc, (char **)argv, a);
}

static void test_defaults_and_a_full_command_line(void **state)
{
    (void)state;
    struct sim_args a;
    assert_int_equal(parse(1, (const char *[]){"sim", NULL}, &a), 0);
    assert_int_equal(a.slice_ms, 20);
    assert_int_equal(a.seconds, 10);
    assert_int_equal(a.seed, 1);
    assert_false(a.http);
    assert_int_equal(parse(5, (const char *[]){"sim", "100", "20", "18446744073709551615", "http", NULL}, &a), 0);
    assert_int_equal(a.slice_ms, 100);
    assert_int_equal(a.seconds, 20);
    assert_true(a.seed == UINT64_MAX);
    assert_true(a.http);
}

static void test_junk_in_a_number_is_refused(void **state)
{
    (void)state;
    struct sim_args a;
    assert_int_equal(parse(2, (const char *[]){"sim", "20x", NULL}, &a), -1);
    assert_int_equal(parse(3, (const char *[]){"sim", "20", "2.9", NULL}, &a), -1);
    assert_int_equal(parse(4, (const char *[]){"sim", "20", "2", "abc", NULL}, &a), -1);
    assert_int_equal(parse(4, (const char *[]){"sim", "20", "2", "-5", NULL}, &a), -1);
    assert_int_equal(parse(4, (const char *[]){"sim", "20", "2", "18446744073709551616", NULL}, &a), -1);
    assert_int_equal(parse(2, (const char *[]){"sim", "4294967316", NULL}, &a), -1); /* 20 mod 2^32 */
    assert_int_equal(parse(2, (const char *[]){"sim", "", NULL}, &a), -1);
}

static void test_out_of_range_and_extra_arguments_are_refused(void **state)
{
    (void)state;
    struct sim_args a;
    assert_int_equal(parse(2, (const char *[]){"sim", "0", NULL}, &a), -1);
    assert_int_equal(parse(2, (const char *[]){"sim", "501", NULL}, &a), -1);
    assert_int_equal(parse(3, (const char *[]){"sim", "20", "61", NULL}, &a), -1);
    assert_int_equal(parse(5, (const char *[]){"sim", "20", "2", "1", "voice", NULL}, &a), -1);
    assert_int_equal(parse(6, (const char *[]){"sim", "20", "2", "1", "bulk", "extra", NULL}, &a), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_a_full_command_line),
        cmocka_unit_test(test_junk_in_a_number_is_refused),
        cmocka_unit_test(test_out_of_range_and_extra_arguments_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
