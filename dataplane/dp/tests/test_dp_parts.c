/*
 * The pure parts of adwiser-dp's loop, without DPDK: the command line (with
 * --check-config, which must be recognised before the EAL would start), the
 * idle back-off (never sleeps past a slice start, backs off while idle,
 * wakes to full speed on traffic), the NFQUEUE loop's poll timeout and
 * input port, the slice-start lateness histogram and the VLAN demultiplexing of a trunk's
 * frames to APs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "dp_options.h"
#include "idle_backoff.h"
#include "nfq_fail_open.h"
#include "nfq_port.h"
#include "nfq_read.h"
#include "nfq_wait.h"
#include "slice_lateness.h"
#include "tsc_clock.h"
#include "tx_stall.h"
#include "vlan_demux.h"

static int parse(struct dp_options *o, char *err, const char **args, int n)
{
    char *argv[32];
    argv[0] = (char *)"adwiser-dp";
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    return dp_options_parse(o, n + 1, argv, err, 256);
}

static void test_options_bind_aps_and_defaults(void **state)
{
    (void)state;
    static struct dp_options o;
    char err[256];
    const char *a[] = {"--config", "x.json", "--uplink", "up0", "--ap", "ap1=net_af_packet1", "--ap", "ap2=ap2",
                       "--telemetry", "t.jsonl", "--redis", "unix:/tmp/r.sock"};
    assert_int_equal(parse(&o, err, a, 12), 0);
    assert_int_equal(o.backend, DP_BACKEND_DPDK);
    assert_int_equal(o.n_aps, 2);
    assert_string_equal(o.aps[0].ap_id, "ap1");
    assert_string_equal(o.aps[0].port, "net_af_packet1");
    assert_string_equal(o.aps[1].port, "ap2");
    assert_int_equal(o.burst, 32);
    assert_int_equal(o.total_num_mbufs, 16384);
    assert_int_equal(o.tx_backlog, 4096);
    assert_string_equal(o.redis_addr, "unix:/tmp/r.sock");
    const char *b[] = {"--config", "x.json", "--uplink", "up0", "--port", "trunk0=net_null1"};
    assert_int_equal(parse(&o, err, b, 6), 0);
    assert_int_equal(o.n_aliases, 1);
    assert_string_equal(o.aliases[0].name, "trunk0");
    assert_string_equal(o.aliases[0].port, "net_null1");
}

static void test_options_refuse_with_the_option_named(void **state)
{
    (void)state;
    static struct dp_options o;
    char err[256];
    const char *no_config[] = {"--uplink", "up0"};
    assert_int_equal(parse(&o, err, no_config, 2), -1);
    assert_non_null(strstr(err, "--config"));
    const char *bad_ap[] = {"--config", "x", "--uplink", "u", "--ap", "ap1"};
    assert_int_equal(parse(&o, err, bad_ap, 6), -1);
    assert_non_null(strstr(err, "--ap: 'ap1' is not AP_ID=PORT"));
    const char *bad_backend[] = {"--config", "x", "--uplink", "u", "--backend", "xdp"};
    assert_int_equal(parse(&o, err, bad_backend, 6), -1);
    assert_non_null(strstr(err, "--backend"));
    const char *bad_burst[] = {"--config", "x", "--uplink", "u", "--burst", "0"};
    assert_int_equal(parse(&o, err, bad_burst, 6), -1);
    assert_non_null(strstr(err, "--burst"));
    const char *bad_backlog[] = {"--config", "x", "--uplink", "u", "--tx-backlog", "0"};
    assert_int_equal(parse(&o, err, bad_backlog, 6), -1);
    assert_non_null(strstr(err, "--tx-backlog: '0' is not 1..16777216"));
    const char *bad_rt[] = {"--config", "x", "--uplink", "u", "--rt-priority", "100"};
    assert_int_equal(parse(&o, err, bad_rt, 6), -1);
    assert_non_null(strstr(err, "--rt-priority"));
    const char *bad_port[] = {"--config", "x", "--uplink", "u", "--port", "=net_null1"};
    assert_int_equal(parse(&o, err, bad_port, 6), -1);
    assert_non_null(strstr(err, "--port: '=net_null1' is not NAME=PORT"));
    const char *unknown[] = {"--config", "x", "--uplink", "u", "--colour", "blue"};
    assert_int_equal(parse(&o, err, unknown, 6), -1);
    assert_non_null(strstr(err, "--colour"));
}

/*
 * A second binding of one AP (--ap) or one configuration port (--port) is refused, naming both: taking the last
 * silently left the other unused, and an error about the binding in force named the first one instead
 * (`--ap ap1=eth1: AP 'ap1' gets the uplink's port` for `--ap ap1=eth1 --ap ap1=eth0`).
 */
