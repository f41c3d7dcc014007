/* test_big_alloc.c — the core's allocator for its large arrays (big_alloc.h): zeroed memory of the size asked, on
 * huge pages or not, and NULL rather than a short block when n * size overflows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "big_alloc.h"

static void assert_zero_and_writable(unsigned char *p, size_t bytes)
{
    assert_non_null(p);
    for (size_t i = 0; i < bytes; i += 4093)
        assert_int_equal(p[i], 0);
    assert_int_equal(p[bytes - 1], 0);
    memset(p, 0xa5, bytes); /* all of it is ours (ASan would say otherwise) */
}

static void test_large_arrays_are_zeroed_and_whole(void **st)
{
    (void)st;
    size_t n = 4096, size = 4400; /* the per-pair state's shape: 17.2 MB, not a multiple of 2 MB */
    unsigned char *p = adw_big_calloc(n, size);
    assert_zero_and_writable(p, n * size);
    adw_big_free(p);
}

static void test_small_arrays_are_zeroed_and_whole(void **st)
{
    (void)st;
    unsigned char *p = adw_big_calloc(3, 100);
    assert_zero_and_writable(p, 300);
    adw_big_free(p);
}

static void test_an_overflowing_size_is_refused(void **st)
{
    (void)st;
    assert_null(adw_big_calloc(SIZE_MAX / 4096 + 2, 4096)); /* the product wraps round to 4096 bytes */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_arrays_are_zeroed_and_whole),
        cmocka_unit_test(test_small_arrays_are_zeroed_and_whole),
        cmocka_unit_test(test_an_overflowing_size_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
