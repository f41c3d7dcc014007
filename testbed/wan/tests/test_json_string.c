/* Unit test of json_string.c: the escapes RFC 8259 §7 requires, the rest as it is. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "json_string.h"

static void assert_written(const char *s, const char *expected)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    json_put_string(f, s);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(buf, expected);
    free(buf);
}

static void test_quote_backslash_and_control_characters_are_escaped(void **state)
{
    (void)state;
    assert_written("q\"0", "\"q\\\"0\"");
    assert_written("b\\1", "\"b\\\\1\"");
    assert_written("c\x01\x1f", "\"c\\u0001\\u001f\"");
}

static void test_other_characters_are_written_as_they_are(void **state)
{
    (void)state;
    assert_written("wan0", "\"wan0\"");
    assert_written("", "\"\"");
    assert_written("\xc3\xa9-{}/'", "\"\xc3\xa9-{}/'\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote_backslash_and_control_characters_are_escaped),
        cmocka_unit_test(test_other_characters_are_written_as_they_are),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
