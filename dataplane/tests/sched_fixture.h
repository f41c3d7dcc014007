/*
 * sched_fixture.h — what the tests that drive the scheduling core through its public API (adwiser/sched.h)
 * share: the scheduler on the 2AP-2STA lab (AP1-STA1 in slice 0, AP2-STA2 in slice 1, 20 ms each, frame 40 ms)
 * as a cmocka fixture, and the lab's TCP headers between the server and a STA.
 */
#ifndef ADW_TEST_SCHED_FIXTURE_H
#define ADW_TEST_SCHED_FIXTURE_H

#include <stdint.h>

#include "adwiser/sched.h"
#include "frame_builder.h"

struct sched_fixture {
    struct adw_config *cfg; /* the lab configuration the scheduler was created from; tests may edit and re-apply it */
    struct adw_sched *s;
};

/* cmocka setup: *state = a struct sched_fixture with a fresh scheduler; -1 (reason on stderr) if it is refused. */
int sched_fixture_setup(void **state);
/* cmocka teardown: frees what sched_fixture_setup made (and any scheduler a test put in its place). */
int sched_fixture_teardown(void **state);
/* A test run on the fixture, for a suite's list in main. */
#define LAB_TEST(test) cmocka_unit_test_setup_teardown(test, sched_fixture_setup, sched_fixture_teardown)

/* Replaces f->s by a scheduler created at time 0 from f->cfg as the test edited it (prm NULL: the defaults);
 * f->s is NULL if the edited configuration is refused. */
void sched_fixture_recreate(struct sched_fixture *f, const struct adw_sched_params *prm);

/* Frame buffers of 1600 bytes for the packets a test hands the scheduler, reused round-robin after
 * SCHED_FIXTURE_BUFS (sched_fixture_setup starts over from the first). */
#define SCHED_FIXTURE_BUFS 4096
uint8_t *lab_buf(void);
/* lab_down_tcp in the next buffer, arriving from the server's port (0). */
struct adw_pkt lab_down_pkt(unsigned sta, uint32_t seq, uint32_t payload);
/* lab_up_ack in the next buffer, arriving from the STA's AP port (sta + 1). */
struct adw_pkt lab_up_ack_pkt(unsigned sta, uint32_t ackno);

/* A downlink voice packet (UDP 5004, DSCP EF, 20 bytes of payload) server -> STA sta, in the next buffer. */
struct adw_pkt lab_voice_pkt(unsigned sta);

/* One packet through adw_sched_enqueue_burst at now: its verdict. */
enum adw_verdict sched_enqueue1(struct adw_sched *s, struct adw_pkt *p, uint64_t now);
/* n lab_down_pkt segments of 1448 bytes to sta from sequence seq (1448 apart), arriving at now: how many the
 * scheduler queued. */
unsigned lab_enqueue_data(struct adw_sched *s, unsigned sta, uint32_t seq, unsigned n, uint64_t now);
/* lab_enqueue_data, and the test fails unless the scheduler queued every one. */
void lab_queue_segments(struct adw_sched *s, unsigned sta, uint32_t seq, unsigned n, uint64_t now);
/* STA sta (0/1) acknowledges its first `segments` segments of 1448 bytes from sequence 1 (lab_up_ack_pkt) at now;
 * the test fails unless the scheduler passes the ACK. */
void lab_sta_acks(struct adw_sched *s, unsigned sta, unsigned segments, uint64_t now);
/* The pacing rate (bit/s) that releases one lab_down_pkt(.., 1448) a millisecond: x_i counts IP bytes, the frame
 * less its 14-byte Ethernet header. */
uint64_t lab_one_per_ms_bps(void);
/* Everything the scheduler hands out at now, into sched_out (from index 0): how many. The test fails if it is
 * more than sched_out holds. */
#define SCHED_OUT_CAP 8192
extern struct adw_pkt sched_out[SCHED_OUT_CAP];
unsigned sched_dequeue_all(struct adw_sched *s, uint64_t now);
/* The test fails unless sched_out[0 .. n-1] all go out of port. */
void sched_assert_out_to(unsigned n, uint16_t port);
/* The scheduler's counters now. */
struct adw_stats sched_stats(struct adw_sched *s);
/* A finished frame's reports: the frame's and its two pairs'. */
struct sched_frame {
    struct adw_frame_report fr;
    struct adw_pair_report pr[2];
};
/* The next finished frame's reports; the test fails unless one is ready. */
struct sched_frame sched_next_frame(struct adw_sched *s);

/* Downlink TCP server:80 -> STA sta (0/1):40000 with ACK set, `payload` bytes (0 = pure ACK). */
struct fb_tcp lab_down_tcp(unsigned sta, uint32_t seq, uint32_t payload);
/* Uplink pure ACK STA sta (0/1):40000 -> server:80 acknowledging ackno. */
struct fb_tcp lab_up_ack(unsigned sta, uint32_t ackno);

#endif
