/*
 * test_minstrel.c — the Minstrel-like rate control steps down under loss
 * and back up when a rate works, and samples slower rates now and then so
 * that its fallback entries have statistics when the link degrades.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "minstrel.h"

static struct wlan_air_config cfg;

static int load(void **state)
{
    (void)state;
    char err[256];
    return wlan_air_config_load("../lab-2ap-2sta.json", &cfg, err, sizeof err);
}

/* One interval in which mcs sees `attempts` MPDUs with `success` delivered. */
static void interval(struct minstrel *m, uint64_t *now, uint32_t mcs, uint32_t attempts, uint32_t success)
{
    *now += m->update_interval_us;
    minstrel_report(m, mcs, attempts, success, *now);
}

static void test_rate_steps_down_when_the_best_rate_loses_most_mpdus(void **state)
{
    (void)state;
    struct minstrel m;
    uint64_t now = 0;
    minstrel_init(&m, &cfg, now);
    /* MCS15 works, MCS13 works: MCS15 is chosen. */
    m.r[13].attempts = 100; m.r[13].success = 100;
    interval(&m, &now, 15, 100, 100);
    assert_int_equal(m.max_tp, 15);
    /* Then MCS15 starts losing 80 % of MPDUs (interference): the EWMA falls
     * and the link steps down to MCS13. */
    for (int i = 0; i < 10; i++) {
        m.r[13].attempts = 100; m.r[13].success = 100;
        interval(&m, &now, 15, 100, 20);
    }
    assert_int_equal(m.max_tp, 13);
    assert_true(m.r[15].prob < 0.3);
    /* Retries fall back along the chain to lower or equal rates. */
    assert_true(m.r[minstrel_rate_for_attempt(&m, 5)].rate_mbps <= m.r[m.max_tp].rate_mbps);
}

/* The whole table, max_prob included: a retransmission (an A-MPDU whose first MPDU was tried before) goes
 * at max_prob, so a max_prob left on the failing rate would hold the link there. */
static void test_whole_rate_table_steps_down_one_rate_when_nothing_gets_through(void **state)
{
    (void)state;
    struct minstrel m;
    uint64_t now = 0;
    minstrel_init(&m, &cfg, now);
    uint32_t start = m.max_tp;
    interval(&m, &now, start, 50, 0);
    assert_true(m.r[m.max_tp].rate_mbps < m.r[start].rate_mbps);
    assert_int_equal(m.max_tp2, m.max_tp);
    assert_int_equal(m.max_prob, m.max_tp);
    assert_int_equal(minstrel_rate_for_attempt(&m, 10), m.max_tp);
}

/* Rates that could beat max_tp are probed at any time; a slower one only after MINSTREL_SLOW_SAMPLE_SKIPPED
 * updates without attempts, never one over 3 times slower than max_prob, and not again once it was tried. */
static void test_sampling_probes_a_slower_rate_only_after_20_updates_without_attempts(void **state)
{
    (void)state;
    struct minstrel m;
    uint64_t now = 0;
    minstrel_init(&m, &cfg, now);
    interval(&m, &now, 15, 100, 100);
    double best = minstrel_expected_tp(&m, m.max_tp);
    for (double u = 0; u < m.sample_ratio; u += m.sample_ratio / 50) {
        int s = minstrel_sample_rate(&m, u);
        assert_true(s < 0 || m.r[s].rate_mbps > best);
    }
    assert_int_equal(minstrel_sample_rate(&m, m.sample_ratio + 0.01), -1);
    for (int i = 0; i < MINSTREL_SLOW_SAMPLE_SKIPPED; i++)
        interval(&m, &now, 15, 100, 100);
    int slow = -1;
    for (double u = 0; u < m.sample_ratio; u += m.sample_ratio / 200) {
        int s = minstrel_sample_rate(&m, u);
        if (s >= 0 && m.r[s].rate_mbps <= best) {
            assert_true(m.r[s].rate_mbps >= m.r[m.max_prob].rate_mbps / 3.0);
            slow = s;
        }
    }
    assert_true(slow >= 0);
    interval(&m, &now, (uint32_t)slow, 1, 1);
    for (double u = 0; u < m.sample_ratio; u += m.sample_ratio / 200)
        assert_int_not_equal(minstrel_sample_rate(&m, u), slow);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rate_steps_down_when_the_best_rate_loses_most_mpdus),
        cmocka_unit_test(test_whole_rate_table_steps_down_one_rate_when_nothing_gets_through),
        cmocka_unit_test(test_sampling_probes_a_slower_rate_only_after_20_updates_without_attempts),
    };
    return cmocka_run_group_tests(tests, load, NULL);
}
