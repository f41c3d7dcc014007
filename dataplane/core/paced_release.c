/*
 * paced_release.c — paced mode of the aggregation-target policy (SPEC §3.7,
 * 000 §IV-A, §VI): pairs whose pacing rate x_i is set leave the slice batches
 * and have their downlink queues released by their token bucket (pacer.h)
 * whenever dequeue is called, so the AP receives them evenly spaced and its
 * A-MPDU aggregation level follows x_i (000 eq. (8)). The queues keep their
 * A* limit (SPEC §3.5): the service time sample of eBDP is the pacing
 * interval of each packet, and the queue counts as busy (ALT) while more than
 * one packet waits, so TCP's standing backlog is bounded in the appliance,
 * not left to build in the AP.
 *
 * Also the control-path entry points that set x_i and the ACK-burst model.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sched_internal.h"

/* Packets beyond this many waiting in a paced queue count as busy time for ALT (003 Algorithm 3). */
#define PACED_BUSY_THRESHOLD 1u
#define ETH_HDR_BYTES 14u        /* x_i counts IP packet bytes (the controller's x_pps * packet_bytes * 8, REDIS.md) */

static uint32_t paced_bytes(uint32_t frame_len) { return frame_len > ETH_HDR_BYTES ? frame_len - ETH_HDR_BYTES : 1u; }

static void set_err(char *err, size_t errlen, const char *msg, const char *arg)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, msg, arg);
}

static uint16_t pair_by_name(const struct adw_plan *p, const char *name)
{
    for (uint16_t q = 0; q < p->cfg->n_stas; q++)
        if (strcmp(p->pair_name[q], name) == 0)
            return q;
    return ADW_PAIR_NONE;
}

/* Sets one pair's rate; what a drain it drops held back is left for the caller to release (release_held_back).
 * -1 for an unknown pair, else whether it dropped an open drain. */
static int switch_pair(struct adw_sched *s, const char *pair_name, uint64_t rate_bps, uint64_t now_ns, char *err,
                       size_t errlen)
{
    uint16_t q = pair_name != NULL ? pair_by_name(s->plan, pair_name) : ADW_PAIR_NONE;
    if (q == ADW_PAIR_NONE) {
        set_err(err, errlen, "pacing: unknown pair \"%s\" (not in the configuration in force)",
                pair_name != NULL ? pair_name : "(null)");
        return -1;
    }
    uint16_t slot = s->plan->slot_of_pair[q];
    struct adw_pair_state *ps = &s->slots[slot];
    bool abandoned = false;
    /* The floor of two batches under the A* limit is there for the batches (adw_astar_set_floor): none while paced,
     * where the limit is min(Q_eBDP, q_ALT); back in its slices it holds the next batch and one more again. */
    const struct adw_policies *pol = &s->plan->cfg->policies;
    if (rate_bps > 0 && !adw_pacer_active(&ps->pacer)) {
        abandoned = ps->drain.open;
        if (abandoned)
            adw_drain_abandon(&ps->drain); /* its batch's drain no longer means anything once the pair is paced */
        adw_ack_delay_init(&ps->ack_delay); /* nor a segment timed when it was paced before */
        adw_cancel_deferred(s, ps, now_ns); /* its packets are the pacer's now, not a batch's (deferral.c) */
        adw_astar_set_floor(&ps->astar, &pol->queue_sizing, 0);
    } else if (rate_bps == 0 && adw_pacer_active(&ps->pacer)) {
        adw_astar_set_floor(&ps->astar, &pol->queue_sizing, 2u * adw_tsabr_batch(&ps->tsabr, &pol->ts_abr_qd));
        /* The server's ACKs the pacer released are no batch's, so the drain's last ACK released on each flow is the
         * one from before the pair was paced: the first batch back would await every byte the STA sent since (or,
         * beyond 2^31 bytes, none of the flow's bytes until its ACKs wrap past that stale one). */
        adw_drain_forget_released_acks(&ps->drain);
    }
    adw_pacer_set_rate(&ps->pacer, rate_bps, now_ns);
    if (rate_bps > 0 && !ps->paced_listed) {
        ps->paced_listed = true;
        s->paced[s->n_paced++] = slot;
    }
    /* Leaving paced mode: the slot stays listed until the next prune and is skipped meanwhile. */
    return abandoned;
}

