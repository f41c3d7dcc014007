/* ack_delay.c — release-to-ACK delay of one paced pair; see ack_delay.h. */
#include "ack_delay.h"

#include <string.h>

#include "drain.h"
#include "flow_hash.h"

static void restart_interval(struct adw_ack_delay *d)
{
    d->n = 0;
    d->sum_ns = 0;
    d->min_ns = UINT64_MAX;
}

void adw_ack_delay_init(struct adw_ack_delay *d)
{
    memset(d, 0, sizeof(*d));
    restart_interval(d);
}

void adw_ack_delay_released(struct adw_ack_delay *d, const struct adw_tcp_meta *m, uint64_t now_ns)
{
    if (!m->is_tcp || m->payload_len == 0)
        return;
    if (d->open && now_ns - d->sent_ns > ADW_ACK_DELAY_GIVE_UP_NS)
        d->open = false;
    if (d->open) {
        /* the sequence first: the flow's hash is needed only for a segment that does not end beyond the timed one */
        if (adw_seq_geq(d->seq_end, m->seq_end) && adw_flow_key_hash(&m->key) == d->hash)
            d->open = false; /* Karn: a retransmission at or before the timed segment */
        return;
    }
    d->open = true;
    d->hash = adw_flow_key_hash(&m->key);
    d->seq_end = m->seq_end;
    d->sent_ns = now_ns;
}

void adw_ack_delay_observe_ack(struct adw_ack_delay *d, const struct adw_tcp_meta *m, uint64_t now_ns)
{
    if (!d->open || !m->is_tcp || !(m->flags & ADW_TCP_ACK) || !adw_seq_geq(m->ack, d->seq_end))
        return;
    if (adw_flow_key_hash(&m->key) != d->hash)
        return;
    d->open = false;
    uint64_t dt = now_ns > d->sent_ns ? now_ns - d->sent_ns : 0;
    if (dt > ADW_ACK_DELAY_GIVE_UP_NS)
        return;
    d->n++;
    d->sum_ns += dt;
    if (dt < d->min_ns)
        d->min_ns = dt;
}

uint32_t adw_ack_delay_take(struct adw_ack_delay *d, uint64_t *mean_ns, uint64_t *min_ns)
{
    uint32_t n = d->n;
    *mean_ns = n > 0 ? d->sum_ns / n : 0;
    *min_ns = n > 0 ? d->min_ns : 0;
    restart_interval(d);
    return n;
}
