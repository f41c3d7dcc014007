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

/* The drain under test, reset and opened for a batch released at now_ns (static: struct adw_drain is large). */
static struct adw_drain *drain_opened_at(uint64_t now_ns)
{
    static struct adw_drain d;
    adw_drain_reset(&d);
    adw_drain_begin(&d, now_ns);
    return &d;
}

/* Batch 1 (at 0) released the first pure ACK of the flow at sta_port, acknowledging ackno: that only teaches the
 * flow's last released ACK, nothing to wait for. Batch 2 is open from 1000 ns. */
static struct adw_drain *uplink_drain_after_first_ack(uint16_t sta_port, uint32_t ackno)
{
    struct adw_drain *d = drain_opened_at(0);
    struct adw_tcp_meta first = ack(sta_port, ackno);
    adw_drain_note_released(d, &first, 0);
    assert_false(adw_drain_end_release(d));
    adw_drain_begin(d, 1000);
    return d;
}

/* The batch releases the downlink segment [seq, seq+len) of the flow at sta_port. */
static void release_data(struct adw_drain *d, uint16_t sta_port, uint32_t seq, uint32_t len, uint64_t now_ns)
{
    struct adw_tcp_meta m = data(sta_port, seq, len);
    adw_drain_note_released(d, &m, now_ns);
}

/* The batch releases n back-to-back downlink segments of seg_len bytes from first_seq on. */
static void release_segments(struct adw_drain *d, uint16_t sta_port, uint32_t first_seq, uint32_t seg_len, uint32_t n,
                             uint64_t now_ns)
{
    for (uint32_t i = 0; i < n; i++)
        release_data(d, sta_port, first_seq + i * seg_len, seg_len, now_ns);
}

/* The STA's pure ACK of ackno arrives at now_ns; true when it ends the drain. */
static bool ack_arrives(struct adw_drain *d, uint16_t sta_port, uint32_t ackno, uint64_t now_ns)
{
    struct adw_tcp_meta a = ack(sta_port, ackno);
    return adw_drain_observe_uplink(d, &a, now_ns);
}

/* The STA's segment m (an ACK with SACK blocks, say) arrives at now_ns; true when it ends the drain. */
static bool sta_sends(struct adw_drain *d, struct adw_tcp_meta m, uint64_t now_ns)
{
    return adw_drain_observe_uplink(d, &m, now_ns);
}

static void test_drain_ends_when_last_released_byte_is_acked(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(1000);
    release_segments(d, 40000, 1, 1448, 10, 1000);
    assert_true(adw_drain_end_release(d));
    assert_false(ack_arrives(d, 40000, 1 + 8 * 1448, 5000)); /* covers 8 of 10 segments */
    assert_true(ack_arrives(d, 40000, 1 + 10 * 1448, 9000));
    assert_false(d->open);
}

/* The receiver may hold the ACK of a lone last segment for its delayed-ACK timer (RFC 5681 §4.2, 40 ms on
 * Linux, two 20 ms slices): the ACK of everything but the last segment ends the drain. */
static void test_drain_ends_when_all_but_a_delayed_ack_segment_is_acked(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(1000);
    release_segments(d, 40000, 1, 1448, 9, 1000);
    assert_true(adw_drain_end_release(d));
    assert_false(ack_arrives(d, 40000, 1 + 7 * 1448, 4000)); /* two segments unacknowledged: still in the air */
    assert_true(ack_arrives(d, 40000, 1 + 8 * 1448, 5000));  /* only the 9th, a delayed ACK's worth, is owed */
    assert_false(d->open);
}

/* A one-segment batch of a flow: the ACK of an earlier segment says nothing about it; its own ACK is needed. */
static void test_single_segment_batch_needs_the_ack_of_its_end(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_data(d, 40000, 5000, 1448, 0);
    assert_true(adw_drain_end_release(d));
    assert_false(ack_arrives(d, 40000, 5000, 10));
    assert_true(ack_arrives(d, 40000, 6448, 20));
}

static void test_drain_across_sequence_wraparound(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    const uint32_t first = 0xffffffffu - 2000;
    release_segments(d, 40000, first, 1448, 3, 0);
    const uint32_t end = first + 3 * 1448; /* wraps past 2^32 */
    assert_true(adw_drain_end_release(d));
    assert_true(end < 4000);                               /* the end sequence is numerically small */
    assert_false(ack_arrives(d, 40000, 0xfffffff0u, 10));  /* numerically larger, but before the end in serial order */
    assert_false(ack_arrives(d, 40000, end - 1448 - 1, 20)); /* one byte short of the last segment's start */
    assert_true(ack_arrives(d, 40000, end - 1448, 30));
}

