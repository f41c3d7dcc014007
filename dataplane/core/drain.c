/* drain.c — drain-time inference, 004 §5; see drain.h for the rules. */
#include "drain.h"

#include <string.h>

#include "flow_hash.h"

#define ALL_FLOWS ((uint32_t)((1ull << ADW_DRAIN_MAX_FLOWS) - 1u))

static bool key_eq(const struct adw_flow_key *a, const struct adw_flow_key *b)
{
    if (a->family != b->family || a->srv_port != b->srv_port || a->sta_port != b->sta_port)
        return false;
    if (a->family == 4) /* constant sizes: compared inline, not by a library call per uplink packet */
        return memcmp(a->srv_ip, b->srv_ip, 4) == 0 && memcmp(a->sta_ip, b->sta_ip, 4) == 0;
    return memcmp(a->srv_ip, b->srv_ip, 16) == 0 && memcmp(a->sta_ip, b->sta_ip, 16) == 0;
}

static bool flow_open(const struct adw_drain_flow *f) { return f->down_open || f->rst_open || f->up_open; }

void adw_drain_reset(struct adw_drain *d) { memset(d, 0, sizeof(*d)); }

void adw_drain_begin(struct adw_drain *d, uint64_t now_ns)
{
    d->open = true;
    d->start_ns = now_ns;
    d->release_ns = now_ns;
    d->last_heard_ns = now_ns;
    d->reset_unacked = false;
    d->n_open = 0;
    d->n_tracked = 0;
    d->untracked = 0;
    /* Entries not in use are all zero (taken from a reset table or cleared when taken). */
    for (uint32_t m = d->used; m != 0; m &= m - 1) {
        struct adw_drain_flow *f = &d->flows[__builtin_ctz(m)];
        f->in_batch = f->down_open = f->rst_open = f->up_open = false;
        f->up_expected = f->up_seen = 0;
        f->rst_expected = f->rst_seen = 0;
    }
}

struct adw_drain_flow *adw_drain_lookup(struct adw_drain *d, const struct adw_flow_key *k, uint32_t hash)
{
    for (uint32_t m = d->used; m != 0; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if (d->hash[i] == hash && key_eq(&d->flows[i].key, k))
            return &d->flows[i];
    }
    return NULL;
}

/* Finds the flow or takes the first free entry, else evicts the least recently seen flow not in this batch (the
 * first of equals). */
static struct adw_drain_flow *find_or_add(struct adw_drain *d, const struct adw_flow_key *k, uint64_t now_ns)
{
    uint32_t h = adw_flow_key_hash(k);
    struct adw_drain_flow *f = adw_drain_lookup(d, k, h);
    if (f != NULL)
        return f;
    unsigned v = ADW_DRAIN_MAX_FLOWS;
    if (d->used != ALL_FLOWS) {
        v = (unsigned)__builtin_ctz(~d->used);
    } else {
        for (unsigned i = 0; i < ADW_DRAIN_MAX_FLOWS; i++) {
            const struct adw_drain_flow *c = &d->flows[i];
            if (!c->in_batch && (v == ADW_DRAIN_MAX_FLOWS || c->last_seen_ns < d->flows[v].last_seen_ns))
                v = i;
        }
        if (v == ADW_DRAIN_MAX_FLOWS)
            return NULL;
    }
    f = &d->flows[v];
    memset(f, 0, sizeof(*f));
    f->key = *k;
    f->last_seen_ns = now_ns;
    d->used |= 1u << v;
    d->hash[v] = h;
    return f;
}

/* Applies a change of the flow's open state to the batch's count of open flows. */
static void settle(struct adw_drain *d, struct adw_drain_flow *f, bool was_open)
{
    bool is_open = flow_open(f);
    if (was_open && !is_open)
        d->n_open--;
    else if (!was_open && is_open)
        d->n_open++;
}

static void close_flow(struct adw_drain *d, struct adw_drain_flow *f)
{
    bool was = flow_open(f);
    f->down_open = f->rst_open = f->up_open = false;
    f->have_last_ack = false;
    settle(d, f, was);
}

