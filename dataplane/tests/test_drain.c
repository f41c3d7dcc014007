/* test_drain.c — drain-time inference (004 §5, SPEC §3.2): when does V end? */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "drain.h"

static struct adw_flow_key flow(uint16_t sta_port)
{
    struct adw_flow_key k = {.family = 4, .srv_port = 80, .sta_port = sta_port};
    k.srv_ip[0] = 198, k.srv_ip[1] = 18, k.srv_ip[3] = 1;
    k.sta_ip[0] = 198, k.sta_ip[1] = 18, k.sta_ip[3] = 11;
    return k;
}

/* A downlink data segment [seq, seq+len). */
static struct adw_tcp_meta data(uint16_t port, uint32_t seq, uint32_t len)
{
    return (struct adw_tcp_meta){.is_tcp = true, .flags = ADW_TCP_ACK, .seq_end = seq + len, .payload_len = len,
                                 .key = flow(port)};
}

/* An uplink pure ACK from the STA. */
static struct adw_tcp_meta ack(uint16_t port, uint32_t ackno)
{
    return (struct adw_tcp_meta){.is_tcp = true, .flags = ADW_TCP_ACK, .ack = ackno, .key = flow(port)};
}

static void test_drain_ends_when_last_released_byte_is_acked(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 1000);
    for (uint32_t i = 0; i < 10; i++) {
        struct adw_tcp_meta m = data(40000, 1 + i * 1448, 1448);
        adw_drain_note_released(&d, &m, 1000);
    }
    assert_true(adw_drain_end_release(&d));
    struct adw_tcp_meta a = ack(40000, 1 + 8 * 1448);
    assert_false(adw_drain_observe_uplink(&d, &a, 5000)); /* covers 8 of 10 segments */
    a = ack(40000, 1 + 10 * 1448);
    assert_true(adw_drain_observe_uplink(&d, &a, 9000));
    assert_false(d.open);
}

/* The receiver may hold the ACK of a lone last segment for its delayed-ACK timer (RFC 5681 §4.2, 40 ms on
 * Linux, two 20 ms slices): the ACK of everything but the last segment ends the drain. */
static void test_drain_ends_when_all_but_a_delayed_ack_segment_is_acked(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 1000);
    for (uint32_t i = 0; i < 9; i++) {
        struct adw_tcp_meta m = data(40000, 1 + i * 1448, 1448);
        adw_drain_note_released(&d, &m, 1000);
    }
    assert_true(adw_drain_end_release(&d));
    struct adw_tcp_meta a = ack(40000, 1 + 7 * 1448);
    assert_false(adw_drain_observe_uplink(&d, &a, 4000)); /* two segments unacknowledged: still in the air */
    a = ack(40000, 1 + 8 * 1448);
    assert_true(adw_drain_observe_uplink(&d, &a, 5000)); /* only the 9th, a delayed ACK's worth, is owed */
    assert_false(d.open);
}

/* A one-segment batch of a flow: the ACK of an earlier segment says nothing about it; its own ACK is needed. */
static void test_single_segment_batch_needs_the_ack_of_its_end(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 0);
    struct adw_tcp_meta m = data(40000, 5000, 1448);
    adw_drain_note_released(&d, &m, 0);
    assert_true(adw_drain_end_release(&d));
    struct adw_tcp_meta a = ack(40000, 5000);
    assert_false(adw_drain_observe_uplink(&d, &a, 10));
    a = ack(40000, 6448);
    assert_true(adw_drain_observe_uplink(&d, &a, 20));
}