static void test_retransmission_does_not_move_the_end_back(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_segments(d, 40000, 10000, 1448, 3, 0);
    release_data(d, 40000, 10000, 1448, 0); /* retransmission of the first segment, released last */
    assert_true(adw_drain_end_release(d));
    assert_false(ack_arrives(d, 40000, 11448, 1)); /* would end it had the retransmission moved the end back */
    assert_true(ack_arrives(d, 40000, 12896, 2));
}

static void test_sack_of_last_byte_ends_the_drain(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_segments(d, 40000, 1000, 1000, 4, 0);
    assert_true(adw_drain_end_release(d));
    /* The second segment was lost in the air: cumulative ACK stays at 2000, SACK reports 3000-5000. */
    struct adw_tcp_meta a = ack(40000, 2000);
    a.n_sack = 1;
    a.sack_right[0] = 3000;
    assert_false(adw_drain_observe_uplink(d, &a, 5));
    a.sack_left[0] = 3000;
    a.sack_right[0] = 4000; /* up to the last segment: as for a cumulative ACK, that one may be delayed */
    assert_true(adw_drain_observe_uplink(d, &a, 6));
}

/* A FIN from the STA ends its uplink transfer (drain.h) also when its flow has already drained and another flow keeps
 * the batch open: the server's ACK of that FIN, released in a later batch, frees no byte the STA will send. */
static void test_fin_after_the_flow_drained_leaves_no_uplink_bytes_to_wait_for(void **st)
{
    (void)st;
    struct adw_drain *d = uplink_drain_after_first_ack(40000, 100000);
    struct adw_tcp_meta a = ack(40000, 100000);
    a.ack = 100000 + 1448;
    adw_drain_note_released(d, &a, 1000); /* flow 40000 may send 1448 bytes */
    release_data(d, 40001, 0, 1448, 1000); /* flow 40001 keeps the batch open */
    assert_true(adw_drain_end_release(d));
    struct adw_tcp_meta up = {.is_tcp = true, .flags = ADW_TCP_ACK, .payload_len = 1448, .key = flow(40000)};
    assert_false(adw_drain_observe_uplink(d, &up, 2000)); /* 40000 drained, 40001 not yet */
    struct adw_tcp_meta fin = {.is_tcp = true, .flags = ADW_TCP_FIN | ADW_TCP_ACK, .key = flow(40000)};
    assert_false(adw_drain_observe_uplink(d, &fin, 2001));
    assert_true(ack_arrives(d, 40001, 1448, 2002));
    adw_drain_begin(d, 3000);
    a.ack = 100000 + 1448 + 1; /* the server acknowledges the FIN */
    adw_drain_note_released(d, &a, 3000);
    assert_false(adw_drain_end_release(d)); /* nothing will come up: no drain */
}

/* The ACK number of released data reaches the STA like a pure ACK's: a later ACK frees only what it acknowledges
 * beyond it (drain.h: "beyond the last ACK released before it on that flow"). */
static void test_uplink_bytes_expected_beyond_the_ack_carried_by_released_data(void **st)
{
    (void)st;
    struct adw_drain *d = uplink_drain_after_first_ack(40000, 100000);
    struct adw_tcp_meta a = ack(40000, 100000);
    struct adw_tcp_meta seg = data(40000, 0, 1448);
    seg.ack = 100000 + 2896; /* the server's data acknowledges 2896 bytes the STA sent */
    adw_drain_note_released(d, &seg, 1000);
    assert_true(adw_drain_end_release(d));
    assert_true(ack_arrives(d, 40000, 1448, 1500));
    adw_drain_begin(d, 2000);
    a.ack = 100000 + 2896 + 1448;
    adw_drain_note_released(d, &a, 2000); /* frees 1448 bytes, not 4344 */
    assert_true(adw_drain_end_release(d));
    struct adw_tcp_meta up = {.is_tcp = true, .flags = ADW_TCP_ACK, .payload_len = 1448, .key = flow(40000)};
    assert_true(adw_drain_observe_uplink(d, &up, 3000));
}

/* A retransmission of a segment lost in the air: the STA's duplicate ACKs SACK the data above the hole, which
 * arrived long before; a SACK block reports the retransmission only if it covers it. */
static void test_sack_above_a_retransmitted_hole_does_not_end_its_drain(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_data(d, 40000, 2000, 1000, 0); /* the retransmission of [2000, 3000) */
    assert_true(adw_drain_end_release(d));
    struct adw_tcp_meta dup = ack(40000, 2000);
    dup.n_sack = 1;
    dup.sack_left[0] = 3000;
    dup.sack_right[0] = 9000;
    assert_false(adw_drain_observe_uplink(d, &dup, 5)); /* sent before the retransmission arrived */
    assert_true(d->open);
    assert_true(ack_arrives(d, 40000, 9000, 6)); /* the hole filled: the cumulative ACK jumps */
}