void adw_drain_note_released(struct adw_drain *d, const struct adw_tcp_meta *m, uint64_t now_ns)
{
    if (!d->open || !m->is_tcp)
        return;
    struct adw_drain_flow *f = find_or_add(d, &m->key, now_ns);
    if (f == NULL) {
        d->untracked++;
        return;
    }
    f->last_seen_ns = now_ns;
    if (!f->in_batch) {
        f->in_batch = true;
        d->n_tracked++;
    }
    bool was = flow_open(f);
    if (m->flags & ADW_TCP_RST) {
        /* Nothing acknowledges the RST, so the flow waits for nothing more; but its data released before is still
         * the AP's to send, and nothing will report it (drain.h). */
        if (f->down_open || f->rst_open)
            d->reset_unacked = true;
        close_flow(d, f);
        return;
    }
    bool carries_seq = m->payload_len > 0 || (m->flags & (ADW_TCP_SYN | ADW_TCP_FIN));
    if (carries_seq) /* the AP sends it after the reset flow's data: what reports it reports that data too */
        d->reset_unacked = false;
    if (m->flags & ADW_TCP_SYN)
        f->sta_reset = false;
    if (carries_seq && f->sta_reset) {
        /* Queued for a connection the STA reset: the AP sends it, the STA answers each segment with a RST (drain.h). */
        f->rst_expected++;
        f->rst_open = f->rst_seen < f->rst_expected;
        settle(d, f, was);
        return;
    }
    if (carries_seq) {
        /* Downlink data: the drain waits for the ACK of the highest end (retransmissions never lower it). */
        uint32_t start = m->seq_end - m->payload_len - ((m->flags & (ADW_TCP_SYN | ADW_TCP_FIN)) ? 1u : 0u);
        if (!f->down_open || adw_seq_lt(start, f->first_seq))
            f->first_seq = start;
        if (!f->down_open || adw_seq_lt(f->end_seq, m->seq_end)) {
            /* The byte before the new last segment is the batch's only if the batch released the segment ending
             * there: new data follows the previous end, a hole's retransmission does not (below it lies data the
             * STA reported before the batch). */
            f->tail_joined = f->down_open && start == f->end_seq;
            f->end_seq = m->seq_end;
            f->last_start = start;
        } else if (m->seq_end == f->last_start) {
            f->tail_joined = true; /* the segment before the last, released after it */
        }
        f->rel_end = m->seq_end;
        f->down_open = true;
        /* Its ACK number reaches the STA too: a later ACK frees only what it acknowledges beyond this one. The bytes
         * it frees are not awaited (this flow's drain is its data's ACK). It only moves a known last ACK: taken from
         * a SYN-ACK, the server's first pure ACK (of an HTTP request) would await request bytes already sent. */
        if ((m->flags & ADW_TCP_ACK) && f->have_last_ack && adw_seq_lt(f->last_ack_released, m->ack))
            f->last_ack_released = m->ack;
    } else if (m->flags & ADW_TCP_ACK) {
        /* Uplink transfer: this ACK frees the STA to send what it acknowledges beyond the previous one. */
        if (f->have_last_ack && adw_seq_lt(f->last_ack_released, m->ack)) {
            f->up_expected += (uint32_t)(m->ack - f->last_ack_released);
            f->up_open = f->up_seen < f->up_expected;
        }
        if (!f->have_last_ack || adw_seq_lt(f->last_ack_released, m->ack)) {
            f->last_ack_released = m->ack;
            f->have_last_ack = true;
        }
    }
    settle(d, f, was);
}

bool adw_drain_end_release(struct adw_drain *d)
{
    if (d->open && d->n_open == 0)
        d->open = false;
    return d->open;
}

/* True if a SACK block of m holds the byte at sequence `byte` (left edge at or below it, right edge past it). */
static bool sacked(const struct adw_tcp_meta *m, uint32_t byte)
{
    for (unsigned b = 0; b < m->n_sack; b++)
        if (adw_seq_geq(byte, m->sack_left[b]) && adw_seq_lt(byte, m->sack_right[b]))
            return true;
    return false;
}

/* True if m reports the segment ending at `end` received: its ACK covers it, or a SACK block holds its last byte. */
static bool reports_received(const struct adw_tcp_meta *m, uint32_t end)
{
    return ((m->flags & ADW_TCP_ACK) && adw_seq_geq(m->ack, end)) || sacked(m, end - 1u);
}

/* True if a SACK block of m holds a byte at or past sequence `end`. */
static bool sacks_past(const struct adw_tcp_meta *m, uint32_t end)
{
    for (unsigned b = 0; b < m->n_sack; b++)
        if (adw_seq_lt(end, m->sack_right[b]))
            return true;
    return false;
}

