/*
 * sched.c — the public entry points of the scheduling core (adwiser/sched.h):
 * create/free, burst enqueue (parse, classify, drop-tail at the A* limit,
 * drain inference on uplink packets), burst dequeue (advance the slice clock,
 * hand out what is due), configuration staging and the swap at a frame
 * boundary, flush. Nothing here allocates after create except set_config
 * (control path), and nothing reads a clock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "big_alloc.h"
#include "realtime_release.h"
#include "sched_internal.h"

void adw_swap_plan(struct adw_sched *s, uint64_t now_ns);

static void set_err(char *err, size_t errlen, const char *msg)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s", msg);
}

void adw_sched_free(struct adw_sched *s)
{
    if (s == NULL)
        return;
    adw_plan_free(s->plan);
    adw_plan_free(s->staged);
    adw_pool_free(&s->pool);
    adw_big_free(s->slots);
    free(s->rt_pending);
    free(s->in_slice);
    free(s->paced);
    free(s->deferred);
    if (s->ring != NULL)
        for (uint32_t i = 0; i < s->params.report_frames; i++)
            free(s->ring[i].pairs);
    free(s->ring);
    free(s);
}

struct adw_sched *adw_sched_create(const struct adw_sched_params *p, const struct adw_config *cfg, uint64_t now_ns,
                                   char *err, size_t errlen)
{
    struct adw_sched *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        set_err(err, errlen, "out of memory");
        return NULL;
    }
    s->params = p != NULL ? *p : (struct adw_sched_params){0};
    if (s->params.pool_pkts == 0)
        s->params.pool_pkts = 65536;
    if (s->params.report_frames == 0)
        s->params.report_frames = 4;
    if (s->params.mtu_bytes == 0)
        s->params.mtu_bytes = 1500;
    s->plan = adw_plan_build(cfg, NULL, err, errlen);
    if (s->plan == NULL) {
        adw_sched_free(s);
        return NULL;
    }
    s->slots = adw_big_calloc(ADW_MAX_SLOTS, sizeof(*s->slots));
    s->rt_pending = calloc(ADW_MAX_SLOTS, sizeof(uint16_t)); /* lists of slots */
    s->in_slice = calloc(ADW_MAX_SLOTS, 1);                  /* by pair, and by slot at the swap (keep) */
    s->paced = calloc(ADW_MAX_SLOTS, sizeof(uint16_t));
    s->deferred = calloc(ADW_MAX_SLOTS, sizeof(uint16_t));
    s->ring = calloc(s->params.report_frames, sizeof(*s->ring));
    if (s->slots == NULL || s->rt_pending == NULL || s->in_slice == NULL || s->paced == NULL || s->deferred == NULL ||
        s->ring == NULL ||
        adw_pool_init(&s->pool, s->params.pool_pkts) != 0) {
        adw_sched_free(s);
        set_err(err, errlen, "out of memory");
        return NULL;
    }
    for (uint32_t i = 0; i < s->params.report_frames; i++)
        if ((s->ring[i].pairs = calloc(ADW_MAX_PAIRS, sizeof(struct adw_pair_report))) == NULL) {
            adw_sched_free(s);
            set_err(err, errlen, "out of memory");
            return NULL;
        }
    for (uint32_t i = 0; i < ADW_MAX_SLOTS; i++) {
        adw_fifo_init(&s->slots[i].q_data);
        adw_fifo_init(&s->slots[i].q_ack);
        adw_fifo_init(&s->slots[i].q_rt);
    }
    for (uint16_t q = 0; q < s->plan->cfg->n_stas; q++)
        adw_pair_state_init(s, &s->slots[s->plan->slot_of_pair[q]], q, now_ns);
    adw_fifo_init(&s->due);
    adw_slice_clock_init(&s->clock, s->plan->cfg, now_ns);
    return s;
}

int adw_sched_set_config(struct adw_sched *s, const struct adw_config *cfg, uint64_t now_ns, char *err,
                         size_t errlen)
{
    (void)now_ns;
    struct adw_plan *p = adw_plan_build(cfg, s->plan, err, errlen);
    if (p == NULL) {
        s->st.config_rejected++;
        return -1;
    }
    adw_plan_free(s->staged);
    s->staged = p;
    return 0;
}