/* A contiguous batch of new data whose second-to-last segment is lost in the air: the STA's duplicate ACK SACKs the
 * last segment, so the AP has sent the whole batch (the lost one is the sender's to retransmit, in a later batch). */
static void test_sack_of_the_last_segment_ends_the_drain_when_the_one_before_is_lost(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_segments(d, 40000, 10000, 1000, 4, 0);
    assert_true(adw_drain_end_release(d));
    assert_false(ack_arrives(d, 40000, 12000, 5)); /* [12000, 13000) lost */
    struct adw_tcp_meta dup = ack(40000, 12000);
    dup.n_sack = 1;
    dup.sack_left[0] = 13000;
    dup.sack_right[0] = 14000;
    assert_true(adw_drain_observe_uplink(d, &dup, 6));
}

/* Two holes (004 §5: V ends when the batch's data is acknowledged). A downlink flow of MSS-sized segments seg(0) ..
 * seg(9) lost seg(2) and seg(5) in the air; the STA holds the rest, so its duplicate ACKs acknowledge seg(2) and
 * SACK [seg(6), seg(10)) (the block received last comes first, RFC 2018) and [seg(3), seg(5)). */
#define HOLE_MSS 1448u
static uint32_t seg(uint32_t i) { return 100000u + i * HOLE_MSS; }

/* The STA's ACK of ackno on the flow at 40000 with SACK blocks [l0, r0) and, if l1 != r1, [l1, r1). */
static struct adw_tcp_meta sack_ack(uint32_t ackno, uint32_t l0, uint32_t r0, uint32_t l1, uint32_t r1)
{
    struct adw_tcp_meta a = ack(40000, ackno);
    a.n_sack = l1 != r1 ? 2 : 1;
    a.sack_left[0] = l0, a.sack_right[0] = r0;
    a.sack_left[1] = l1, a.sack_right[1] = r1;
    return a;
}

/* The STA's duplicate ACK while both holes are open. */
static struct adw_tcp_meta dup_ack_of_two_holes(void) { return sack_ack(seg(2), seg(6), seg(10), seg(3), seg(5)); }

/* The batch releases the retransmissions of both holes. */
static void release_both_retransmissions(struct adw_drain *d)
{
    release_data(d, 40000, seg(2), HOLE_MSS, 0);
    release_data(d, 40000, seg(5), HOLE_MSS, 0);
}

/* A batch at 0 that released the segments at first and then second, and nothing else. */
static struct adw_drain *batch_of_two_segments(uint32_t first, uint32_t second)
{
    struct adw_drain *d = drain_opened_at(0);
    release_data(d, 40000, first, HOLE_MSS, 0);
    release_data(d, 40000, second, HOLE_MSS, 0);
    assert_true(adw_drain_end_release(d));
    return d;
}

/* Both retransmissions in one batch: a duplicate ACK sent before they arrived SACKs seg(3)..seg(4), the bytes just
 * below seg(5) but received long before the batch; it says nothing about the batch. */
static void test_sack_of_data_below_the_second_retransmitted_hole_does_not_end_the_drain(void **st)
{
    (void)st;
    struct adw_drain *d = batch_of_two_segments(seg(2), seg(5));
    assert_false(sta_sends(d, dup_ack_of_two_holes(), 5));
    assert_true(d->open);
}

/* Both retransmissions and one new segment: the duplicate ACK's SACK of [seg(6), seg(10)), the bytes just below the
 * new segment, predates the batch. The ACK past both holes up to the new segment ends the drain (all but the last
 * segment, whose ACK the STA may delay: drain.h). */
static void test_two_retransmitted_holes_and_one_new_segment_drain_when_all_but_the_new_segment_is_acked(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_both_retransmissions(d);
    release_data(d, 40000, seg(10), HOLE_MSS, 0);
    assert_true(adw_drain_end_release(d));
    assert_false(sta_sends(d, dup_ack_of_two_holes(), 5));
    assert_false(sta_sends(d, sack_ack(seg(5), seg(6), seg(10), 0, 0), 10));
    assert_true(ack_arrives(d, 40000, seg(10), 20));
}

/* One hole of two segments, seg(2) and seg(3), retransmitted in one batch; the retransmission of seg(2) is lost
 * again and that of seg(3) arrives: the STA's SACK block now starts at seg(3), the batch's last segment, and ends
 * its drain (the AP has sent both). Its duplicate ACK from before the batch does not. */