/* What a dropped drain held back, conflicting pairs' batches and real-time packets, is free now, as when a drain
 * ends on its last ACK (sched.c); left waiting, the backend slept to the end of the real-time hold. Called once
 * every pair of the change has its rate and its own deferral is gone, so none of this releases a batch to a pair
 * the same change paces. */
static void release_held_back(struct adw_sched *s, uint64_t now_ns)
{
    if (s->n_deferred > 0 || s->n_rt_pending > 0)
        adw_release_deferred(s, now_ns, false);
}

int adw_sched_set_pacing(struct adw_sched *s, const char *pair_name, uint64_t rate_bps, uint64_t now_ns, char *err,
                         size_t errlen)
{
    int abandoned = switch_pair(s, pair_name, rate_bps, now_ns, err, errlen);
    if (abandoned < 0)
        return -1;
    if (abandoned)
        release_held_back(s, now_ns);
    return 0;
}

void adw_sched_set_pacing_table(struct adw_sched *s, const struct adw_pacing_rate *rates, unsigned n,
                                uint64_t now_ns, bool *known)
{
    bool abandoned = false;
    for (unsigned i = 0; i < n; i++) {
        int r = switch_pair(s, rates[i].pair_name, rates[i].rate_bps, now_ns, NULL, 0);
        if (known != NULL)
            known[i] = r >= 0;
        abandoned = abandoned || r > 0;
    }
    if (abandoned)
        release_held_back(s, now_ns);
}

uint64_t adw_sched_pacing(const struct adw_sched *s, uint16_t pair)
{
    if (pair >= s->plan->cfg->n_stas)
        return 0;
    return s->slots[s->plan->slot_of_pair[pair]].pacer.rate_bps;
}

/* A per-STA-count table of the ACK model (adwiser/ack_model.h): at most ADW_ACK_MODEL_MAX_STAS finite entries, each
 * positive (or >= 0 with zero_ok). 0 if valid, else -1 with err naming the entry. */
static int check_by_stas(const double *table, uint8_t n, const char *name, bool zero_ok, char *err, size_t errlen)
{
    if (n > ADW_ACK_MODEL_MAX_STAS) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "ack model: %s: more than %d entries", name, ADW_ACK_MODEL_MAX_STAS);
        return -1;
    }
    for (unsigned k = 0; k < n; k++)
        if (!(isfinite(table[k]) && (zero_ok ? table[k] >= 0 : table[k] > 0))) {
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "ack model: %s[%u]: must be a number %s", name, k, zero_ok ? ">= 0" : "> 0");
            return -1;
        }
    return 0;
}

int adw_sched_set_ack_model(struct adw_sched *s, const struct adw_ack_model *m, char *err, size_t errlen)
{
    if (m == NULL) {
        s->has_ack_model = false;
        return 0;
    }
    if (m->m < 1 || m->m > ADW_ACK_MODEL_MAX_M) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "ack model: m: %u out of range 1..%u", (unsigned)m->m, ADW_ACK_MODEL_MAX_M);
        return -1;
    }
    if (!(m->threshold > 0 && m->threshold < 1)) {
        set_err(err, errlen, "ack model: threshold: must lie in (0, 1)%s", "");
        return -1;
    }
    if (!(isfinite(m->scale) && m->scale > 0)) {
        set_err(err, errlen, "ack model: scale: must be a positive number%s", "");
        return -1;
    }
    if (check_by_stas(m->scale_by_stas, m->n_scale_by_stas, "scale_by_stas", false, err, errlen) ||
        check_by_stas(m->gap_by_stas_us, m->n_gap_by_stas, "gap_by_stas_us", true, err, errlen))
        return -1;
    if (!isfinite(m->intercept)) {
        set_err(err, errlen, "ack model: intercept: not a finite number%s", "");
        return -1;
    }
    for (unsigned k = 0; k <= m->m; k++)
        if (!isfinite(m->coef[k])) {
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "ack model: coef[%u]: not a finite number", k);
            return -1;
        }
    s->ack_model = *m;
    s->has_ack_model = true;
    return 0;
}

