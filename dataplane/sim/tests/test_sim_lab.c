/*
 * Tests of the simulated lab's events (sim/sim_lab.c). The core's
 * adw_sched_enqueue_burst is wrapped (-Wl,--wrap) to see the frames the STAs'
 * ACKs bring to the appliance, and adw_sched_dequeue_burst to see the
 * segments it releases to AP1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim_lab.h"

/* The last uplink frame the core was given. */
static uint8_t seen[128];
static uint32_t seen_len;

void __real_adw_sched_enqueue_burst(struct adw_sched *s, struct adw_pkt *pkts, enum adw_verdict *verdicts, unsigned n,
                                    uint64_t now_ns);
void __wrap_adw_sched_enqueue_burst(struct adw_sched *s, struct adw_pkt *pkts, enum adw_verdict *verdicts, unsigned n,
                                    uint64_t now_ns);
void __wrap_adw_sched_enqueue_burst(struct adw_sched *s, struct adw_pkt *pkts, enum adw_verdict *verdicts, unsigned n,
                                    uint64_t now_ns)
{
    for (unsigned i = 0; i < n; i++)
        if (pkts[i].in_port != 0 && pkts[i].len <= sizeof(seen)) {
            memcpy(seen, pkts[i].data, pkts[i].len);
            seen_len = pkts[i].len;
        }
    __real_adw_sched_enqueue_burst(s, pkts, verdicts, n, now_ns);
}

/* Segments the core released to AP1 (out_port 1) since the test last cleared n_released. */
static uint64_t released[1024];
static unsigned n_released;

unsigned __real_adw_sched_dequeue_burst(struct adw_sched *s, struct adw_pkt *out, unsigned max, uint64_t now_ns);
unsigned __wrap_adw_sched_dequeue_burst(struct adw_sched *s, struct adw_pkt *out, unsigned max, uint64_t now_ns);
unsigned __wrap_adw_sched_dequeue_burst(struct adw_sched *s, struct adw_pkt *out, unsigned max, uint64_t now_ns)
{
    unsigned n = __real_adw_sched_dequeue_burst(s, out, max, now_ns);
    for (unsigned i = 0; i < n; i++)
        if (out[i].out_port == 1 && n_released < sizeof(released) / sizeof(released[0]))
            released[n_released++] = *(const uint64_t *)out[i].cookie;
    return n;
}

static bool in_ap_queue(const struct ap_model *ap, uint64_t seg)
{
    for (uint32_t i = 0; i < ap->n; i++)
        if (ap->seg[(ap->head + i) % AP_QUEUE_CAP] == seg)
            return true;
    return false;
}

static bool waits_for_resend(const struct tcp_bulk *t, uint64_t seg)
{
    for (uint32_t i = 0; i < t->retx_n; i++)
        if (t->retx[(t->retx_head + i) % TCP_RING] == seg)
            return true;
    return false;
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* AP1 is handed segments segs[0..n) at t_ns, and STA1 receives them 1 µs apart from then on (its burst). */
static void burst_to_sta1(struct sim_lab *L, const uint64_t *segs, unsigned n, uint64_t t_ns)
{
    for (unsigned i = 0; i < n; i++)
        ap_receive(&L->aps[0], segs[i], t_ns, &L->q, &L->rng);
    for (unsigned i = 0; i < n; i++) {
        struct sim_event ev = {.t_ns = t_ns + 1000 * (i + 1), .kind = EV_AP_DONE, .a = 0};
        sim_lab_handle(L, &ev);
    }
}

/* Runs the lab's queued events up to the next ACK of STA1 at the appliance, that one included. */
static void next_ack_at_core(struct sim_lab *L)
{
    struct sim_event ev;
    while (eq_pop(&L->q, &ev))
        if (ev.kind == EV_ACK_AT_CORE && ev.a == 0) {
            sim_lab_handle(L, &ev);
            return;
        }
    fail_msg("no ACK of STA1 was queued");
}

/* The SACK block (first left, right edges) of the frame seen, as segments of STA1's flow; false if none. */
static bool sack_of_seen(const struct sim_lab *L, uint64_t *left, uint64_t *right)
{
    const uint8_t *tcp = seen + 34;
    if (((tcp[12] >> 4) * 4u) <= 20u)
        return false;
    *left = (rd32(tcp + 24) - L->flows[0].isn) / TCP_MSS;
    *right = (rd32(tcp + 28) - L->flows[0].isn) / TCP_MSS;
    return true;
}

static uint64_t ack_of_seen(const struct sim_lab *L) { return (rd32(seen + 34 + 8) - L->flows[0].isn) / TCP_MSS; }

static int lab_up(void **state)
{
    char err[256];
    *state = sim_lab_create(20, 2, 1, false, err, sizeof(err));
    return *state == NULL ? -1 : 0;
}

static int lab_down(void **state)
{
    sim_lab_free(*state);
    return 0;
}

static void test_ack_reaches_the_core_as_the_sta_sent_it(void **state)
{
    struct sim_lab *L = *state;
    uint64_t l, r;
    /* In order: the ACK of 0-1 goes when 1 arrives; 2 and 3 come before it reaches the appliance (D_ACK_NS). */
    burst_to_sta1(L, (const uint64_t[]){0, 1, 2, 3}, 4, 0);
    next_ack_at_core(L);
    assert_int_equal(ack_of_seen(L), 2);
    assert_false(sack_of_seen(L, &l, &r)); /* nothing was out of order when it was sent */
    next_ack_at_core(L);
    assert_int_equal(ack_of_seen(L), 4);
    assert_false(sack_of_seen(L, &l, &r));
    /* 5 is missing: the ACK of 4 SACKs 6; 5 (resent) and 7 arrive while it is on its way. */
    burst_to_sta1(L, (const uint64_t[]){4, 6, 5, 7}, 4, 300000);
    next_ack_at_core(L); /* the one 6 triggered (out of order: at once) */
    assert_int_equal(ack_of_seen(L), 5);
    assert_true(sack_of_seen(L, &l, &r));
    assert_int_equal(l, 6);
    assert_int_equal(r, 7);
}

static void test_a_segment_the_full_ap_refuses_is_a_counted_tail_drop_the_server_resends(void **state)
{
    struct sim_lab *L = *state;
    struct ap_model *ap = &L->aps[0];
    ap->cap = 2; /* smaller than one batch: a release overflows it */
    unsigned refused = 0;
    uint64_t refused_seg[1024];
    struct sim_event ev;
    /* Event by event, until the core releases to AP1 a segment that AP1 does not hold (the same instant: nothing
     * could have been sent over the air since). */
    while (refused == 0 && eq_pop(&L->q, &ev) && ev.t_ns < L->end_ns) {
        n_released = 0;
        sim_lab_handle(L, &ev);
        for (unsigned i = 0; i < n_released; i++)
            if (!in_ap_queue(ap, released[i]))
                refused_seg[refused++] = released[i];
    }
    assert_true(refused > 0); /* the queue of 2 did fill */
    assert_int_equal(ap->drops_tail, refused);
    for (unsigned i = 0; i < refused; i++)
        if (!waits_for_resend(&L->flows[0], refused_seg[i]))
            fail_msg("segment %llu was released to a full AP1 and the server does not know it is lost",
                     (unsigned long long)refused_seg[i]);
    assert_true(L->flows[0].ssthresh < TCP_CWND_MAX); /* the loss halved the window */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ack_reaches_the_core_as_the_sta_sent_it, lab_up, lab_down),
        cmocka_unit_test_setup_teardown(test_a_segment_the_full_ap_refuses_is_a_counted_tail_drop_the_server_resends,
                                        lab_up, lab_down),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