static void test_two_adjacent_retransmissions_drain_by_the_sack_of_the_second_when_the_first_is_lost_again(void **st)
{
    (void)st;
    struct adw_drain *d = batch_of_two_segments(seg(2), seg(3));
    assert_false(sta_sends(d, sack_ack(seg(2), seg(4), seg(10), 0, 0), 5));
    assert_true(sta_sends(d, sack_ack(seg(2), seg(3), seg(10), 0, 0), 10));
}

/* Both retransmissions in one batch: the repair of the first hole moves the cumulative ACK up to seg(5), the second
 * retransmission's start, while the STA still SACKs the data beyond it. That one is still in the AP's queue or the
 * air and its ACK is not delayed (it fills a hole: RFC 5681 §4.2), so the drain ends at the repair of the second. */
static void test_two_retransmitted_holes_in_one_batch_drain_when_the_second_is_repaired(void **st)
{
    (void)st;
    struct adw_drain *d = batch_of_two_segments(seg(2), seg(5));
    assert_false(sta_sends(d, sack_ack(seg(5), seg(6), seg(10), 0, 0), 10));
    assert_true(d->open);
    assert_true(ack_arrives(d, 40000, seg(10), 20));
}

/* One hole of two segments retransmitted in one batch: the ACK of the first with the data beyond the hole still
 * SACKed leaves the second to arrive, and it is acknowledged at once. */
static void test_two_adjacent_retransmissions_drain_when_the_second_is_acknowledged(void **st)
{
    (void)st;
    struct adw_drain *d = batch_of_two_segments(seg(2), seg(3));
    assert_false(sta_sends(d, sack_ack(seg(3), seg(4), seg(10), 0, 0), 10));
    assert_true(ack_arrives(d, 40000, seg(10), 20));
}

/* Both retransmissions and new data of several segments: neither hole's repair ends the drain; all but the last
 * new segment acknowledged (its ACK may be delayed) does. */
static void test_two_retransmitted_holes_and_new_data_drain_when_all_but_the_last_new_segment_is_acked(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_both_retransmissions(d);
    release_segments(d, 40000, seg(10), HOLE_MSS, 4, 0);
    assert_true(adw_drain_end_release(d));
    assert_false(sta_sends(d, dup_ack_of_two_holes(), 5));
    assert_false(sta_sends(d, sack_ack(seg(5), seg(6), seg(10), 0, 0), 10));
    assert_false(ack_arrives(d, 40000, seg(10), 20)); /* second hole repaired, the new data still owed */
    assert_false(ack_arrives(d, 40000, seg(12), 30));
    assert_true(ack_arrives(d, 40000, seg(13), 40));
}

/* Both retransmissions in one batch, that of seg(2) lost again: when seg(5)'s arrives, the STA's SACK block runs
 * from the first hole's edge over it and holds the batch's last byte, which ends the drain (the AP sent both). */
static void test_two_retransmitted_holes_drain_by_a_sack_block_edge_when_the_first_is_lost_again(void **st)
{
    (void)st;
    struct adw_drain *d = batch_of_two_segments(seg(2), seg(5));
    assert_true(sta_sends(d, sack_ack(seg(2), seg(3), seg(10), 0, 0), 10));
}

/* The two retransmissions in different batches, the second hole's first (a tail loss probe's): each drains at the
 * STA segment that reports its own retransmission, the first through a SACK block whose left edge is the first
 * hole, still open; the STA's earlier segments do not. */
static void test_two_holes_retransmitted_in_different_batches_drain_each_at_its_repair(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_data(d, 40000, seg(5), HOLE_MSS, 0);
    assert_true(adw_drain_end_release(d));
    assert_false(sta_sends(d, dup_ack_of_two_holes(), 5));
    struct adw_tcp_meta merged = sack_ack(seg(2), seg(3), seg(10), 0, 0);
    assert_true(adw_drain_observe_uplink(d, &merged, 10));

    adw_drain_begin(d, 100);
    release_data(d, 40000, seg(2), HOLE_MSS, 100);
    assert_true(adw_drain_end_release(d));
    assert_false(adw_drain_observe_uplink(d, &merged, 105));
    assert_true(ack_arrives(d, 40000, seg(10), 110));
    assert_false(d->open);
}

/* The AP sends a flow's segments in the order the batch released them, so the last one released is the last to
 * arrive; a retransmission is often released after data above it: the server sent new data (or a tail loss probe,
 * RFC 8985) before it learned of the hole, and the appliance's queue keeps that order. The STA below has seg(0),
 * seg(1) and seg(3)..seg(9): seg(2) was lost in the air. */
static struct adw_tcp_meta dup_ack_of_one_hole(uint32_t sacked_end)
{
    return sack_ack(seg(2), seg(3), sacked_end, 0, 0);
}