static void test_options_refuse_an_ap_or_port_bound_twice(void **state)
{
    (void)state;
    static struct dp_options o;
    char err[256];
    const char *ap_twice[] = {"--config", "x", "--uplink", "eth0", "--ap", "ap1=eth1", "--ap", "ap1=eth0"};
    assert_int_equal(parse(&o, err, ap_twice, 8), -1);
    assert_non_null(strstr(err, "--ap ap1=eth0: AP 'ap1' is already bound by --ap ap1=eth1"));
    const char *port_twice[] = {"--config", "x", "--uplink", "eth0", "--port", "trunk0=eth1", "--port", "trunk0=eth2"};
    assert_int_equal(parse(&o, err, port_twice, 8), -1);
    assert_non_null(strstr(err, "--port trunk0=eth2: port 'trunk0' is already bound by --port trunk0=eth1"));
    const char *distinct[] = {"--config", "x", "--uplink", "eth0", "--ap", "ap1=eth1", "--ap", "ap10=eth2",
                              "--port", "trunk0=eth3", "--port", "trunk1=eth4"};
    assert_int_equal(parse(&o, err, distinct, 12), 0);
    assert_int_equal(o.n_aps, 2);
    assert_int_equal(o.n_aliases, 2);
}

static void test_nfqueue_backend_is_found_before_the_eal_starts(void **state)
{
    (void)state;
    char *a[] = {(char *)"adwiser-dp", (char *)"--config", (char *)"x", (char *)"--backend", (char *)"nfqueue"};
    assert_true(dp_options_wants_nfqueue(5, a));
    char *b[] = {(char *)"adwiser-dp", (char *)"--no-huge", (char *)"--", (char *)"--backend=dpdk"};
    assert_false(dp_options_wants_nfqueue(4, b));
}

static void test_check_config_needs_no_uplink_and_keeps_the_files_to_check(void **state)
{
    (void)state;
    static struct dp_options o;
    char err[256];
    const char *a[] = {"--check-config", "x.json", "--ack-model", "m.json", "--pacing", "p.json"};
    assert_int_equal(parse(&o, err, a, 6), 0);
    assert_true(o.check_only);
    assert_string_equal(o.config_path, "x.json");
    assert_string_equal(o.ack_model_path, "m.json");
    assert_string_equal(o.pacing_path, "p.json");
    const char *eq[] = {"--check-config=y.json"};
    assert_int_equal(parse(&o, err, eq, 1), 0);
    assert_true(o.check_only);
    assert_string_equal(o.config_path, "y.json");
    const char *start[] = {"--config", "x.json", "--uplink", "up0"};
    assert_int_equal(parse(&o, err, start, 4), 0);
    assert_false(o.check_only);
}

static void test_check_config_refuses_a_second_document_and_a_missing_file(void **state)
{
    (void)state;
    static struct dp_options o;
    char err[256];
    const char *both[] = {"--check-config", "x.json", "--config", "y.json"};
    assert_int_equal(parse(&o, err, both, 4), -1);
    assert_non_null(strstr(err, "--check-config and --config"));
    const char *both_rev[] = {"--config", "y.json", "--check-config", "x.json", "--uplink", "u"};
    assert_int_equal(parse(&o, err, both_rev, 6), -1);
    assert_non_null(strstr(err, "--check-config and --config"));
    const char *no_file[] = {"--check-config"};
    assert_int_equal(parse(&o, err, no_file, 1), -1);
    assert_non_null(strstr(err, "--check-config"));
}

/*
 * Two documents of one option are refused too: only the last was read, so `--check-config a.json --check-config
 * b.json` printed "b.json: ok" and exited 0 with a.json never looked at, and a start ran a document other than
 * the one the command line named first.
 */
static void test_options_refuse_a_second_document_of_one_option(void **state)
{
    (void)state;
    static struct dp_options o;
    char err[256];
    const char *two_checks[] = {"--check-config", "a.json", "--check-config", "b.json"};
    assert_int_equal(parse(&o, err, two_checks, 4), -1);
    assert_non_null(strstr(err, "--check-config b.json: --check-config a.json is already given; give one document"));
    const char *two_configs[] = {"--config", "a.json", "--uplink", "u", "--config=b.json"};
    assert_int_equal(parse(&o, err, two_configs, 5), -1);
    assert_non_null(strstr(err, "--config b.json: --config a.json is already given; give one document"));
}