uint32_t adw_sched_active_version(const struct adw_sched *s) { return s->plan->cfg->version; }

/* Port of AP id in cfg (its index + 1), or ADW_PORT_DROP if cfg has no such AP. */
static uint16_t port_of_ap(const struct adw_config *cfg, const char *ap_id)
{
    for (uint16_t a = 0; a < cfg->n_aps; a++)
        if (strcmp(cfg->aps[a].id, ap_id) == 0)
            return (uint16_t)(a + 1);
    return ADW_PORT_DROP;
}

static void stamp_port(struct adw_sched *s, struct adw_fifo *q, uint16_t port)
{
    for (uint32_t i = q->head; i != ADW_NODE_NONE; i = s->pool.link[i])
        adw_node_at(&s->pool, i)->pkt.out_port = port;
}

/* Every packet a pair holds (its real-time, ACK and data queues) goes to port. */
static void stamp_pair_port(struct adw_sched *s, struct adw_pair_state *ps, uint16_t port)
{
    stamp_port(s, &ps->q_rt, port);
    stamp_port(s, &ps->q_ack, port);
    stamp_port(s, &ps->q_data, port);
}

/* Packets released under the old configuration and not yet handed out carry its port numbers, which a version
 * that reorders aps[] gives to other APs (port k is aps[k-1]): each goes to its AP's port in the new version, or
 * is handed out as a drop (drops_config) if that AP is gone. Ports outside the old AP list (ADW_PORT_DROP of an
 * earlier swap) stay. */
static void restamp_due(struct adw_sched *s, const struct adw_config *old, const struct adw_config *neu)
{
    if (s->due.len == 0)
        return;
    uint16_t map[ADW_MAX_APS + 1];
    bool same = true;
    for (uint16_t a = 0; a < old->n_aps; a++) {
        bool kept = a < neu->n_aps && strcmp(neu->aps[a].id, old->aps[a].id) == 0; /* the usual case: cheap */
        map[a + 1] = kept ? (uint16_t)(a + 1) : port_of_ap(neu, old->aps[a].id);
        same = same && kept;
    }
    if (same)
        return;
    for (uint32_t i = s->due.head; i != ADW_NODE_NONE; i = s->pool.link[i]) {
        struct adw_pkt *pkt = &adw_node_at(&s->pool, i)->pkt;
        if (pkt->out_port == ADW_PORT_UPLINK || pkt->out_port > old->n_aps)
            continue;
        pkt->out_port = map[pkt->out_port];
        if (pkt->out_port == ADW_PORT_DROP)
            s->st.drops_config++;
    }
}

/* The held packets of removed pairs whose STA (its MAC: what they are addressed to) has a pair in neu, a STA that
 * moved to another AP: queued for that pair, behind anything it holds, and released in its slices to its AP. Handed
 * to the AP of the removed pair, they went to an AP the STA had left. After the swap's slot initialisation, which
 * empties the queues of a new pair's slot. */
static void carry_moved_packets(struct adw_sched *s, const struct adw_plan *old, const struct adw_plan *neu)
{
    for (uint16_t q = 0; q < old->cfg->n_stas; q++) {
        struct adw_pair_state *from = &s->slots[old->slot_of_pair[q]];
        if (from->active || adw_pair_queued(from) == 0)
            continue; /* kept, or removed and handed out at the swap */
        uint16_t to_pair = adw_pair_by_mac(&neu->table, old->cfg->stas[q].mac);
        uint16_t slot = neu->slot_of_pair[to_pair];
        struct adw_pair_state *to = &s->slots[slot];
        stamp_pair_port(s, from, adw_pair_out_port(neu, to_pair));
        adw_fifo_splice(&to->q_rt, &from->q_rt, &s->pool);
        adw_fifo_splice(&to->q_ack, &from->q_ack, &s->pool);
        adw_fifo_splice(&to->q_data, &from->q_data, &s->pool);
        if (to->q_rt.len > 0 && !to->rt_listed) {
            to->rt_listed = true;
            s->rt_pending[s->n_rt_pending++] = slot;
        }
    }
}

