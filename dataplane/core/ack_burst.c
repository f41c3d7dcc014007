/* ACK-burst aggregation-level estimator of one pair (001 §4.1) and loss signals (001 §5); see ack_burst.h. */
#include "ack_burst.h"

#include <math.h>
#include <string.h>

#include "drain.h"
#include "parse.h"

void adw_ack_est_init(struct adw_ack_est *e)
{
    memset(e, 0, sizeof(*e));
    e->mss = ADW_ACK_DEFAULT_MSS;
}

static uint32_t key_hash(const struct adw_flow_key *k)
{
    uint32_t h = 2166136261u;
    const uint8_t *parts[2] = {k->srv_ip, k->sta_ip};
    for (unsigned p = 0; p < 2; p++)
        for (unsigned i = 0; i < 16; i++)
            h = (h ^ parts[p][i]) * 16777619u;
    h = (h ^ k->srv_port) * 16777619u;
    h = (h ^ k->sta_port) * 16777619u;
    return (h ^ k->family) * 16777619u;
}

/* The flow's entry, taking the least recently seen one when the table is full. */
static struct adw_ack_flow *flow_of(struct adw_ack_est *e, const struct adw_flow_key *k, uint64_t now_ns)
{
    uint32_t h = key_hash(k);
    struct adw_ack_flow *victim = &e->flows[0];
    for (unsigned i = 0; i < ADW_ACK_FLOWS; i++) {
        struct adw_ack_flow *f = &e->flows[i];
        if (f->used && f->hash == h) {
            f->last_seen_ns = now_ns;
            return f;
        }
        if (!f->used || (victim->used && f->last_seen_ns < victim->last_seen_ns))
            victim = f;
    }
    memset(victim, 0, sizeof(*victim));
    victim->used = true;
    victim->hash = h;
    victim->last_seen_ns = now_ns;
    return victim;
}

static void loss_push(struct adw_ack_est *e, bool retrans)
{
    uint16_t i = e->loss_head;
    uint8_t bit = (uint8_t)(1u << (i & 7));
    if (e->loss_n == ADW_ACK_LOSS_WINDOW && (e->loss_bits[i >> 3] & bit))
        e->loss_ones--;
    if (retrans) {
        e->loss_bits[i >> 3] |= bit;
        e->loss_ones++;
    } else {
        e->loss_bits[i >> 3] &= (uint8_t)~bit;
    }
    e->loss_head = (uint16_t)((i + 1) % ADW_ACK_LOSS_WINDOW);
    if (e->loss_n < ADW_ACK_LOSS_WINDOW)
        e->loss_n++;
}

void adw_ack_est_observe_data(struct adw_ack_est *e, const struct adw_tcp_meta *m, uint64_t now_ns)
{
    if (!m->is_tcp || m->payload_len == 0)
        return;
    if (m->payload_len > e->mss)
        e->mss = m->payload_len;
    struct adw_ack_flow *f = flow_of(e, &m->key, now_ns);
    bool retrans = f->have_seq && !adw_seq_lt(f->high_seq_end, m->seq_end);
    if (retrans)
        e->retrans++;
    else {
        f->high_seq_end = m->seq_end;
        f->have_seq = true;
    }
    loss_push(e, retrans);
}

double adw_ack_model_prob(const struct adw_ack_model *model, const double *ia)
{
    unsigned m = model->m;
    double mean = 0, var = 0, z = model->intercept;
    for (unsigned k = 0; k < m; k++)
        mean += ia[k];
    mean /= m;
    for (unsigned k = 0; k < m; k++) {
        var += (ia[k] - mean) * (ia[k] - mean);
        z += model->coef[k] * ia[k];
    }
    z += model->coef[m] * sqrt(var / m);
    return 1.0 / (1.0 + exp(-z));
}

static void close_burst(struct adw_ack_est *e)
{
    if (e->burst_open && e->burst_segs > 0) {
        e->sum_segs += e->burst_segs;
        e->n_bursts++;
    }
    e->burst_segs = 0;
    e->burst_open = false;
}

void adw_ack_est_observe_ack(struct adw_ack_est *e, const struct adw_ack_model *model, const struct adw_tcp_meta *m,
                             uint64_t now_ns)
{
    /* Only pure ACKs are the STA's answer to downlink data; its own data (uplink transfers) is not. */
    if (!m->is_tcp || m->payload_len > 0 || !(m->flags & ADW_TCP_ACK) ||
        (m->flags & (ADW_TCP_SYN | ADW_TCP_FIN | ADW_TCP_RST)))
        return;
    struct adw_ack_flow *f = flow_of(e, &m->key, now_ns);
    double segs = 0;
    if (f->have_ack) {
        int32_t adv = (int32_t)(m->ack - f->last_ack);
        if (adv > 0) {
            segs = (double)adv / (double)e->mss;
            f->last_ack = m->ack;
        } else if (adv == 0) {
            e->dup_acks++;
        }
    } else {
        f->have_ack = true;
        f->last_ack = m->ack;
    }
    bool first = false;
    if (e->have_last) {
        uint64_t dt = now_ns > e->last_ns ? now_ns - e->last_ns : 0;
        e->ia_us[e->ia_head] = (double)dt / 1000.0;
        e->ia_head = (uint16_t)((e->ia_head + 1) % ADW_ACK_MODEL_MAX_M);
        if (e->ia_n < ADW_ACK_MODEL_MAX_M)
            e->ia_n++;
        if (model != NULL && model->m >= 1 && e->ia_n >= model->m) {
            double x[ADW_ACK_MODEL_MAX_M];
            for (unsigned k = 0; k < model->m; k++) /* oldest first: t_{i-m+1} .. t_i */
                x[k] = e->ia_us[(e->ia_head + ADW_ACK_MODEL_MAX_M - model->m + k) % ADW_ACK_MODEL_MAX_M];
            first = adw_ack_model_prob(model, x) >= model->threshold;
        }
    }
    e->have_last = true;
    e->last_ns = now_ns;
    if (first)
        close_burst(e);
    e->burst_open = true;
    e->burst_segs += segs;
}

double adw_ack_est_take(struct adw_ack_est *e, double scale, uint32_t n_max, uint32_t *bursts)
{
    *bursts = e->n_bursts;
    double mean = e->n_bursts > 0 ? scale * e->sum_segs / e->n_bursts : -1.0;
    if (n_max > 0 && mean > n_max)
        mean = n_max;
    e->sum_segs = 0;
    e->n_bursts = 0;
    return mean;
}

double adw_ack_est_loss_frac(const struct adw_ack_est *e)
{
    return e->loss_n > 0 ? (double)e->loss_ones / e->loss_n : 0.0;
}
