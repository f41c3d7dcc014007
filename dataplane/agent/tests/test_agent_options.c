/* Tests of adwiser-sta-agent's command line (agent/agent_options.c): names the controller could never read and
 * auth files the agent would misread are refused at start. */
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_options.h"
#include "redis_addr.h"

/* Parses the agent's command line with this --pair, --appliance (NULL: left out, and --redis with it) and
 * --redis-auth (NULL: left out); *o gets the result. */
static int parse_into(struct agent_options *o, const char *pair, const char *appliance, const char *auth)
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
    if (auth) {
        argv[argc++] = "--redis-auth";
        argv[argc++] = (char *)auth;
    }
    argv[argc] = NULL;
    optind = 0; /* glibc: a fresh scan of a new argv */
    return agent_options_parse(argc, argv, o);
}

static int parse(const char *pair, const char *appliance)
{
    struct agent_options o;
    return parse_into(&o, pair, appliance, NULL);
}

/* The agent's options with a --redis-auth file whose first line is `line`; the parser's result. */
static int parse_auth(struct agent_options *o, const char *line)
{
    char path[] = "/tmp/adw-agent-auth-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fprintf(f, "%s\n", line);
    fclose(f);
    int rc = parse_into(o, "ap1/sta1", "lab", path);
    unlink(path);
    return rc;
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

static void test_auth_line_is_read_as_user_and_password(void **state)
{
    (void)state;
    struct agent_options o;
    assert_int_equal(parse_auth(&o, "sta-agent s3cret"), 0);
    assert_string_equal(o.auth_user, "sta-agent");
    assert_string_equal(o.auth_pass, "s3cret");
}

/* ansible's redis role takes a sta-agent password with spaces ("spaces, quotes and backslashes are fine") and writes
 * it into redis.conf whole; the file was split at every space, so such a password was refused and the agent could
 * never log in with it. The password is the rest of the line after the user and one space. */
static void test_auth_password_with_spaces_is_read_whole(void **state)
{
    (void)state;
    struct agent_options o;
    assert_int_equal(parse_auth(&o, "sta-agent correct horse \"battery\" staple "), 0);
    assert_string_equal(o.auth_user, "sta-agent");
    assert_string_equal(o.auth_pass, "correct horse \"battery\" staple ");
    assert_int_equal(parse_auth(&o, "sta-agent s3cret\r"), 0);   /* a file written on Windows */
    assert_string_equal(o.auth_pass, "s3cret");
    assert_int_equal(parse_auth(&o, "sta-agent "), -1);
    assert_int_equal(parse_auth(&o, ""), -1);
}

/* A user or password longer than the fields hold was cut at the field's width, and the rest of a long user taken for
 * the password: a file holding only a long user name was accepted, with a password it does not hold. */
static void test_auth_user_or_password_too_long_is_refused_not_cut(void **state)
{
    (void)state;
    struct agent_options o;
    char user[200], line[600];
    memset(user, 'u', 130);
    user[130] = '\0';
    assert_int_equal(parse_auth(&o, user), -1);
    snprintf(line, sizeof line, "%s pw", user);
    assert_int_equal(parse_auth(&o, line), -1);
    char pass[300];
    memset(pass, 'p', 256);
    pass[256] = '\0';
    snprintf(line, sizeof line, "agent %s", pass);
    assert_int_equal(parse_auth(&o, line), -1);
    pass[255] = '\0'; /* the longest that fits */
    snprintf(line, sizeof line, "agent %s", pass);
    assert_int_equal(parse_auth(&o, line), 0);
    assert_int_equal(strlen(o.auth_pass), 255);
}

/* A word that is no option's value was dropped without a word, and the agent ran on what was left: `--duration 1 0`
 * (a stray space) ran for 1 s instead of 10. */
static void test_argument_that_is_no_option_is_refused(void **state)
{
    (void)state;
    char *argv[] = {"adwiser-sta-agent", "--iface", "lo", "--model", "m.json", "--pair", "ap1/sta1",
                    "--duration", "1", "0", NULL};
    struct agent_options o;
    optind = 0;
    assert_int_equal(agent_options_parse(10, argv, &o), -1);
}

/* --redis host:port took the port with atoi, which stops at the first non-digit: "host:6379x" and "host:6379.5"
 * were accepted and connected to 6379, a typo never said. */
static void test_redis_port_with_junk_is_refused(void **state)
{
    (void)state;
    static const char *const junk[] = {"127.0.0.1:6379x", "127.0.0.1:6379.5", "127.0.0.1: 6379", "127.0.0.1:+6379",
                                       "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:", ":6379"};
    for (size_t k = 0; k < sizeof(junk) / sizeof(junk[0]); k++) {
        char *argv[] = {"adwiser-sta-agent", "--iface", "lo", "--model", "m.json", "--pair", "ap1/sta1",
                        "--appliance", "lab", "--redis", (char *)junk[k], NULL};
        struct agent_options o;
        print_message("--redis \"%s\"\n", junk[k]);
        optind = 0;
        assert_int_equal(agent_options_parse(11, argv, &o), -1);
    }
    char *argv[] = {"adwiser-sta-agent", "--iface", "lo", "--model", "m.json", "--pair", "ap1/sta1",
                    "--appliance", "lab", "--redis", "redis.lab:65535", NULL};
    struct agent_options o;
    optind = 0;
    assert_int_equal(agent_options_parse(11, argv, &o), 0);
}

/* A host name is looked up once, at start: the agent then connects to the address, so a reconnect from its packet
 * loop never waits on DNS; a name that does not resolve is refused, named. */
static void test_redis_host_name_is_resolved_once_to_its_address(void **state)
{
    (void)state;
    char out[320], err[256];
    assert_int_equal(redis_addr_resolve("localhost:6380", out, sizeof(out), err, sizeof(err)), 0);
    assert_true(strcmp(out, "127.0.0.1:6380") == 0 || strcmp(out, "::1:6380") == 0);
    assert_int_equal(redis_addr_resolve("198.18.0.1:6379", out, sizeof(out), err, sizeof(err)), 0);
    assert_string_equal(out, "198.18.0.1:6379");
    assert_int_equal(redis_addr_resolve("unix:/run/redis.sock", out, sizeof(out), err, sizeof(err)), 0);
    assert_string_equal(out, "unix:/run/redis.sock");
    assert_int_equal(redis_addr_resolve("no-such-host.invalid:6379", out, sizeof(out), err, sizeof(err)), -1);
    assert_non_null(strstr(err, "host no-such-host.invalid"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pair_and_appliance_of_the_controllers_form_are_accepted),
        cmocka_unit_test(test_pair_not_of_two_names_is_refused),
        cmocka_unit_test(test_appliance_the_controller_cannot_have_is_refused),
        cmocka_unit_test(test_auth_line_is_read_as_user_and_password),
        cmocka_unit_test(test_auth_user_or_password_too_long_is_refused_not_cut),
        cmocka_unit_test(test_auth_password_with_spaces_is_read_whole),
        cmocka_unit_test(test_argument_that_is_no_option_is_refused),
        cmocka_unit_test(test_redis_port_with_junk_is_refused),
        cmocka_unit_test(test_redis_host_name_is_resolved_once_to_its_address),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