/*
 * A second --backend is refused: main() decides from the first `--backend nfqueue` whether the EAL starts
 * (dp_options_wants_nfqueue), so `--backend nfqueue --backend dpdk` left the DPDK backend to run without an EAL
 * ("uplink: no DPDK port named 'up0' ... 0 ports present").
 */
static void test_options_refuse_a_second_backend(void **state)
{
    (void)state;
    static struct dp_options o;
    char err[256];
    const char *two[] = {"--backend", "nfqueue", "--config", "x", "--uplink", "u", "--backend", "dpdk"};
    assert_int_equal(parse(&o, err, two, 8), -1);
    assert_non_null(strstr(err, "--backend dpdk: --backend is already given (nfqueue); give one backend"));
    const char *same[] = {"--backend", "nfqueue", "--config", "x", "--uplink", "u", "--backend=nfqueue"};
    assert_int_equal(parse(&o, err, same, 7), -1);
    const char *one[] = {"--backend", "nfqueue", "--config", "x", "--uplink", "u"};
    assert_int_equal(parse(&o, err, one, 6), 0);
    assert_int_equal(o.backend, DP_BACKEND_NFQUEUE);
}

/* An option the chosen backend never reads is refused, naming it, instead of being ignored without a word. */
static void test_options_refuse_an_option_the_backend_does_not_read(void **state)
{
    (void)state;
    static struct dp_options o;
    char err[256];
    const char *queue[] = {"--config", "x", "--uplink", "u", "--queue-num", "3"};
    assert_int_equal(parse(&o, err, queue, 6), -1);
    assert_string_equal(err, "--queue-num: an option of the NFQUEUE backend, which --backend nfqueue selects");
    const char *dpdk[][2] = {{"--burst", "64"}, {"--total-num-mbufs", "8192"}, {"--tx-backlog", "100"},
                             {"--busy-poll", NULL}};
    for (unsigned i = 0; i < 4; i++) {
        const char *a[] = {"--backend", "nfqueue", "--config", "x", "--uplink", "u", dpdk[i][0], dpdk[i][1]};
        assert_int_equal(parse(&o, err, a, dpdk[i][1] ? 8 : 7), -1);
        assert_non_null(strstr(err, "an option of the DPDK backend, not read by --backend nfqueue"));
        assert_non_null(strstr(err, dpdk[i][0]));
    }
    const char *nfq[] = {"--backend", "nfqueue", "--config", "x", "--uplink", "u", "--queue-num", "3"};
    assert_int_equal(parse(&o, err, nfq, 8), 0);
    const char *d[] = {"--config", "x", "--uplink", "u", "--burst", "64", "--busy-poll"};
    assert_int_equal(parse(&o, err, d, 7), 0);
}

/*
 * The parser (getopt_long) takes an unambiguous abbreviation of a long option, `--check x.json` for
 * --check-config; the scan main() runs before the EAL must find it too, or the EAL is started on a check (and
 * fails on the option it does not know, printing its own usage) or not started for the DPDK backend.
 */
static void test_an_abbreviated_check_config_or_backend_is_found_before_the_eal_starts(void **state)
{
    (void)state;
    static struct dp_options o;
    char err[256];
    const char *check[] = {"--check", "x.json"};
    assert_int_equal(parse(&o, err, check, 2), 0);
    assert_true(o.check_only);
    char *a[] = {(char *)"adwiser-dp", (char *)"--check", (char *)"x.json"};
    assert_true(dp_options_wants_check(3, a));
    char *b[] = {(char *)"adwiser-dp", (char *)"--check-c=x.json"};
    assert_true(dp_options_wants_check(2, b));
    char *c[] = {(char *)"adwiser-dp", (char *)"--back", (char *)"nfqueue", (char *)"--config", (char *)"x"};
    assert_true(dp_options_wants_nfqueue(5, c));
    char *d[] = {(char *)"adwiser-dp", (char *)"--backe=nfqueue"};
    assert_true(dp_options_wants_nfqueue(2, d));
    /* Not --check-config: ambiguous (--config, --check-config), or another option. */
    char *e[] = {(char *)"adwiser-dp", (char *)"--c", (char *)"x.json", (char *)"--conf", (char *)"y.json"};
    assert_false(dp_options_wants_check(5, e));
    char *f[] = {(char *)"adwiser-dp", (char *)"--b", (char *)"nfqueue"};
    assert_false(dp_options_wants_nfqueue(3, f));
}

