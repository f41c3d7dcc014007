/* Tests of adwiser-sta-agent's command line (agent/agent_options.c): names the controller could never read are
 * refused at start. */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "agent_options.h"

/* Parses the agent's command line with this --pair and --appliance (NULL: option left out). */
static int parse(const char *pair, const char *appliance)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = "adwiser-sta-agent";
    argv[argc++] = "--iface";
    argv[argc++] = "lo";
    argv[argc++] = "--model";
    argv[argc++] = "m.json";
    argv[argc++] = "--pair";
    argv[argc++] = (char *)pair;
    if (appliance) {
        argv[argc++] = "--redis";
        argv[argc++] = "127.0.0.1:6379";
        argv[argc++] = "--appliance";
        argv[argc++] = (char *)appliance;
    }
    argv[argc] = NULL;
    optind = 0; /* glibc: a fresh scan of a new argv */
    struct agent_options o;
    return agent_options_parse(argc, argv, &o);
}

static void test_pair_and_appliance_of_the_controllers_form_are_accepted(void **state)
{
    (void)state;
    assert_int_equal(parse("ap1/sta1", NULL), 0);
    assert_int_equal(parse("AP-2.x/sta_3", "lab"), 0);
}

/* The controller matches tm:sta's `pair` against its topology's "AP/STA" names exactly
 * (controller/adwiser_controller/models.py PAIR_PATTERN): any other string is a pair it has not, and the agent's
 * entries would be dropped there without a word. */
static void test_pair_not_of_two_names_is_refused(void **state)
{
    (void)state;
    static const char *const junk[] = {"/", "ap1/", "/sta1", "ap1/sta1/x", "ap1 /sta1", "ap1/sta1 ", "ap1/-sta1",
                                       "ap1/sta:1", ""};
    for (size_t k = 0; k < sizeof(junk) / sizeof(junk[0]); k++) {
        print_message("--pair \"%s\"\n", junk[k]);
        assert_int_equal(parse(junk[k], NULL), -1);
    }
}

/* The stream is adwiser:appliance:<id>:tm:sta; the controller reads it for the ids it knows
 * (models.py ID_PATTERN: a letter or digit, then letters, digits, '_', '.', '-', 64 in all). */
static void test_appliance_the_controller_cannot_have_is_refused(void **state)
{
    (void)state;
    char long_id[66];
    memset(long_id, 'a', 65);
    long_id[65] = '\0';
    static const char *const junk[] = {"", "lab ", "lab:1", "-lab", "la b"};
    for (size_t k = 0; k < sizeof(junk) / sizeof(junk[0]); k++) {
        print_message("--appliance \"%s\"\n", junk[k]);
        assert_int_equal(parse("ap1/sta1", junk[k]), -1);
    }
    assert_int_equal(parse("ap1/sta1", long_id), -1);
    long_id[64] = '\0';
    assert_int_equal(parse("ap1/sta1", long_id), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_and_appliance_of_the_controllers_form_are_accepted),
        cmocka_unit_test(test_pair_not_of_two_names_is_refused),
        cmocka_unit_test(test_appliance_the_controller_cannot_have_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