/* The held packets of a removed pair whose AP the new version keeps, about to go to that AP at the swap: counted
 * (released_config) and released into the pair's drain, opened now if it was not (a batch's), so that the new
 * version's pairs that conflicted with it wait for them (struct adw_plan, gone_*; deferral.c, realtime_release.c).
 * Handed out with nothing tracking them, they reached the AP at the frame boundary, as the new version's first
 * batches went to the AP they conflict with: hidden from each other, both APs sent at once (SPEC §3.1, 004 §5).
 * Nothing of the STA is heard any more (it is no pair's), so the drain counts as over a frame after this release,
 * the bound of any drain whose ACKs stopped. Its real-time packets (UDP) are nothing a drain waits for: the guard after
 * them (realtime_release.c, SPEC §3.4) is kept in the slot (rt_guard_until_ns), for the pairs that wait for its drain
 * to take once neu is in force (adw_rt_guard_behind_gone_voice). */
static void release_removed_pairs_held(struct adw_sched *s, struct adw_pair_state *ps, const struct adw_plan *neu,
                                       uint64_t now_ns)
{
    uint32_t n = adw_pair_queued(ps);
    if (n == 0)
        return;
    if (ps->q_rt.len > 0)
        ps->rt_guard_until_ns = adw_rt_guard_until(neu, ps->q_rt.len, now_ns);
    struct adw_drain *d = &ps->drain;
    if (!d->open)
        adw_drain_begin(d, now_ns);
    d->release_ns = d->last_heard_ns = now_ns;
    struct adw_fifo *qs[3] = {&ps->q_rt, &ps->q_ack, &ps->q_data};
    for (unsigned k = 0; k < 3; k++)
        for (uint32_t i = qs[k]->head; i != ADW_NODE_NONE; i = s->pool.link[i])
            adw_drain_note_released(d, &adw_node_at(&s->pool, i)->meta, now_ns);
    adw_drain_end_release(d);
    s->st.released_config += n;
}

/* Swaps the staged plan in (called at a frame boundary only). */
void adw_swap_plan(struct adw_sched *s, uint64_t now_ns)
{
    struct adw_plan *old = s->plan, *neu = s->staged;
    restamp_due(s, old->cfg, neu->cfg); /* before removed pairs' packets join s->due, stamped for neu already */
    uint8_t *keep = s->in_slice; /* scratch, all zero between slice starts */
    bool gone_voice = false;     /* a removed pair's real-time packets went to its AP */
    for (uint16_t q = 0; q < neu->cfg->n_stas; q++)
        keep[neu->slot_of_pair[q]] = 1;
    for (uint16_t q = 0; q < old->cfg->n_stas; q++) {
        uint16_t slot = old->slot_of_pair[q];
        if (keep[slot])
            continue;
        struct adw_pair_state *ps = &s->slots[slot];
        ps->active = false;
        ps->rt_listed = false;
        ps->rt_guard_until_ns = 0; /* a gone slot's: the guard after its voice released now (none yet) */
        if (adw_pair_by_mac(&neu->table, old->cfg->stas[q].mac) != ADW_PAIR_NONE)
            continue; /* its STA has a pair in neu, under another AP: carry_moved_packets */
        /* Removed pair: its held packets go to its AP if the AP remains, else are handed out as drops. */
        uint16_t port = port_of_ap(neu->cfg, old->cfg->aps[old->cfg->stas[q].ap].id);
        if (port == ADW_PORT_DROP)
            s->st.drops_config += adw_pair_queued(ps);
        else {
            gone_voice = gone_voice || ps->q_rt.len > 0;
            release_removed_pairs_held(s, ps, neu, now_ns);
        }
        struct adw_fifo *qs[3] = {&ps->q_rt, &ps->q_ack, &ps->q_data};
        for (unsigned k = 0; k < 3; k++) {
            stamp_port(s, qs[k], port);
            adw_fifo_splice(&s->due, qs[k], &s->pool);
        }
    }
    adw_paced_prune(s); /* before a freed slot can be initialised for a new pair */
    s->plan = neu;
    s->staged = NULL;
    s->n_rt_pending = 0;
    for (uint16_t q = 0; q < neu->cfg->n_stas; q++) {
        uint16_t slot = neu->slot_of_pair[q];
        struct adw_pair_state *ps = &s->slots[slot];
        keep[slot] = 0;
        if (!ps->active) {
            adw_pair_state_init(s, ps, q, now_ns);
            continue;
        }
        /* r is the batch of the pair's reference slice and tends to beta S_i (004 §5, eq. (1)): a new length of that
         * slice keeps the drain rate, so r is scaled to it, as a batch is for a slice of another length. */
        uint64_t old_ref = old->s_ref_ns[ps->pair], new_ref = neu->s_ref_ns[q];
        if (old_ref > 0 && new_ref != old_ref)
            ps->tsabr.r *= (double)new_ref / (double)old_ref;
        ps->pair = q;
        adw_tsabr_rebound(&ps->tsabr, &neu->cfg->policies.ts_abr_qd);
        adw_astar_rebound(&ps->astar, &neu->cfg->policies.queue_sizing);
        stamp_pair_port(s, ps, adw_pair_out_port(neu, q));
        if (ps->q_rt.len > 0) {
            ps->rt_listed = true;
            s->rt_pending[s->n_rt_pending++] = slot;
        }
    }
    if (gone_voice)
        adw_rt_guard_behind_gone_voice(s);
    carry_moved_packets(s, old, neu);
    adw_plan_free(old);
    s->st.config_swaps++;
}