static void test_check_config_is_found_before_the_eal_starts(void **state)
{
    (void)state;
    char *a[] = {(char *)"adwiser-dp", (char *)"--check-config", (char *)"x.json"};
    assert_true(dp_options_wants_check(3, a));
    char *b[] = {(char *)"adwiser-dp", (char *)"--check-config=x.json"};
    assert_true(dp_options_wants_check(2, b));
    char *c[] = {(char *)"adwiser-dp", (char *)"-l", (char *)"0", (char *)"--", (char *)"--config", (char *)"x.json",
                 (char *)"--uplink", (char *)"up0"};
    assert_false(dp_options_wants_check(8, c));
}

static void test_backoff_never_sleeps_past_the_next_slice_start(void **state)
{
    (void)state;
    struct idle_backoff b;
    idle_backoff_init(&b);
    uint64_t now = 1000000000ull, next = now + 5000000ull;   /* slice start in 5 ms */
    uint64_t slept = 0;
    for (int i = 0; i < 100000 && now < next; i++) {
        uint64_t s = idle_backoff_step(&b, 0, now, next);
        assert_true(s <= b.max_sleep_ns);
        if (s) {
            assert_true(now + s + b.spin_margin_ns <= next);
            slept += s;
            now += s;
        } else {
            now += 100;   /* a poll */
        }
    }
    assert_true(slept > 4000000ull);   /* most of the idle 5 ms asleep */
}

/* Frames waiting for a TX ring that still takes them keep the sleeps short: the idle back-off's longest step (200 µs)
 * would leave a ring a NIC empties in 69 µs (1024 small frames at 10 Gbit/s) idle most of the time. */
static void test_backoff_sleeps_briefly_while_frames_wait_for_a_tx_ring(void **state)
{
    (void)state;
    struct idle_backoff b;
    idle_backoff_init(&b);
    assert_int_equal(b.tx_wait_sleep_ns, 10000);
    assert_int_equal(idle_backoff_tx_waiting(&b, b.max_sleep_ns), 10000);
    assert_int_equal(idle_backoff_tx_waiting(&b, 3000), 3000);   /* the next slice start comes first */
    assert_int_equal(idle_backoff_tx_waiting(&b, 0), 0);
}

static void test_backoff_grows_while_idle_and_resets_on_traffic(void **state)
{
    (void)state;
    struct idle_backoff b;
    idle_backoff_init(&b);
    uint64_t now = 0, next = UINT64_MAX / 2, s = 0;
    for (unsigned i = 0; i < b.polls_before_sleep - 1; i++)
        assert_int_equal(idle_backoff_step(&b, 0, now, next), 0);   /* a few idle polls before any sleep */
    s = idle_backoff_step(&b, 0, now, next);
    assert_int_equal(s, b.min_sleep_ns);
    uint64_t prev = s;
    for (int i = 0; i < 20; i++) {
        s = idle_backoff_step(&b, 0, now, next);
        assert_true(s >= prev && s <= b.max_sleep_ns);
        prev = s;
    }
    assert_int_equal(s, b.max_sleep_ns);
    assert_int_equal(idle_backoff_step(&b, 5, now, next), 0);          /* traffic: poll at full speed */
    for (unsigned i = 0; i < b.polls_before_sleep - 1; i++)
        idle_backoff_step(&b, 0, now, next);
    assert_int_equal(idle_backoff_step(&b, 0, now, next), b.min_sleep_ns);
}

static void test_lateness_quantiles_from_the_histogram(void **state)
{
    (void)state;
    static struct slice_lateness h;
    memset(&h, 0, sizeof(h));
    assert_true(slice_lateness_quantile_us(&h, 0.5) == 0.0);
    for (int i = 0; i < 98; i++)
        slice_lateness_record(&h, 3200);        /* 3.2 µs */
    slice_lateness_record(&h, 250000);          /* 250 µs */
    slice_lateness_record(&h, 50000000);        /* 50 ms: overflow bin */
    assert_true(slice_lateness_quantile_us(&h, 0.5) == 3.5);
    assert_true(slice_lateness_quantile_us(&h, 0.985) == 250.5);
    assert_true(slice_lateness_quantile_us(&h, 0.999) == 50000.0);   /* the largest: known exactly */
    assert_int_equal(h.max_ns, 50000000);
    assert_int_equal(h.count, 100);
}

/* Events past the histogram's 10 ms are not all reported as 10 ms: the largest is its own value, the others in the
 * overflow bin the bin's lower edge (at least 10 ms), and the stats count them. */