/* A batch at 0 that released new data, seg(10) and seg(11), then the repair of seg(2). */
static struct adw_drain *new_data_then_the_repair(void)
{
    struct adw_drain *d = drain_opened_at(0);
    release_segments(d, 40000, seg(10), HOLE_MSS, 2, 0);
    release_data(d, 40000, seg(2), HOLE_MSS, 0);
    assert_true(adw_drain_end_release(d));
    return d;
}

/* New data, then the repair: each new segment arrives out of order and draws an immediate duplicate ACK that SACKs
 * it (RFC 5681 §4.2, RFC 2018), with the repair still in the AP's queue or the air; the repair's ACK ends the
 * drain. */
static void test_new_data_released_before_a_hole_repair_drains_when_the_repair_is_acknowledged(void **st)
{
    (void)st;
    struct adw_drain *d = new_data_then_the_repair();
    assert_false(sta_sends(d, dup_ack_of_one_hole(seg(10)), 5));
    assert_false(sta_sends(d, dup_ack_of_one_hole(seg(11)), 10));
    assert_false(sta_sends(d, dup_ack_of_one_hole(seg(12)), 20));
    assert_true(ack_arrives(d, 40000, seg(12), 30));
}

/* One of the new segments released before the repair lost in the air: the other's duplicate ACK does not end the
 * drain, the repair's ACK (immediate, it fills the hole) does: the AP has sent the whole batch. */
static void test_a_hole_repair_released_last_drains_at_its_ack_when_a_new_segment_before_it_was_lost(void **st)
{
    (void)st;
    struct adw_drain *d = new_data_then_the_repair();
    assert_false(sta_sends(d, sack_ack(seg(2), seg(11), seg(12), seg(3), seg(10)), 10)); /* seg(10) lost */
    assert_true(sta_sends(d, sack_ack(seg(10), seg(11), seg(12), 0, 0), 20));

    d = new_data_then_the_repair();
    assert_false(sta_sends(d, dup_ack_of_one_hole(seg(11)), 10)); /* seg(11) lost */
    assert_true(ack_arrives(d, 40000, seg(11), 20));
}

/* seg(9) was lost too. A tail loss probe of it, then the repair of seg(2): the probe arrives out of order, its
 * duplicate ACK SACKs the flow's highest byte while the repair is still in the AP's queue or the air. */
static void test_a_tail_loss_probe_released_before_a_hole_repair_drains_when_the_repair_is_acknowledged(void **st)
{
    (void)st;
    struct adw_drain *d = batch_of_two_segments(seg(9), seg(2));
    assert_false(sta_sends(d, dup_ack_of_one_hole(seg(9)), 5));
    assert_false(sta_sends(d, dup_ack_of_one_hole(seg(10)), 10));
    assert_true(ack_arrives(d, 40000, seg(10), 20));
}

/* A spurious tail loss probe (seg(9) had arrived, its ACKs were late), then the repair: the STA's duplicate ACK sent
 * before the batch arrived already SACKs seg(9); it says nothing about the batch. */
static void test_a_spurious_tail_probe_before_a_hole_repair_does_not_drain_at_an_earlier_duplicate_ack(void **st)
{
    (void)st;
    struct adw_drain *d = batch_of_two_segments(seg(9), seg(2));
    assert_false(sta_sends(d, dup_ack_of_one_hole(seg(10)), 5));
    /* the probe's D-SACK (RFC 2883) */
    assert_false(sta_sends(d, sack_ack(seg(2), seg(9), seg(10), seg(3), seg(10)), 10));
    assert_true(ack_arrives(d, 40000, seg(10), 20));
}

/* The repair, then a probe of the lost tail: the repair fills the hole and is acknowledged at once up to seg(9);
 * the probe is the batch's last and highest segment, with nothing beyond it at the STA, so its ACK may be delayed
 * (drain.h) and is owed. */
static void test_a_hole_repair_released_before_a_tail_loss_probe_drains_at_its_ack_with_the_probe_owed(void **st)
{
    (void)st;
    struct adw_drain *d = batch_of_two_segments(seg(2), seg(9));
    assert_false(sta_sends(d, dup_ack_of_one_hole(seg(9)), 5));
    assert_true(ack_arrives(d, 40000, seg(9), 10));
}

/* Two holes repaired in the reverse order (the second's loss was detected first): the repair of seg(5) arrives out
 * of order and the STA's SACK block then runs from seg(3) past the batch's highest byte, with the repair of seg(2)
 * still in the AP's queue or the air. */