/* One parsed and classified packet of a burst: counted, passed, or queued (state updates in arrival order). */
static void enqueue_one(struct adw_sched *s, struct adw_pkt *pkt, const struct adw_desc *d, const struct adw_class *c,
                        enum adw_verdict *verdict, uint64_t now_ns)
{
    s->st.rx_pkts++;
    s->st.rx_bytes += pkt->len;
    pkt->out_port = c->out_port;
    *verdict = ADW_PASS;
    if (c->kind == ADW_CLASS_PASS) {
        (*c->counter)++;
        return;
    }
    struct adw_pair_state *ps = &s->slots[s->plan->slot_of_pair[c->pair]];
    struct adw_tcp_meta m;
    if (c->kind == ADW_CLASS_UPLINK) {
        s->st.pass_uplink++;
        adw_meta_from_desc(d, false, &m);
        if (m.is_tcp && adw_drain_observe_uplink(&ps->drain, &m, now_ns)) {
            if (!adw_refill_batch(s, ps, now_ns)) { /* time left in its slice: a batch for it, same drain */
                adw_finish_drain(s, ps, now_ns - ps->drain.start_ns, false, now_ns);
                adw_start_next_slice_early(s, ps, now_ns); /* or the next slice's batches now */
            }
            if (s->n_deferred > 0 || s->n_rt_pending > 0) /* a batch or real-time packets may have waited for it */
                adw_release_deferred(s, now_ns, false);
        }
        if (m.is_tcp) { /* ACK bursts -> aggregation level (001 §4.1) */
            adw_ack_est_observe_ack(&ps->ack, s->has_ack_model ? &s->ack_model : NULL, &m, now_ns);
            /* The paced segment being timed (ack_delay.h). Asked of paced pairs only: paced_listed shares the
             * prefetched line of the ACK estimator's head, the delay's state lies on a line of its own. */
            if (ps->paced_listed)
                adw_ack_delay_observe_ack(&ps->ack_delay, &m, now_ns);
        }
        return;
    }
    struct adw_fifo *q = c->kind == ADW_CLASS_DATA ? &ps->q_data : c->kind == ADW_CLASS_ACK ? &ps->q_ack : &ps->q_rt;
    if (q->len >= ps->astar.limit) {
        *verdict = ADW_DROP;
        s->st.drops_tail++;
        ps->drops_tail++;
        return;
    }
    uint32_t idx = adw_pool_get(&s->pool);
    if (idx == ADW_NODE_NONE) {
        *verdict = ADW_DROP;
        s->st.drops_pool++;
        ps->drops_other++;
        return;
    }
    struct adw_node *n = adw_node_at(&s->pool, idx);
    n->pkt = *pkt;
    n->slot = s->plan->slot_of_pair[c->pair];
    n->rt = c->kind == ADW_CLASS_RT;
    adw_meta_from_desc(d, true, &n->meta);
    if (c->kind == ADW_CLASS_DATA)
        adw_ack_est_observe_data(&ps->ack, &n->meta, now_ns);
    adw_fifo_push(q, &s->pool, idx);
    *verdict = ADW_QUEUED;
    if (c->kind == ADW_CLASS_RT) {
        s->st.queued_rt++;
        if (!ps->rt_listed) {
            ps->rt_listed = true;
            s->rt_pending[s->n_rt_pending++] = n->slot;
        }
        adw_rt_release_when_clear(s, now_ns); /* at once if the air is clear of conflicting drains */
    } else {
        if (c->kind == ADW_CLASS_DATA)
            s->st.queued_data++;
        else
            s->st.queued_ack++;
        adw_astar_observe(&ps->astar, now_ns, ps->q_data.len + ps->q_ack.len,
                          adw_pacer_active(&ps->pacer) ? 1u
                                                       : adw_tsabr_batch(&ps->tsabr, &s->plan->cfg->policies.ts_abr_qd));
    }
}