static void test_drain_across_sequence_wraparound(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 0);
    uint32_t seq = 0xffffffffu - 2000;
    for (int i = 0; i < 3; i++) {
        struct adw_tcp_meta m = data(40000, seq, 1448);
        adw_drain_note_released(&d, &m, 0);
        seq += 1448; /* wraps past 2^32 */
    }
    assert_true(adw_drain_end_release(&d));
    assert_true(seq < 4000); /* the end sequence is numerically small */
    struct adw_tcp_meta a = ack(40000, 0xfffffff0u); /* numerically larger, but before the end in serial order */
    assert_false(adw_drain_observe_uplink(&d, &a, 10));
    a = ack(40000, seq - 1448 - 1); /* one byte short of the last segment's start, across the wrap */
    assert_false(adw_drain_observe_uplink(&d, &a, 20));
    a = ack(40000, seq - 1448);
    assert_true(adw_drain_observe_uplink(&d, &a, 30));
}

static void test_retransmission_does_not_move_the_end_back(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 0);
    struct adw_tcp_meta m = data(40000, 10000, 1448);
    adw_drain_note_released(&d, &m, 0);
    m = data(40000, 11448, 1448);
    adw_drain_note_released(&d, &m, 0);
    m = data(40000, 12896, 1448);
    adw_drain_note_released(&d, &m, 0);
    m = data(40000, 10000, 1448); /* retransmission of the first segment, released last */
    adw_drain_note_released(&d, &m, 0);
    assert_true(adw_drain_end_release(&d));
    struct adw_tcp_meta a = ack(40000, 11448); /* would end it had the retransmission moved the end back */
    assert_false(adw_drain_observe_uplink(&d, &a, 1));
    a = ack(40000, 12896);
    assert_true(adw_drain_observe_uplink(&d, &a, 2));
}

static void test_sack_of_last_byte_ends_the_drain(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 0);
    for (uint32_t i = 0; i < 4; i++) {
        struct adw_tcp_meta m = data(40000, 1000 + i * 1000, 1000);
        adw_drain_note_released(&d, &m, 0);
    }
    assert_true(adw_drain_end_release(&d));
    /* The second segment was lost in the air: cumulative ACK stays at 2000, SACK reports 3000-5000. */
    struct adw_tcp_meta a = ack(40000, 2000);
    a.n_sack = 1;
    a.sack_right[0] = 3000;
    assert_false(adw_drain_observe_uplink(&d, &a, 5));
    a.sack_right[0] = 4000; /* up to the last segment: as for a cumulative ACK, that one may be delayed */
    assert_true(adw_drain_observe_uplink(&d, &a, 6));
}

static void test_lost_final_ack_leaves_drain_open(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 0);
    for (uint32_t i = 0; i < 3; i++) {
        struct adw_tcp_meta m = data(40000, i * 1448, 1448);
        adw_drain_note_released(&d, &m, 0);
    }
    assert_true(adw_drain_end_release(&d));
    struct adw_tcp_meta a = ack(40000, 1448);
    assert_false(adw_drain_observe_uplink(&d, &a, 100));
    /* the ACK of 2896 is lost: nothing else arrives, the drain stays open for the caller to cap */
    assert_true(d.open);
    adw_drain_abandon(&d);
    assert_false(d.open);
}

static void test_flow_closing_mid_batch_stops_waiting_for_it(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 0);
    struct adw_tcp_meta m = data(40000, 0, 1448);
    adw_drain_note_released(&d, &m, 0);
    m = data(40001, 500, 1448);
    adw_drain_note_released(&d, &m, 0);
    assert_true(adw_drain_end_release(&d));
    struct adw_tcp_meta rst = ack(40001, 0);
    rst.flags = ADW_TCP_RST;
    assert_false(adw_drain_observe_uplink(&d, &rst, 10)); /* flow 40001 is gone; 40000 still owes its ACK */
    struct adw_tcp_meta a = ack(40000, 1448);
    assert_true(adw_drain_observe_uplink(&d, &a, 20));
}

static void test_fin_from_sta_closes_its_flow(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 0);
    struct adw_tcp_meta m = data(40000, 0, 100);
    adw_drain_note_released(&d, &m, 0);
    assert_true(adw_drain_end_release(&d));
    struct adw_tcp_meta fin = ack(40000, 50);
    fin.flags = ADW_TCP_FIN | ADW_TCP_ACK;
    assert_true(adw_drain_observe_uplink(&d, &fin, 7));
}