bool adw_drain_observe_uplink(struct adw_drain *d, const struct adw_tcp_meta *m, uint64_t now_ns)
{
    if (!m->is_tcp)
        return false;
    struct adw_drain_flow *f = adw_drain_lookup(d, &m->key, adw_flow_key_hash(&m->key));
    if (f == NULL)
        return false;
    f->last_seen_ns = now_ns;
    bool answers_reset_data = (m->flags & ADW_TCP_RST) && f->sta_reset; /* a RST to data sent after the reset */
    if (m->flags & ADW_TCP_RST)
        f->sta_reset = true;
    /* The STA closed: the server's ACK of its FIN frees nothing it will send, whether or not a batch waits on the
     * flow now (a flow already drained in a batch another flow keeps open included). */
    if (m->flags & (ADW_TCP_RST | ADW_TCP_FIN))
        f->have_last_ack = false;
    if (!d->open || !f->in_batch)
        return false;
    bool was = flow_open(f);
    if (!was)
        return false;
    d->last_heard_ns = now_ns;
    if (f->down_open) {
        /* All but a delayed-ACK's worth (the last segment) acknowledged: see drain.h. Not if the STA holds data
         * beyond the last segment: that segment then fills a hole and is acknowledged at once (RFC 5681 §4.2), so
         * it is still in the AP's queue or the air (two holes retransmitted in one batch: the first's repair). */
        uint32_t need = adw_seq_lt(f->first_seq, f->last_start) ? f->last_start : f->end_seq;
        /* A SACK block reports the bytes it spans only, and V ends at the ACK of the batch's data (004 §5): it
         * must hold the batch's last byte (the last segment arrived, whatever was lost before it), or the byte
         * before the last segment if the batch released it (a delayed ACK's worth owed). One wholly above them
         * reports data beyond a hole, received before the retransmission filling the hole was; with two holes
         * retransmitted in one batch, the byte before the second one's is data the STA SACKed before the batch. */
        bool acked = reports_received(m, f->end_seq);
        if (!acked && !sacks_past(m, f->end_seq)) /* the last segment may be owed */
            acked = ((m->flags & ADW_TCP_ACK) && adw_seq_geq(m->ack, need)) ||
                    (f->tail_joined && sacked(m, f->last_start - 1u));
        /* A segment released after the highest one is still in the AP's queue or the air when the STA reports the
         * highest (drain.h); it fills a hole or arrives out of order, so its ACK or SACK is not delayed. Both are
         * needed: its bytes alone may be data the STA held before (a spurious retransmission). */
        if (acked && f->rel_end != f->end_seq)
            acked = reports_received(m, f->rel_end);
        if (acked)
            f->down_open = false;
    }
    if (f->rst_open && answers_reset_data && ++f->rst_seen >= f->rst_expected)
        f->rst_open = false;
    if (m->flags & (ADW_TCP_RST | ADW_TCP_FIN)) {
        /* The STA closed: nothing more comes up, but what was released down is still the AP's to send. */
        f->up_open = false;
    } else if (f->up_open) {
        f->up_seen += m->payload_len;
        if (f->up_seen >= f->up_expected)
            f->up_open = false;
    }
    settle(d, f, was);
    if (d->n_open == 0) {
        d->open = false;
        return true;
    }
    return false;
}

/* What a flow of the batch still waits for: the ACK of released downlink data, or the RSTs that answer data
 * released to a connection the STA reset (either way the data is still the AP's to send); or uplink bytes. */
static bool awaits_downlink(const struct adw_drain_flow *f) { return f->down_open || f->rst_open; }
static bool awaits_reset_ack(const struct adw_drain_flow *f) { return f->down_open && f->sta_reset; }
static bool awaits_uplink(const struct adw_drain_flow *f) { return f->up_open; }

/* True if some flow of the batch satisfies `awaits`. */
static bool batch_flow_awaits(const struct adw_drain *d, bool (*awaits)(const struct adw_drain_flow *))
{
    for (uint32_t m = d->used; m != 0; m &= m - 1) {
        const struct adw_drain_flow *f = &d->flows[__builtin_ctz(m)];
        if (f->in_batch && awaits(f))
            return true;
    }
    return false;
}

bool adw_drain_awaits_downlink_acks(const struct adw_drain *d)
{
    return d->open && batch_flow_awaits(d, awaits_downlink);
}

bool adw_drain_awaits_reset_flow(const struct adw_drain *d) { return batch_flow_awaits(d, awaits_reset_ack); }

bool adw_drain_reset_unacked(const struct adw_drain *d) { return d->reset_unacked; }

bool adw_drain_awaits_only_uplink_bytes(const struct adw_drain *d)
{
    /* untracked: a flow beyond the table may be downlink data */
    return d->untracked == 0 && !batch_flow_awaits(d, awaits_downlink) && batch_flow_awaits(d, awaits_uplink);
}

void adw_drain_abandon(struct adw_drain *d) { d->open = false; }

void adw_drain_forget_released_acks(struct adw_drain *d)
{
    for (uint32_t m = d->used; m != 0; m &= m - 1)
        d->flows[__builtin_ctz(m)].have_last_ack = false;
}