/* Asks the cache for the lines of ps the packet path will read for a packet of this kind. */
static void prefetch_pair(const struct adw_pair_state *ps, uint8_t kind)
{
    __builtin_prefetch(ps, 1);
    __builtin_prefetch((const char *)ps + 64, 1);
    __builtin_prefetch((const char *)ps + 128, 1);
    __builtin_prefetch(&ps->ack, 1);
    if (kind == ADW_CLASS_UPLINK) {
        __builtin_prefetch(&ps->drain, 1);
        __builtin_prefetch((const char *)&ps->drain + 64, 1);
    } else {
        __builtin_prefetch(&ps->ack.loss_bits, 1);
    }
}

/*
 * Packets of a burst mostly belong to different pairs, whose state (thousands
 * of pairs) is not in the cache: handled one after the other, each packet
 * would wait for its own misses. So the burst is taken in chunks; in each, the
 * MAC table entries of all packets are requested from the cache, then all
 * packets are parsed and classified (reading only the plan, which changes only
 * at a frame boundary in dequeue, never during an enqueue) while the cache
 * fetches their pairs' lines, then they are handled in arrival order as
 * before.
 */
#define ENQUEUE_CHUNK 32u

void adw_sched_enqueue_burst(struct adw_sched *s, struct adw_pkt *pkts, enum adw_verdict *verdicts, unsigned n,
                             uint64_t now_ns)
{
    struct adw_desc d[ENQUEUE_CHUNK];
    struct adw_class c[ENQUEUE_CHUNK];
    for (unsigned base = 0; base < n; base += ENQUEUE_CHUNK) {
        unsigned k = n - base < ENQUEUE_CHUNK ? n - base : ENQUEUE_CHUNK;
        for (unsigned i = 0; i < k; i++) {
            const struct adw_pkt *pkt = &pkts[base + i];
            if (pkt->len >= 12) /* the STA's MAC: destination downlink, source uplink (classify.c) */
                adw_pair_mac_prefetch(&s->plan->table, pkt->in_port == ADW_PORT_UPLINK ? pkt->data : pkt->data + 6);
        }
        for (unsigned i = 0; i < k; i++) {
            struct adw_pkt *pkt = &pkts[base + i];
            bool parsed = adw_parse(pkt->data, pkt->len, &d[i]) == ADW_PARSE_OK;
            adw_classify(s, &d[i], parsed, pkt, &c[i]);
            if (c[i].kind != ADW_CLASS_PASS)
                prefetch_pair(&s->slots[s->plan->slot_of_pair[c[i].pair]], c[i].kind);
        }
        for (unsigned i = 0; i < k; i++)
            enqueue_one(s, &pkts[base + i], &d[i], &c[i], &verdicts[base + i], now_ns);
    }
}

