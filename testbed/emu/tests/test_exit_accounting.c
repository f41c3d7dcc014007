/*
 * test_exit_accounting.c — every frame wlan-emu queued into the air is accounted for in the stats file when it
 * stops, also those the air still holds then (a SIGTERM or --duration end while traffic flows): per link,
 * frames_in = frames_out + tx_errors + dropped + in_air_at_exit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <jansson.h>

#include "emu_harness.h"

static json_int_t field(json_t *link, const char *key)
{
    json_t *v = json_object_get(link, key);
    if (!v)
        fail_msg("the link has no %s", key);
    return json_integer_value(v);
}

static void test_frames_still_in_the_air_at_exit_are_counted_per_link(void **state)
{
    (void)state;
    static struct harness h;
    assert_int_equal(harness_init(&h, "../../air/lab-2ap-2sta.json"), 0);
    /* 900 frames at once (about 90 ms of air at the lab's rates): wlan-emu stops right after reading them. */
    uint8_t f[1514];
    for (uint32_t i = 0; i < 900; i++) {
        harness_frame(f, sizeof f, harness_sta1_mac, harness_server_mac, i);
        assert_int_equal(send(h.peer[HARNESS_AP1], f, sizeof f, 0), (ssize_t)sizeof f);
    }
    while (harness_turn(&h) > 0)
        ;
    harness_turn(&h);
    char path[] = "/tmp/test_exit_accounting.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(emu_write_stats(&h.e, path, 0.01), 0);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    unlink(path);
    assert_non_null(root);
    json_t *links = json_object_get(root, "links"), *down = NULL;
    size_t i;
    json_t *l;
    json_array_foreach(links, i, l)
        if (strcmp(json_string_value(json_object_get(l, "src")), "ap1") == 0 &&
            strcmp(json_string_value(json_object_get(l, "dst")), "sta1") == 0)
            down = l;
    assert_non_null(down);
    assert_int_equal(field(down, "frames_in"), 900);
    assert_true(field(down, "in_air_at_exit") > 0);
    assert_int_equal(field(down, "frames_in"), field(down, "frames_out") + field(down, "tx_errors") +
                                                   field(down, "dropped") + field(down, "in_air_at_exit"));
    json_decref(root);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_frames_still_in_the_air_at_exit_are_counted_per_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