static void test_lateness_past_10ms_is_the_max_or_at_least_10ms(void **state)
{
    (void)state;
    static struct slice_lateness h;
    memset(&h, 0, sizeof(h));
    for (int i = 0; i < 97; i++)
        slice_lateness_record(&h, 3200);        /* 3.2 µs */
    slice_lateness_record(&h, 20000000);        /* 20 ms */
    slice_lateness_record(&h, 30000000);        /* 30 ms */
    slice_lateness_record(&h, 50000000);        /* 50 ms */
    assert_true(slice_lateness_quantile_us(&h, 0.99) == 10000.0);
    assert_true(slice_lateness_quantile_us(&h, 1.0) == 50000.0);
    assert_true(slice_lateness_quantile_us(&h, 0.97) == 3.5);
    assert_int_equal(slice_lateness_overflow_events(&h), 3);
}

/* p99 of 100 events is the 99th smallest (nearest rank): 99 % of them are at most that; the largest is the p100. */
static void test_lateness_p99_of_100_events_is_the_99th_not_the_largest(void **state)
{
    (void)state;
    static struct slice_lateness h;
    memset(&h, 0, sizeof(h));
    for (int i = 0; i < 98; i++)
        slice_lateness_record(&h, 3200);        /* 3.2 µs */
    slice_lateness_record(&h, 250000);          /* 250 µs */
    slice_lateness_record(&h, 50000000);        /* 50 ms */
    assert_true(slice_lateness_quantile_us(&h, 0.99) == 250.5);
    assert_true(slice_lateness_quantile_us(&h, 0.98) == 3.5);
    assert_true(slice_lateness_quantile_us(&h, 1.0) == 50000.0);
    assert_true(slice_lateness_quantile_us(&h, 0.0) == 3.5);
    memset(&h, 0, sizeof(h));
    for (int i = 0; i < 50; i++)
        slice_lateness_record(&h, 1000);
    for (int i = 0; i < 50; i++)
        slice_lateness_record(&h, 9000);
    assert_true(slice_lateness_quantile_us(&h, 0.5) == 1.5); /* the 50th of 100, not the 51st */
}

/* The TSC ticks at 2.596138 GHz while the CPU's nominal rate says 2.6 GHz: time follows the reference clock. */
static void test_tsc_clock_follows_the_reference_clock_not_the_nominal_rate(void **state)
{
    (void)state;
    struct tsc_clock c;
    const uint64_t hz = 2596138200u, t0 = 123456789u, n0 = 5000000000u;
    assert_int_equal(tsc_clock_calibrate(&c, t0, n0, t0 + hz / 10, n0 + 100000000u), 0); /* 100 ms apart */
    uint64_t ten_s = tsc_clock_ns(&c, t0 + 10 * hz);
    assert_in_range(ten_s, 10000000000u - 1000u, 10000000000u + 1000u); /* within 1 us in 10 s */
    assert_int_equal(tsc_clock_ns(&c, t0), 0);
    assert_int_equal(tsc_clock_calibrate(&c, t0, n0, t0, n0 + 1), -1); /* no ticks between: refused */
}

/*
 * The uplink on DPDK port 0; AP1 untagged and AP2, AP3 on VLANs 20, 30 share
 * port 1 (a trunk with an untagged AP); AP4, AP5 on VLANs 40, 50 share
 * port 2 (a trunk without one); AP6 alone on port 3.
 */
static void campus_ports(struct dpdk_port_map *m)
{
    static const uint16_t dev_of[] = {0, 1, 1, 1, 2, 2, 3};
    static const uint16_t vlan[] = {0, 0, 20, 30, 40, 50, 0};
    memset(m, 0, sizeof(*m));
    m->n = 7;
    m->n_dev = 4;
    for (uint16_t q = 0; q < m->n; q++) {
        m->dev_of[q] = dev_of[q];
        m->vlan[q] = vlan[q];
    }
}

static int campus_demux_setup(void **state)
{
    static struct dpdk_port_map m;
    static struct vlan_demux t;
    campus_ports(&m);
    if (vlan_demux_init(&t, &m) != 0)
        return -1;
    *state = &t;
    return 0;
}

static int campus_demux_teardown(void **state)
{
    vlan_demux_free(*state);
    return 0;
}

static void test_frame_tagged_with_an_aps_vlan_is_that_aps(void **state)
{
    const struct vlan_demux *t = *state;
    uint16_t role;
    assert_int_equal(vlan_demux_role(t, 1, 30, &role), VLAN_DEMUX_TAGGED_AP);
    assert_int_equal(role, 3);
    assert_int_equal(vlan_demux_role(t, 2, 50, &role), VLAN_DEMUX_TAGGED_AP);
    assert_int_equal(role, 5);
    /* The priority and CFI bits of the TCI are not part of the VLAN id. */
    assert_int_equal(vlan_demux_role(t, 1, 0xa000 | 20, &role), VLAN_DEMUX_TAGGED_AP);
    assert_int_equal(role, 2);
}