#define HAND_OUT_AHEAD 8u /* nodes requested from the cache ahead of their hand-out */

static unsigned hand_out(struct adw_sched *s, struct adw_fifo *q, struct adw_pkt *out, unsigned max)
{
    unsigned n = 0;
    struct adw_fifo_ahead ahead; /* a slice start releases more nodes than the cache keeps until they go out */
    adw_fifo_ahead_start(&ahead, q, &s->pool, max < HAND_OUT_AHEAD ? max : HAND_OUT_AHEAD);
    while (n < max) {
        if (n + HAND_OUT_AHEAD < max)
            adw_fifo_ahead_step(&ahead, &s->pool);
        uint32_t idx = adw_fifo_pop(q, &s->pool);
        if (idx == ADW_NODE_NONE)
            break;
        struct adw_node *node = adw_node_at(&s->pool, idx);
        out[n++] = node->pkt;
        if (node->pkt.out_port != ADW_PORT_DROP) {
            s->st.released_pkts++;
            s->st.released_bytes += node->pkt.len;
            s->st.released_rt += node->rt;
        }
        adw_pool_put(&s->pool, idx);
    }
    return n;
}

unsigned adw_sched_dequeue_burst(struct adw_sched *s, struct adw_pkt *out, unsigned max, uint64_t now_ns)
{
    struct adw_slice_event ev;
    /* Pending real-time packets too while the version in force dropped pairs: a dropped pair's drain they wait for
     * ends with time, not an ACK (adw_rt_pending_next_ns); any other drain ends with an ACK, which releases them. */
    if (s->n_deferred > 0 || adw_rt_holding(s) || (s->n_rt_pending > 0 && s->plan->n_gone > 0))
        adw_release_deferred(s, now_ns, false);
    while (adw_slice_clock_step(&s->clock, now_ns, &ev))
        adw_slice_start(s, &ev, now_ns);
    adw_paced_release(s, now_ns);
    return hand_out(s, &s->due, out, max);
}

uint64_t adw_sched_next_event_ns(const struct adw_sched *s, uint64_t now_ns)
{
    if (s->due.len > 0)
        return now_ns;
    uint64_t next = adw_slice_clock_next_ns(&s->clock);
    uint64_t paced = adw_paced_next_ns(s, now_ns);
    if (paced < next)
        next = paced;
    uint64_t deferred = adw_deferred_next_ns(s);
    if (deferred < next)
        next = deferred;
    uint64_t rt_hold = adw_rt_hold_until_ns(s);
    if (rt_hold < next)
        next = rt_hold;
    uint64_t rt_pending = adw_rt_pending_next_ns(s, now_ns);
    if (rt_pending < next)
        next = rt_pending;
    return next < now_ns ? now_ns : next;
}

uint32_t adw_sched_pool_room(const struct adw_sched *s)
{
    uint32_t taken = s->pool.in_use + s->pool.lent;
    return taken < s->pool.size ? s->pool.size - taken : 0;
}

uint32_t adw_sched_pool_lent(const struct adw_sched *s)
{
    return s->pool.lent;
}

void adw_sched_pool_lend(struct adw_sched *s, uint32_t n)
{
    s->pool.lent += n;
}

void adw_sched_pool_give_back(struct adw_sched *s, uint32_t n)
{
    s->pool.lent -= n;
}

unsigned adw_sched_flush(struct adw_sched *s, struct adw_pkt *out, unsigned max)
{
    unsigned n = hand_out(s, &s->due, out, max);
    for (uint16_t q = 0; q < s->plan->cfg->n_stas && n < max; q++) {
        struct adw_pair_state *ps = &s->slots[s->plan->slot_of_pair[q]];
        n += hand_out(s, &ps->q_rt, out + n, max - n);
        n += hand_out(s, &ps->q_ack, out + n, max - n);
        n += hand_out(s, &ps->q_data, out + n, max - n);
        if (ps->q_rt.len == 0)
            ps->rt_listed = false;
    }
    if (n < max)
        s->n_rt_pending = 0;
    return n;
}