static void test_two_hole_repairs_released_in_reverse_order_drain_when_the_lower_is_acknowledged(void **st)
{
    (void)st;
    struct adw_drain *d = batch_of_two_segments(seg(5), seg(2));
    assert_false(sta_sends(d, dup_ack_of_two_holes(), 5));
    assert_false(sta_sends(d, sack_ack(seg(2), seg(3), seg(10), 0, 0), 10));
    assert_true(ack_arrives(d, 40000, seg(10), 20));
}

static void test_lost_final_ack_leaves_drain_open(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_segments(d, 40000, 0, 1448, 3, 0);
    assert_true(adw_drain_end_release(d));
    assert_false(ack_arrives(d, 40000, 1448, 100));
    /* the ACK of 2896 is lost: nothing else arrives, the drain stays open for the caller to cap */
    assert_true(d->open);
    adw_drain_abandon(d);
    assert_false(d->open);
}

/* The STA's RST ends its socket, not the AP's queue: the data released before it is still sent (drain.h). */
static void test_rst_from_the_sta_drains_only_what_its_ack_covers(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_data(d, 40000, 0, 1448, 0);
    release_data(d, 40001, 500, 1448, 0);
    assert_true(adw_drain_end_release(d));
    struct adw_tcp_meta rst = ack(40001, 500); /* reset before any of the batch arrived */
    rst.flags = ADW_TCP_RST | ADW_TCP_ACK;
    assert_false(adw_drain_observe_uplink(d, &rst, 10));
    assert_false(ack_arrives(d, 40000, 1448, 20)); /* 40001's segment is still the AP's to send */
    assert_true(adw_drain_awaits_downlink_acks(d));
    rst.ack = 500 + 1448; /* a reset that acknowledges the batch drains the flow */
    assert_true(adw_drain_observe_uplink(d, &rst, 30));
}

/* After the STA's RST, what was still queued for the connection goes to the AP and is never acknowledged: the STA
 * answers each segment of it with a RST, and the drain ends when every segment released to it has been answered
 * (the AP's air is busy until then: a conflicting pair released earlier collides with it). Until a SYN opens the
 * flow again. */
static void test_data_released_after_the_sta_reset_drains_with_the_stas_rsts(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_data(d, 40000, 0, 1448, 0);
    assert_true(adw_drain_end_release(d));
    struct adw_tcp_meta rst = ack(40000, 0);
    rst.flags = ADW_TCP_RST | ADW_TCP_ACK;
    assert_false(adw_drain_observe_uplink(d, &rst, 10));
    adw_drain_abandon(d); /* the batch in the air when the STA reset is closed by its pair's next slice */
    adw_drain_begin(d, 40);
    release_segments(d, 40000, 1448, 1448, 3, 40);
    assert_true(adw_drain_end_release(d)); /* three segments the AP still sends */
    assert_true(adw_drain_awaits_downlink_acks(d));
    struct adw_tcp_meta answer = {.is_tcp = true, .flags = ADW_TCP_RST, .key = flow(40000)};
    assert_false(adw_drain_observe_uplink(d, &answer, 42));
    assert_false(adw_drain_observe_uplink(d, &answer, 43));
    assert_true(adw_drain_awaits_downlink_acks(d));
    assert_false(ack_arrives(d, 40000, 5 * 1448, 44)); /* an ACK is no answer to a reset connection's data */
    assert_true(adw_drain_observe_uplink(d, &answer, 45)); /* the third segment's RST: all three delivered */
    assert_false(adw_drain_awaits_downlink_acks(d));
    adw_drain_begin(d, 80);
    struct adw_tcp_meta syn = {.is_tcp = true, .flags = ADW_TCP_SYN | ADW_TCP_ACK, .seq_end = 1001, .key = flow(40000)};
    adw_drain_note_released(d, &syn, 80);
    assert_true(adw_drain_end_release(d)); /* a new connection on the same ports is waited for by its ACKs again */
    assert_false(adw_drain_observe_uplink(d, &answer, 81)); /* a RST answers data released after a reset only */
}

/* The server's RST released on the flow at sta_port. */
static void release_server_rst(struct adw_drain *d, uint16_t sta_port, uint32_t seq, uint64_t now_ns)
{
    struct adw_tcp_meta rst = data(sta_port, seq, 0);
    rst.flags = ADW_TCP_RST | ADW_TCP_ACK;
    adw_drain_note_released(d, &rst, now_ns);
}

/* A server's RST ends the wait for its flow, which nothing acknowledges now; only one behind data of the flow no ACK
 * reported leaves that data unreported (drain.h). A RST of a flow whose data was all acknowledged before leaves the
 * drain measured by the other flows' ACKs. */