static void test_uplink_drain_ends_when_acked_bytes_come_back(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    /* Batch 1 teaches the flow's last released ACK (nothing to wait for yet). */
    adw_drain_begin(&d, 0);
    struct adw_tcp_meta a = ack(40000, 100000);
    a.flags = ADW_TCP_ACK;
    adw_drain_note_released(&d, &a, 0);
    assert_false(adw_drain_end_release(&d));
    /* Batch 2: the server's ACKs advance by 4 x 2896 bytes: the STA may now send 11584 bytes. */
    adw_drain_begin(&d, 1000);
    for (uint32_t i = 1; i <= 4; i++) {
        a.ack = 100000 + i * 2896;
        adw_drain_note_released(&d, &a, 1000);
    }
    assert_true(adw_drain_end_release(&d));
    struct adw_tcp_meta up = {.is_tcp = true, .flags = ADW_TCP_ACK, .payload_len = 1448, .key = flow(40000)};
    for (int i = 0; i < 7; i++)
        assert_false(adw_drain_observe_uplink(&d, &up, 2000 + i));
    assert_true(adw_drain_observe_uplink(&d, &up, 3000));
}

static void test_acks_of_other_flows_do_not_end_the_drain(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 0);
    struct adw_tcp_meta m = data(40000, 0, 1448);
    adw_drain_note_released(&d, &m, 0);
    assert_true(adw_drain_end_release(&d));
    struct adw_tcp_meta a = ack(40002, 999999);
    assert_false(adw_drain_observe_uplink(&d, &a, 5));
    assert_true(d.open);
}

/* Only released downlink data makes a batch wait for ACKs; a batch of released ACKs waits for uplink bytes. */
static void test_drain_awaits_downlink_acks_only_for_released_data(void **st)
{
    (void)st;
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, 0);
    struct adw_tcp_meta a = ack(40000, 100000);
    adw_drain_note_released(&d, &a, 0);
    assert_false(adw_drain_end_release(&d));
    adw_drain_begin(&d, 10);
    a.ack = 100000 + 2896;
    adw_drain_note_released(&d, &a, 10);
    assert_true(adw_drain_end_release(&d)); /* open: 2896 uplink bytes expected */
    assert_false(adw_drain_awaits_downlink_acks(&d));
    adw_drain_abandon(&d);
    adw_drain_begin(&d, 20);
    struct adw_tcp_meta m = data(40001, 0, 1448);
    adw_drain_note_released(&d, &m, 20);
    assert_true(adw_drain_end_release(&d));
    assert_true(adw_drain_awaits_downlink_acks(&d));
    struct adw_tcp_meta done = ack(40001, 1448);
    assert_true(adw_drain_observe_uplink(&d, &done, 30));
    assert_false(adw_drain_awaits_downlink_acks(&d));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drain_ends_when_last_released_byte_is_acked),
        cmocka_unit_test(test_drain_ends_when_all_but_a_delayed_ack_segment_is_acked),
        cmocka_unit_test(test_single_segment_batch_needs_the_ack_of_its_end),
        cmocka_unit_test(test_drain_across_sequence_wraparound),
        cmocka_unit_test(test_retransmission_does_not_move_the_end_back),
        cmocka_unit_test(test_sack_of_last_byte_ends_the_drain),
        cmocka_unit_test(test_lost_final_ack_leaves_drain_open),
        cmocka_unit_test(test_flow_closing_mid_batch_stops_waiting_for_it),
        cmocka_unit_test(test_fin_from_sta_closes_its_flow),
        cmocka_unit_test(test_uplink_drain_ends_when_acked_bytes_come_back),
        cmocka_unit_test(test_acks_of_other_flows_do_not_end_the_drain),
        cmocka_unit_test(test_drain_awaits_downlink_acks_only_for_released_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
