/*
 * test_ground_truth_names.c — the ground-truth log is JSON lines whatever the air config names its nodes: a name
 * may hold any character JSON can carry, a quote or a backslash included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <jansson.h>

#include "emu_harness.h"

/* The lab's air config with AP1 named a"p\1 (JSON text "a\"p\\1"), in a temporary file; its path. */
static const char *lab_config_with_a_quoted_ap_name(void)
{
    static char path[] = "/tmp/test_gt_names_XXXXXX";
    json_error_t err;
    json_t *cfg = json_load_file("../../air/lab-2ap-2sta.json", 0, &err);
    assert_non_null(cfg);
    size_t i;
    json_t *node;
    json_array_foreach(json_object_get(json_object_get(json_object_get(cfg, "topology"), "nodes"), "value"), i, node) {
        const char *name = json_string_value(json_object_get(node, "name"));
        const char *ap = json_string_value(json_object_get(node, "ap"));
        if (strcmp(name, "ap1") == 0)
            json_object_set_new(node, "name", json_string("a\"p\\1"));
        if (ap != NULL && strcmp(ap, "ap1") == 0)
            json_object_set_new(node, "ap", json_string("a\"p\\1"));
    }
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(json_dump_file(cfg, path, 0), 0);
    json_decref(cfg);
    return path;
}

static void test_ground_truth_lines_parse_with_quoted_node_names(void **state)
{
    (void)state;
    static struct harness h;
    const char *path = lab_config_with_a_quoted_ap_name();
    assert_int_equal(harness_init(&h, path), 0);
    unlink(path);
    h.e.gt = tmpfile();
    assert_non_null(h.e.gt);
    uint8_t f[1514];
    for (uint32_t i = 0; i < 20; i++) {
        harness_frame(f, sizeof f, harness_sta1_mac, harness_server_mac, i);
        assert_int_equal(send(h.peer[HARNESS_AP1], f, sizeof f, 0), (ssize_t)sizeof f);
    }
    struct link_stats *down = link_of(&h.e, HARNESS_AP1, HARNESS_STA1);
    while (down->frames_out < 20)
        harness_turn(&h);
    emu_finish_exchanges(&h.e);
    rewind(h.e.gt);
    static char line[1 << 16];
    unsigned lines = 0;
    while (fgets(line, sizeof line, h.e.gt)) {
        json_error_t err;
        json_t *r = json_loads(line, 0, &err);
        if (r == NULL)
            fail_msg("ground-truth line %u is no JSON (%s): %s", lines + 1, err.text, line);
        const char *src = json_string_value(json_object_get(r, "src"));
        const char *dst = json_string_value(json_object_get(r, "dst"));
        assert_non_null(src);
        assert_non_null(dst);
        if (strcmp(src, "a\"p\\1") != 0 && strcmp(dst, "a\"p\\1") != 0)
            fail_msg("AP1 is neither end of %s", line);
        json_decref(r);
        lines++;
    }
    assert_true(lines > 0);
    fclose(h.e.gt);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ground_truth_lines_parse_with_quoted_node_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