static void test_a_server_rst_leaves_the_drain_unmeasured_only_behind_unacknowledged_data(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_segments(d, 40000, 0, 1448, 3, 0);
    release_server_rst(d, 40000, 3 * 1448, 0);
    assert_false(adw_drain_end_release(d)); /* ended at once, for scheduling */
    assert_true(adw_drain_reset_unacked(d));
    adw_drain_begin(d, 40);
    release_segments(d, 40001, 0, 1448, 3, 40);
    assert_true(adw_drain_end_release(d));
    assert_true(ack_arrives(d, 40001, 3 * 1448, 45));
    adw_drain_begin(d, 80);
    release_server_rst(d, 40001, 3 * 1448, 80); /* all of 40001's data acknowledged in the batch before */
    release_segments(d, 40002, 0, 1448, 3, 80);
    assert_true(adw_drain_end_release(d));
    assert_true(ack_arrives(d, 40002, 3 * 1448, 85));
    assert_false(adw_drain_reset_unacked(d));
}

/* Data released after the RST goes after the reset flow's data (release order): what reports it reports both. */
static void test_data_released_after_a_server_rst_measures_the_drain_again(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_segments(d, 40001, 0, 1448, 3, 0);
    release_segments(d, 40000, 0, 1448, 3, 0);
    release_server_rst(d, 40000, 3 * 1448, 0);
    assert_true(adw_drain_reset_unacked(d));
    release_segments(d, 40001, 3 * 1448, 1448, 1, 0);
    assert_false(adw_drain_reset_unacked(d));
    assert_true(adw_drain_end_release(d));
    assert_true(ack_arrives(d, 40001, 4 * 1448, 5));
    assert_false(adw_drain_reset_unacked(d));
}

/* Data released to a connection the STA reset awaits the STA's RSTs (drain.h); the server's RST behind it ends that
 * wait with the data as unreported as unacknowledged data. */
static void test_a_server_rst_behind_data_to_a_connection_the_sta_reset_leaves_the_drain_unmeasured(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_data(d, 40000, 0, 1448, 0);
    assert_true(adw_drain_end_release(d));
    struct adw_tcp_meta rst = ack(40000, 1448);
    rst.flags = ADW_TCP_RST | ADW_TCP_ACK;
    assert_true(adw_drain_observe_uplink(d, &rst, 10));
    adw_drain_begin(d, 40);
    release_segments(d, 40000, 1448, 1448, 3, 40);
    assert_false(adw_drain_reset_unacked(d));
    release_server_rst(d, 40000, 4 * 1448, 40);
    assert_false(adw_drain_end_release(d));
    assert_true(adw_drain_reset_unacked(d));
}

static void test_fin_from_the_sta_drains_the_data_it_acknowledges(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_data(d, 40000, 0, 100, 0);
    assert_true(adw_drain_end_release(d));
    struct adw_tcp_meta fin = ack(40000, 50);
    fin.flags = ADW_TCP_FIN | ADW_TCP_ACK;
    assert_false(adw_drain_observe_uplink(d, &fin, 7)); /* 50 of the 100 bytes are still in the air */
    fin.ack = 100;
    assert_true(adw_drain_observe_uplink(d, &fin, 8));
}

/* An uplink transfer the STA ends (FIN) sends nothing more: its drain does not wait for the bytes it was allowed. */
static void test_fin_from_the_sta_ends_its_uplink_transfer(void **st)
{
    (void)st;
    struct adw_drain *d = uplink_drain_after_first_ack(40000, 100000);
    struct adw_tcp_meta a = ack(40000, 100000);
    a.ack = 100000 + 2896;
    adw_drain_note_released(d, &a, 1000);
    assert_true(adw_drain_end_release(d));
    struct adw_tcp_meta fin = {.is_tcp = true, .flags = ADW_TCP_FIN | ADW_TCP_ACK, .key = flow(40000)};
    assert_true(adw_drain_observe_uplink(d, &fin, 2000));
}

static void test_uplink_drain_ends_when_acked_bytes_come_back(void **st)
{
    (void)st;
    struct adw_drain *d = uplink_drain_after_first_ack(40000, 100000);
    struct adw_tcp_meta a = ack(40000, 100000);
    /* Batch 2: the server's ACKs advance by 4 x 2896 bytes: the STA may now send 11584 bytes. */
    for (uint32_t i = 1; i <= 4; i++) {
        a.ack = 100000 + i * 2896;
        adw_drain_note_released(d, &a, 1000);
    }
    assert_true(adw_drain_end_release(d));
    struct adw_tcp_meta up = {.is_tcp = true, .flags = ADW_TCP_ACK, .payload_len = 1448, .key = flow(40000)};
    for (int i = 0; i < 7; i++)
        assert_false(adw_drain_observe_uplink(d, &up, 2000 + i));
    assert_true(adw_drain_observe_uplink(d, &up, 3000));
}