static void test_untagged_frame_is_the_untagged_role_of_its_port(void **state)
{
    const struct vlan_demux *t = *state;
    uint16_t role;
    assert_int_equal(vlan_demux_is_trunk(t, 0), 0);
    assert_int_equal(vlan_demux_role(t, 0, 0, &role), VLAN_DEMUX_PORT_ROLE);
    assert_int_equal(role, 0);
    assert_int_equal(vlan_demux_role(t, 1, 0, &role), VLAN_DEMUX_PORT_ROLE);
    assert_int_equal(role, 1);
    assert_int_equal(vlan_demux_role(t, 3, 0, &role), VLAN_DEMUX_PORT_ROLE);
    assert_int_equal(role, 6);
}

/* Fixed in f0952b0: on a trunk with an untagged AP, such a frame was taken as that AP's without a count. */
static void test_vlan_of_no_ap_is_unknown_also_where_an_untagged_ap_is(void **state)
{
    const struct vlan_demux *t = *state;
    uint16_t role;
    assert_int_equal(vlan_demux_role(t, 1, 99, &role), VLAN_DEMUX_UNKNOWN);
    assert_int_equal(role, 1);  /* handed over as the untagged AP's: the core passes it uplink */
    /* A VLAN of an AP on another trunk is no AP of this one. */
    assert_int_equal(vlan_demux_role(t, 1, 40, &role), VLAN_DEMUX_UNKNOWN);
    assert_int_equal(role, 1);
}

static void test_untagged_frame_on_a_trunk_without_an_untagged_ap_is_unknown(void **state)
{
    const struct vlan_demux *t = *state;
    uint16_t role;
    assert_int_equal(vlan_demux_role(t, 2, 0, &role), VLAN_DEMUX_UNKNOWN);
    assert_int_equal(role, 4);  /* the port's first AP */
    assert_int_equal(vlan_demux_role(t, 2, 20, &role), VLAN_DEMUX_UNKNOWN);
    assert_int_equal(role, 4);
}

/* A ppoll timeout wakes after the time asked, never before: asked up to the slice start, every release is late. */
static void test_nfqueue_poll_wakes_before_the_slice_start(void **state)
{
    (void)state;
    const uint64_t now = 5000000000ull;
    assert_int_equal(nfq_poll_timeout_ns(now, now + 1000000), 1000000 - NFQ_SPIN_MARGIN_NS);
    /* Within the margin: poll without blocking until the slice start. */
    assert_int_equal(nfq_poll_timeout_ns(now, now + NFQ_SPIN_MARGIN_NS), 0);
    assert_int_equal(nfq_poll_timeout_ns(now, now + 1), 0);
    assert_int_equal(nfq_poll_timeout_ns(now, now), 0);
    assert_int_equal(nfq_poll_timeout_ns(now, now - 1), 0);
    /* Nothing due: housekeeping still runs. */
    assert_int_equal(nfq_poll_timeout_ns(now, UINT64_MAX), NFQ_HOUSEKEEPING_NS);
    assert_int_equal(nfq_poll_timeout_ns(now, now + 2 * (uint64_t)NFQ_HOUSEKEEPING_NS), NFQ_HOUSEKEEPING_NS);
}

/* On a bridge the kernel's input interface is the bridge: the port is the bridge port the packet came in on. */
static void test_nfqueue_bridged_packet_is_its_bridge_ports(void **state)
{
    (void)state;
    const int ifindex[] = {7, 9, 11};   /* uplink, ap1, ap2 */
    const uint32_t bridge = 20;
    assert_int_equal(nfq_port_of(ifindex, 3, bridge, 9), 1);
    assert_int_equal(nfq_port_of(ifindex, 3, bridge, 7), 0);
    /* Routed: no physical input interface. */
    assert_int_equal(nfq_port_of(ifindex, 3, 11, 0), 2);
    /* Neither ours: not scheduled. */
    assert_int_equal(nfq_port_of(ifindex, 3, bridge, 30), -1);
    assert_int_equal(nfq_port_of(ifindex, 3, 30, 0), -1);
}