/* Drops slots that left paced mode or the configuration from the paced list. */
void adw_paced_prune(struct adw_sched *s)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->n_paced; i++) {
        struct adw_pair_state *ps = &s->slots[s->paced[i]];
        if (ps->active && adw_pacer_active(&ps->pacer))
            s->paced[k++] = s->paced[i];
        else
            ps->paced_listed = false;
    }
    s->n_paced = k;
}

static void release_paced_pair(struct adw_sched *s, struct adw_pair_state *ps, uint64_t now_ns)
{
    const struct adw_queue_sizing_policy *qp = &s->plan->cfg->policies.queue_sizing;
    bool ack_turn = true, any = false;
    while (ps->q_data.len + ps->q_ack.len > 0 && adw_pacer_may_send(&ps->pacer, now_ns)) {
        struct adw_fifo *q = ack_turn ? &ps->q_ack : &ps->q_data; /* ACK isolation, as in a batch (SPEC §3.6) */
        if (q->len == 0)
            q = ack_turn ? &ps->q_data : &ps->q_ack;
        ack_turn = !ack_turn;
        uint32_t idx = adw_fifo_pop(q, &s->pool);
        struct adw_node *n = adw_node_at(&s->pool, idx);
        adw_pacer_sent(&ps->pacer, paced_bytes(n->pkt.len), now_ns);
        if (q == &ps->q_data)
            adw_ack_delay_released(&ps->ack_delay, &n->meta, now_ns);
        ps->frame_released_pkts++;
        ps->frame_released_bytes += n->pkt.len;
        /* eBDP (003 §IV): this packet's service time is its pacing interval. */
        adw_astar_service_sample(&ps->astar, qp, (double)paced_bytes(n->pkt.len) * 8e9 / (double)ps->pacer.rate_bps);
        adw_fifo_push(&s->due, &s->pool, idx);
        any = true;
    }
    if (any)
        adw_astar_observe(&ps->astar, now_ns, ps->q_data.len + ps->q_ack.len, PACED_BUSY_THRESHOLD);
    /* Packets still waiting: the pacer, not the sender, is the limit until the next release, so a late next call
     * owes them (pacer.h). At most N-bar frames leave on such a catch-up: no more than the aggregation level the
     * policy allows in one A-MPDU (000 §V-A (17)), so the AP can still clear them in one frame. */
    uint64_t frame_bytes = (uint64_t)s->params.mtu_bytes + 18u; /* the one-frame cap of adw_pair_state_init */
    uint64_t backlog_cap = ps->q_data.len + ps->q_ack.len > 0
                               ? (uint64_t)s->plan->cfg->policies.aggregation_target.n_target_max * frame_bytes
                               : 0;
    adw_pacer_backlogged(&ps->pacer, backlog_cap, now_ns);
}

void adw_paced_release(struct adw_sched *s, uint64_t now_ns)
{
    for (uint32_t i = 0; i < s->n_paced; i++) {
        struct adw_pair_state *ps = &s->slots[s->paced[i]];
        if (ps->active && adw_pacer_active(&ps->pacer))
            release_paced_pair(s, ps, now_ns);
    }
}

uint64_t adw_paced_next_ns(const struct adw_sched *s, uint64_t now_ns)
{
    uint64_t next = UINT64_MAX;
    for (uint32_t i = 0; i < s->n_paced; i++) {
        const struct adw_pair_state *ps = &s->slots[s->paced[i]];
        if (!ps->active || !adw_pacer_active(&ps->pacer) || ps->q_data.len + ps->q_ack.len == 0)
            continue;
        uint64_t t = adw_pacer_next_ns(&ps->pacer, now_ns);
        if (t < next)
            next = t;
    }
    return next;
}