static void test_acks_of_other_flows_do_not_end_the_drain(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    release_data(d, 40000, 0, 1448, 0);
    assert_true(adw_drain_end_release(d));
    assert_false(ack_arrives(d, 40002, 999999, 5));
    assert_true(d->open);
}

/* Only released downlink data makes a batch wait for ACKs; a batch of released ACKs waits for uplink bytes. */
static void test_drain_awaits_downlink_acks_only_for_released_data(void **st)
{
    (void)st;
    struct adw_drain *d = drain_opened_at(0);
    struct adw_tcp_meta a = ack(40000, 100000);
    adw_drain_note_released(d, &a, 0);
    assert_false(adw_drain_end_release(d));
    adw_drain_begin(d, 10);
    a.ack = 100000 + 2896;
    adw_drain_note_released(d, &a, 10);
    assert_true(adw_drain_end_release(d)); /* open: 2896 uplink bytes expected */
    assert_false(adw_drain_awaits_downlink_acks(d));
    adw_drain_abandon(d);
    adw_drain_begin(d, 20);
    release_data(d, 40001, 0, 1448, 20);
    assert_true(adw_drain_end_release(d));
    assert_true(adw_drain_awaits_downlink_acks(d));
    assert_true(ack_arrives(d, 40001, 1448, 30));
    assert_false(adw_drain_awaits_downlink_acks(d));
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
        cmocka_unit_test(test_sack_above_a_retransmitted_hole_does_not_end_its_drain),
        cmocka_unit_test(test_sack_of_the_last_segment_ends_the_drain_when_the_one_before_is_lost),
        cmocka_unit_test(test_sack_of_data_below_the_second_retransmitted_hole_does_not_end_the_drain),
        cmocka_unit_test(test_two_retransmitted_holes_and_one_new_segment_drain_when_all_but_the_new_segment_is_acked),
        cmocka_unit_test(test_two_adjacent_retransmissions_drain_by_the_sack_of_the_second_when_the_first_is_lost_again),
        cmocka_unit_test(test_two_retransmitted_holes_in_one_batch_drain_when_the_second_is_repaired),
        cmocka_unit_test(test_two_adjacent_retransmissions_drain_when_the_second_is_acknowledged),
        cmocka_unit_test(test_two_retransmitted_holes_and_new_data_drain_when_all_but_the_last_new_segment_is_acked),
        cmocka_unit_test(test_two_retransmitted_holes_drain_by_a_sack_block_edge_when_the_first_is_lost_again),
        cmocka_unit_test(test_two_holes_retransmitted_in_different_batches_drain_each_at_its_repair),
        cmocka_unit_test(test_new_data_released_before_a_hole_repair_drains_when_the_repair_is_acknowledged),
        cmocka_unit_test(test_a_hole_repair_released_last_drains_at_its_ack_when_a_new_segment_before_it_was_lost),
        cmocka_unit_test(test_a_tail_loss_probe_released_before_a_hole_repair_drains_when_the_repair_is_acknowledged),
        cmocka_unit_test(test_a_spurious_tail_probe_before_a_hole_repair_does_not_drain_at_an_earlier_duplicate_ack),
        cmocka_unit_test(test_a_hole_repair_released_before_a_tail_loss_probe_drains_at_its_ack_with_the_probe_owed),
        cmocka_unit_test(test_two_hole_repairs_released_in_reverse_order_drain_when_the_lower_is_acknowledged),
        cmocka_unit_test(test_lost_final_ack_leaves_drain_open),
        cmocka_unit_test(test_rst_from_the_sta_drains_only_what_its_ack_covers),
        cmocka_unit_test(test_data_released_after_the_sta_reset_drains_with_the_stas_rsts),
        cmocka_unit_test(test_a_server_rst_leaves_the_drain_unmeasured_only_behind_unacknowledged_data),
        cmocka_unit_test(test_data_released_after_a_server_rst_measures_the_drain_again),
        cmocka_unit_test(test_a_server_rst_behind_data_to_a_connection_the_sta_reset_leaves_the_drain_unmeasured),
        cmocka_unit_test(test_fin_from_the_sta_drains_the_data_it_acknowledges),
        cmocka_unit_test(test_fin_from_the_sta_ends_its_uplink_transfer),
        cmocka_unit_test(test_uplink_drain_ends_when_acked_bytes_come_back),
        cmocka_unit_test(test_uplink_bytes_expected_beyond_the_ack_carried_by_released_data),
        cmocka_unit_test(test_fin_after_the_flow_drained_leaves_no_uplink_bytes_to_wait_for),
        cmocka_unit_test(test_acks_of_other_flows_do_not_end_the_drain),
        cmocka_unit_test(test_drain_awaits_downlink_acks_only_for_released_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