/* The fail-open queue gives an id to a packet our full socket could not take, then accepts it itself. */
static void test_nfqueue_ids_skipped_are_packets_the_kernel_accepted_itself(void **state)
{
    (void)state;
    uint32_t last = 0;
    assert_int_equal(nfq_ids_skipped(&last, 1), 0);
    assert_int_equal(nfq_ids_skipped(&last, 2), 0);
    assert_int_equal(nfq_ids_skipped(&last, 7), 4);
    assert_int_equal(last, 7);
    /* Missed from the start. */
    last = 0;
    assert_int_equal(nfq_ids_skipped(&last, 3), 2);
    /* Across the 32-bit wrap. */
    last = UINT32_MAX - 1;
    assert_int_equal(nfq_ids_skipped(&last, UINT32_MAX), 0);
    assert_int_equal(nfq_ids_skipped(&last, 2), 2);
    /* An id at or before the last is no gap, and the sequence goes on from the last. */
    assert_int_equal(nfq_ids_skipped(&last, 2), 0);
    assert_int_equal(nfq_ids_skipped(&last, 1), 0);
    assert_int_equal(last, 2);
    assert_int_equal(nfq_ids_skipped(&last, 3), 0);
}

/* The queue's entries and the ids it gave are read from /proc/net/netfilter/nfnetlink_queue, on the queue's own
 * line. */
static void test_nfqueue_ids_given_are_read_from_the_queues_line(void **state)
{
    (void)state;
    char text[] = "    0   1234     0 2 65531     0     0       17  1\n"
                  "    3   5678    12 2 65531     0     0    30010  1\n";
    FILE *f = fmemopen(text, strlen(text), "r");
    assert_non_null(f);
    struct nfq_queue_line l = {0};
    assert_int_equal(nfq_queue_line_read(f, 3, &l), 0);
    assert_int_equal(l.id_sequence, 30010);
    assert_int_equal(l.queue_total, 12);
    rewind(f);
    assert_int_equal(nfq_queue_line_read(f, 4, &l), -1);
    fclose(f);
}

/* Ids given after the last one read: those still in the queue at the unbind (a shutdown drain that timed out, or
 * queueing that could not be stopped) are dropped by it, lost; only the others the kernel accepted itself. The queue's
 * entries also hold the packets read whose verdict the kernel never took: those are not unread ones. */
static void test_nfqueue_ids_still_queued_at_the_unbind_are_lost_not_fail_open(void **state)
{
    (void)state;
    uint32_t last = 100;
    uint64_t fail_open = 0, lost = 0;
    /* 30 ids after the last read; 25 entries queued, 5 of them read packets without a verdict: 20 unread dropped. */
    nfq_trailing_ids(&last, &(struct nfq_queue_line){.queue_total = 25, .id_sequence = 130}, 5, &fail_open, &lost);
    assert_int_equal(lost, 20);
    assert_int_equal(fail_open, 10);
    /* The drain emptied the queue: every id after the last read was accepted by the kernel. */
    last = 100, fail_open = lost = 0;
    nfq_trailing_ids(&last, &(struct nfq_queue_line){.queue_total = 3, .id_sequence = 104}, 3, &fail_open, &lost);
    assert_int_equal(lost, 0);
    assert_int_equal(fail_open, 4);
    /* Never more lost than ids unread (entries queued after the line was read cannot make it more). */
    last = 100, fail_open = lost = 0;
    nfq_trailing_ids(&last, &(struct nfq_queue_line){.queue_total = 50, .id_sequence = 110}, 0, &fail_open, &lost);
    assert_int_equal(lost, 10);
    assert_int_equal(fail_open, 0);
}

/* The socket reader's clock: each message handled costs MSG_NS of it (about what one costs the NFQUEUE loop). */
#define MSG_NS 6000u
static uint64_t read_now;
static unsigned handled;

static uint64_t read_clock(void)
{
    return read_now;
}

static void handle_slowly(void *arg, char *msg, int len)
{
    (void)arg;
    (void)msg;
    assert_int_equal(len, 8);
    handled++;
    read_now += MSG_NS;
}

/* A socket with n messages of 8 bytes waiting: the write end in fds[1], the reader's in fds[0]. */
static void socket_with_messages(int fds[2], unsigned n)
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, fds), 0);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(send(fds[1], "message", 8, MSG_DONTWAIT), 8);
}

/*
 * A backlog of 256 messages 300 µs before a slice start: the loop stops reading at the slice start (50 messages),
 * so its release is not held up by the 1.5 ms the whole backlog takes; the rest waits in the socket.
 */
