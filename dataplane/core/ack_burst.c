/* ACK-burst aggregation-level estimator of one pair (001 §4.1) and loss signals (001 §5); see ack_burst.h. */
#include "ack_burst.h"

#include <math.h>
#include <string.h>

#include "drain.h"
#include "flow_hash.h"
#include "parse.h"

void adw_ack_est_init(struct adw_ack_est *e)
{
    memset(e, 0, sizeof(*e));
    e->mss = ADW_ACK_DEFAULT_MSS;
}

/* The flow's entry: the first in use with its hash; else a new one in the last free entry, or in place of the least
 * recently seen (the first of equals) when the table is full. */
static struct adw_ack_flow *flow_of(struct adw_ack_est *e, const struct adw_flow_key *k, uint64_t now_ns)
{
    uint32_t h = adw_flow_key_hash(k);
    for (unsigned m = e->used; m != 0; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctz(m);
        if (e->hash[i] == h) {
            e->flows[i].last_seen_ns = now_ns;
            return &e->flows[i];
        }
    }
    unsigned v = 0;
    unsigned free_mask = ~e->used & ((1u << ADW_ACK_FLOWS) - 1u);
    if (free_mask != 0) {
        v = 31u - (unsigned)__builtin_clz(free_mask);
    } else {
        for (unsigned i = 1; i < ADW_ACK_FLOWS; i++)
            if (e->flows[i].last_seen_ns < e->flows[v].last_seen_ns)
                v = i;
    }
    struct adw_ack_flow *f = &e->flows[v];
    memset(f, 0, sizeof(*f));
    f->last_seen_ns = now_ns;
    e->used = (uint8_t)(e->used | 1u << v);
    e->hash[v] = h;
    return f;
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
            e->acked_segs += segs;
            e->last_adv_ns = now_ns;
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
            /* the gap first: it needs no exp() */
            first = dt >= e->min_gap_ns && adw_ack_model_prob(model, x) >= model->threshold;
        }
    }
    e->have_last = true;
    e->last_ns = now_ns;
    if (first)
        close_burst(e);
    e->burst_open = true;
    e->burst_segs += segs;
}

double adw_ack_est_take_raw(struct adw_ack_est *e, uint32_t *bursts)
{
    *bursts = e->n_bursts;
    double mean = e->n_bursts > 0 ? e->sum_segs / e->n_bursts : -1.0;
    e->sum_segs = 0;
    e->n_bursts = 0;
    return mean;
}

/* Entry of a per-STA-count table of n entries for `stas` STAs: the first below one STA, the last beyond the table. */
static double by_stas(const double *table, uint8_t n, uint32_t stas)
{
    uint32_t k = stas < 1 ? 1 : stas > n ? n : stas;
    return table[k - 1];
}

double adw_ack_model_min_gap_us(const struct adw_ack_model *model, uint32_t stas)
{
    return model->n_gap_by_stas > 0 ? by_stas(model->gap_by_stas_us, model->n_gap_by_stas, stas) : 0.0;
}

double adw_ack_model_estimate(const struct adw_ack_model *model, double raw, uint32_t stas)
{
    double scale = model->n_scale_by_stas > 0 ? by_stas(model->scale_by_stas, model->n_scale_by_stas, stas)
                                              : model->scale;
    double est = scale * raw;
    return model->n_max > 0 && est > model->n_max ? model->n_max : est;
}

bool adw_ack_est_receiving(const struct adw_ack_est *e, uint64_t now_ns)
{
    return e->last_adv_ns > 0 && (now_ns <= e->last_adv_ns || now_ns - e->last_adv_ns <= ADW_ACK_ACTIVE_NS);
}

double adw_ack_est_take_acked(struct adw_ack_est *e)
{
    double segs = e->acked_segs;
    e->acked_segs = 0;
    return segs;
}

double adw_ack_est_loss_frac(const struct adw_ack_est *e)
{
    return e->loss_n > 0 ? (double)e->loss_ones / e->loss_n : 0.0;
}