static void test_nfqueue_reading_stops_at_the_next_slice_start(void **state)
{
    (void)state;
    int fds[2];
    char buf[64];
    socket_with_messages(fds, NFQ_READ_MAX);
    const struct nfq_reader r = {.fd = fds[0], .buf = buf, .len = sizeof(buf), .clock = read_clock,
                                 .handle = handle_slowly};
    read_now = 1000000000ull;
    handled = 0;
    assert_int_equal(nfq_read_socket(&r, read_now + 300000, NFQ_READ_MAX), 0);
    assert_int_equal(handled, 50);
    /* Already due: one message all the same, so that a loop whose event is always due still reads. */
    assert_int_equal(nfq_read_socket(&r, read_now - 1, NFQ_READ_MAX), 0);
    assert_int_equal(handled, 51);
    /* Far from the next event: at most a batch, then what is left until the socket is empty. */
    assert_int_equal(nfq_read_socket(&r, UINT64_MAX, 100), 0);
    assert_int_equal(handled, 151);
    assert_int_equal(nfq_read_socket(&r, UINT64_MAX, NFQ_READ_MAX), 1);
    assert_int_equal(handled, NFQ_READ_MAX);
    close(fds[0]);
    close(fds[1]);
}

/*
 * The loop reads its clock once per iteration and flushes the TX backlogs after that: a ring that took frames in
 * that flush has a last_taken_ns after the loop's now. It still takes frames (README: while frames wait for a ring
 * that took one within the last 100 ms the loop sleeps at most 10 us); now - last_taken_ns wrapped around to years
 * and called it stalled, so the loop slept up to 200 us with frames waiting on a ring that was emptying.
 */
static void test_a_ring_that_took_frames_after_the_clock_was_read_still_takes(void **state)
{
    (void)state;
    const uint64_t now = 5000000000ull;
    assert_true(tx_stall_peer_takes(now + 3000, now));
    assert_true(tx_stall_peer_takes(now, now));
    assert_true(tx_stall_peer_takes(now - TX_STALL_NS + 1, now));
    assert_false(tx_stall_peer_takes(now - TX_STALL_NS, now));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_ring_that_took_frames_after_the_clock_was_read_still_takes),
        cmocka_unit_test(test_options_bind_aps_and_defaults),
        cmocka_unit_test(test_options_refuse_with_the_option_named),
        cmocka_unit_test(test_options_refuse_an_ap_or_port_bound_twice),
        cmocka_unit_test(test_nfqueue_backend_is_found_before_the_eal_starts),
        cmocka_unit_test(test_check_config_needs_no_uplink_and_keeps_the_files_to_check),
        cmocka_unit_test(test_check_config_refuses_a_second_document_and_a_missing_file),
        cmocka_unit_test(test_options_refuse_a_second_document_of_one_option),
        cmocka_unit_test(test_options_refuse_a_second_backend),
        cmocka_unit_test(test_options_refuse_an_option_the_backend_does_not_read),
        cmocka_unit_test(test_an_abbreviated_check_config_or_backend_is_found_before_the_eal_starts),
        cmocka_unit_test(test_check_config_is_found_before_the_eal_starts),
        cmocka_unit_test(test_backoff_never_sleeps_past_the_next_slice_start),
        cmocka_unit_test(test_backoff_grows_while_idle_and_resets_on_traffic),
        cmocka_unit_test(test_backoff_sleeps_briefly_while_frames_wait_for_a_tx_ring),
        cmocka_unit_test(test_nfqueue_poll_wakes_before_the_slice_start),
        cmocka_unit_test(test_nfqueue_bridged_packet_is_its_bridge_ports),
        cmocka_unit_test(test_nfqueue_ids_skipped_are_packets_the_kernel_accepted_itself),
        cmocka_unit_test(test_nfqueue_ids_given_are_read_from_the_queues_line),
        cmocka_unit_test(test_nfqueue_ids_still_queued_at_the_unbind_are_lost_not_fail_open),
        cmocka_unit_test(test_nfqueue_reading_stops_at_the_next_slice_start),
        cmocka_unit_test(test_lateness_quantiles_from_the_histogram),
        cmocka_unit_test(test_lateness_p99_of_100_events_is_the_99th_not_the_largest),
        cmocka_unit_test(test_lateness_past_10ms_is_the_max_or_at_least_10ms),
        cmocka_unit_test(test_tsc_clock_follows_the_reference_clock_not_the_nominal_rate),
        cmocka_unit_test_setup_teardown(test_frame_tagged_with_an_aps_vlan_is_that_aps, campus_demux_setup, campus_demux_teardown),
        cmocka_unit_test_setup_teardown(test_untagged_frame_is_the_untagged_role_of_its_port, campus_demux_setup, campus_demux_teardown),
        cmocka_unit_test_setup_teardown(test_vlan_of_no_ap_is_unknown_also_where_an_untagged_ap_is, campus_demux_setup, campus_demux_teardown),
        cmocka_unit_test_setup_teardown(test_untagged_frame_on_a_trunk_without_an_untagged_ap_is_unknown, campus_demux_setup, campus_demux_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
