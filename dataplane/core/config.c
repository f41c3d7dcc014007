/*
 * config.c — whole-document check of struct adw_config (the core's last line
 * of defence: the controller's schema already validated the document, but a
 * file or a bug must never half-apply). Messages name the field with the
 * document's path syntax, e.g. "slice_map.slices[1].pairs[0]: ...".
 */
#include "adwiser/config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static bool id_valid(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    if (n == 0 || n == cap)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-')))
            return false;
    }
    return true;
}

void adw_config_pair_name(const struct adw_config *c, uint16_t pair, char *buf, size_t buflen)
{
    if (buflen == 0)
        return;
    if (pair >= c->n_stas || c->stas[pair].ap >= c->n_aps) {
        snprintf(buf, buflen, "pair#%u", (unsigned)pair);
        return;
    }
    snprintf(buf, buflen, "%s/%s", c->aps[c->stas[pair].ap].id, c->stas[pair].id);
}

void adw_config_default_policies(struct adw_policies *p)
{
    memset(p, 0, sizeof(*p));
    p->ts_abr_qd = (struct adw_tsabr_policy){.a_pkts_per_ms = 1.0,
                                             .r_init_pkts = 40,
                                             .r_min_pkts = 2,
                                             .r_max_pkts = 2048,
                                             .v_cap_factor = 3.0,
                                             .rate_change_reset = 0.5};
    p->realtime.n_dscp = 1;
    p->realtime.dscp[0] = 46;
    p->realtime.hold_max_fraction = ADW_RT_HOLD_MAX_FRACTION_DEFAULT;
    p->realtime.guard_us = ADW_RT_GUARD_US_DEFAULT;
    p->queue_sizing = (struct adw_queue_sizing_policy){.t_max_ns = 200000000ull,
                                                       .c_pkts = 5,
                                                       .q_max_pkts = 4096,
                                                       .q_min_pkts = 32,
                                                       /* 003 §V-A: a1 = 10, b1 = 1 packets per second of idle /
                                                        * busy time, so the queue is held above its threshold
                                                        * a1/(a1+b1) = 91 % of the time (b1/a1 small = high
                                                        * utilisation); here per ms. */
                                                       .a1 = 0.01,
                                                       .b1 = 0.001,
                                                       .ewma_alpha = 0.1};
    p->aggregation_target = (struct adw_aggregation_policy){
        .n_target_max = 48, .t_bar_ms = 10, .k1 = 0.5, .k2 = 0.2, .delta_s = 0.5};
}

/* A list of pairs (a slice's, a policy's): each an existing pair, listed at most once. */
static int check_pair_list(const struct adw_config *c, const uint16_t *pairs, unsigned n, const char *path,
                           char *err, size_t errlen)
{
    uint8_t seen[ADW_MAX_PAIRS / 8] = {0};
    for (unsigned i = 0; i < n; i++) {
        if (pairs[i] >= c->n_stas)
            return fail(err, errlen, "%s[%u]: pair index %u out of range (%u pairs)", path, i, (unsigned)pairs[i],
                        (unsigned)c->n_stas);
        if (seen[pairs[i] / 8] & (1u << (pairs[i] % 8))) {
            char name[ADW_PAIR_NAME_LEN];
            adw_config_pair_name(c, pairs[i], name, sizeof(name));
            return fail(err, errlen, "%s[%u]: %s listed twice", path, i, name);
        }
        seen[pairs[i] / 8] |= (uint8_t)(1u << (pairs[i] % 8));
    }
    return 0;
}

struct addr_ref {
    struct adw_ip_addr a;
    uint16_t sta, k;
};

static int addr_cmp(const void *x, const void *y)
{
    const struct addr_ref *p = x, *q = y;
    if (p->a.family != q->a.family)
        return p->a.family < q->a.family ? -1 : 1;
    int c = memcmp(p->a.addr, q->a.addr, 16);
    if (c != 0)
        return c;
    return p->sta != q->sta ? (p->sta < q->sta ? -1 : 1) : (p->k < q->k ? -1 : p->k > q->k);
}

/* An address may identify one STA only (downlink packets are classified by it). Sorted, so 65536 addresses
 * cost a few ms. */
static int check_unique_addresses(const struct adw_config *c, char *err, size_t errlen)
{
    size_t n = 0;
    for (unsigned i = 0; i < c->n_stas; i++)
        n += c->stas[i].n_addrs;
    if (n < 2)
        return 0;
    struct addr_ref *v = calloc(n, sizeof(*v));
    if (v == NULL)
        return fail(err, errlen, "topology.stas: out of memory checking addresses");
    size_t m = 0;
    for (unsigned i = 0; i < c->n_stas; i++)
        for (unsigned k = 0; k < c->stas[i].n_addrs; k++) {
            v[m].a.family = c->stas[i].addrs[k].family;
            memcpy(v[m].a.addr, c->stas[i].addrs[k].addr, c->stas[i].addrs[k].family == 4 ? 4 : 16);
            v[m].sta = (uint16_t)i;
            v[m].k = (uint16_t)k;
            m++;
        }
    qsort(v, n, sizeof(*v), addr_cmp);
    int rc = 0;
    for (size_t i = 1; i < n && rc == 0; i++)
        if (v[i].a.family == v[i - 1].a.family && memcmp(v[i].a.addr, v[i - 1].a.addr, 16) == 0)
            rc = fail(err, errlen, "topology.stas[%u].ips[%u]: address also listed by stas[%u]", (unsigned)v[i].sta,
                      (unsigned)v[i].k, (unsigned)v[i - 1].sta);
    free(v);
    return rc;
}

static int check_topology(const struct adw_config *c, char *err, size_t errlen)
{
    if (c->n_aps == 0 || c->n_aps > ADW_MAX_APS)
        return fail(err, errlen, "topology.aps: %u APs, need 1..%u", (unsigned)c->n_aps, ADW_MAX_APS);
    if (c->n_stas == 0 || c->n_stas > ADW_MAX_STAS)
        return fail(err, errlen, "topology.stas: %u STAs, need 1..%u", (unsigned)c->n_stas, ADW_MAX_STAS);
    for (unsigned i = 0; i < c->n_aps; i++) {
        const struct adw_ap_cfg *a = &c->aps[i];
        if (!id_valid(a->id, sizeof(a->id)))
            return fail(err, errlen, "topology.aps[%u].id: not an identifier", i);
        if (strnlen(a->port, sizeof(a->port)) == 0 || strnlen(a->port, sizeof(a->port)) == sizeof(a->port))
            return fail(err, errlen, "topology.aps[%u].port: empty or too long", i);
        if (a->vlan > 4094)
            return fail(err, errlen, "topology.aps[%u].vlan: %u is not a VLAN id", i, (unsigned)a->vlan);
        for (unsigned j = 0; j < i; j++)
            if (strcmp(c->aps[j].id, a->id) == 0)
                return fail(err, errlen, "topology.aps[%u].id: duplicate id %s", i, a->id);
    }
    for (unsigned i = 0; i < c->n_stas; i++) {
        const struct adw_sta_cfg *s = &c->stas[i];
        if (!id_valid(s->id, sizeof(s->id)))
            return fail(err, errlen, "topology.stas[%u].id: not an identifier", i);
        if (s->ap >= c->n_aps)
            return fail(err, errlen, "topology.stas[%u].ap: AP index %u out of range (%u APs)", i,
                        (unsigned)s->ap, (unsigned)c->n_aps);
        if (s->mac[0] & 1)
            return fail(err, errlen, "topology.stas[%u].mac: multicast MAC", i);
        if (s->n_addrs > ADW_MAX_STA_ADDRS)
            return fail(err, errlen, "topology.stas[%u].ips: %u addresses, at most %u", i, (unsigned)s->n_addrs,
                        ADW_MAX_STA_ADDRS);
        for (unsigned k = 0; k < s->n_addrs; k++)
            if (s->addrs[k].family != 4 && s->addrs[k].family != 6)
                return fail(err, errlen, "topology.stas[%u].ips[%u]: family %u is neither 4 nor 6", i, k,
                            (unsigned)s->addrs[k].family);
    }
    /* Duplicate STA ids and MACs: quadratic, on the control path only (4096 STAs: ~8 M compares). */
    for (unsigned i = 0; i < c->n_stas; i++)
        for (unsigned j = i + 1; j < c->n_stas; j++) {
            if (memcmp(c->stas[i].mac, c->stas[j].mac, 6) == 0)
                return fail(err, errlen, "topology.stas[%u].mac: same MAC as stas[%u]", j, i);
            if (c->stas[i].id[0] == c->stas[j].id[0] && strcmp(c->stas[i].id, c->stas[j].id) == 0)
                return fail(err, errlen, "topology.stas[%u].id: duplicate id %s", j, c->stas[j].id);
        }
    if (check_unique_addresses(c, err, errlen))
        return -1;
    if (c->n_conflicts > ADW_MAX_CONFLICTS)
        return fail(err, errlen, "topology.conflicts: %u entries, at most %u", (unsigned)c->n_conflicts,
                    ADW_MAX_CONFLICTS);
    for (unsigned i = 0; i < c->n_conflicts; i++) {
        if (c->conflicts[i].a >= c->n_stas || c->conflicts[i].b >= c->n_stas)
            return fail(err, errlen, "topology.conflicts[%u]: pair index out of range (%u pairs)", i,
                        (unsigned)c->n_stas);
        if (c->conflicts[i].a == c->conflicts[i].b)
            return fail(err, errlen, "topology.conflicts[%u]: a pair cannot conflict with itself", i);
    }
    return 0;
}

static int check_slices(const struct adw_config *c, char *err, size_t errlen)
{
    if (c->n_slices == 0 || c->n_slices > ADW_MAX_SLICES)
        return fail(err, errlen, "slice_map.slices: %u slices, need 1..%u", (unsigned)c->n_slices, ADW_MAX_SLICES);
    uint64_t frame = 0;
    static const char *const unmapped = "slice_map: pair %s is in no slice";
    uint8_t in_slice[ADW_MAX_PAIRS / 8], mapped[ADW_MAX_PAIRS / 8] = {0};
    for (unsigned s = 0; s < c->n_slices; s++) {
        const struct adw_slice_cfg *sl = &c->slices[s];
        char path[64], na[ADW_PAIR_NAME_LEN], nb[ADW_PAIR_NAME_LEN];
        if (sl->duration_ns < ADW_SLICE_MIN_NS || sl->duration_ns > ADW_SLICE_MAX_NS)
            return fail(err, errlen, "slice_map.slices[%u].duration_ms: %.3f ms outside 1..500 ms", s,
                        (double)sl->duration_ns / 1e6);
        frame += sl->duration_ns;
        if (sl->n_pairs == 0 || sl->n_pairs > c->n_stas)
            return fail(err, errlen, "slice_map.slices[%u].pairs: %u pairs, need 1..%u", s, (unsigned)sl->n_pairs,
                        (unsigned)c->n_stas);
        snprintf(path, sizeof(path), "slice_map.slices[%u].pairs", s);
        if (check_pair_list(c, sl->pairs, sl->n_pairs, path, err, errlen))
            return -1;
        /* Bitmaps of the slice's pairs and of every slice's so far: each conflict is then one lookup, not a walk
         * through the slice (64 slices of ~4000 pairs and 16384 conflicts were 4e9 steps, seconds). */
        memset(in_slice, 0, sizeof(in_slice));
        for (unsigned i = 0; i < sl->n_pairs; i++) {
            in_slice[sl->pairs[i] / 8] |= (uint8_t)(1u << (sl->pairs[i] % 8));
            mapped[sl->pairs[i] / 8] |= (uint8_t)(1u << (sl->pairs[i] % 8));
        }
        for (unsigned k = 0; k < c->n_conflicts; k++) {
            uint16_t a = c->conflicts[k].a, b = c->conflicts[k].b;
            if ((in_slice[a / 8] & (1u << (a % 8))) && (in_slice[b / 8] & (1u << (b % 8)))) {
                adw_config_pair_name(c, c->conflicts[k].a, na, sizeof(na));
                adw_config_pair_name(c, c->conflicts[k].b, nb, sizeof(nb));
                return fail(err, errlen, "slice_map.slices[%u]: pairs %s and %s conflict (topology.conflicts[%u])",
                            s, na, nb, k);
            }
        }
    }
    if (frame > ADW_FRAME_MAX_NS)
        return fail(err, errlen, "slice_map.slices: frame of %.3f ms exceeds 1000 ms", (double)frame / 1e6);
    for (unsigned p = 0; p < c->n_stas; p++) {
        if (!(mapped[p / 8] & (1u << (p % 8)))) {
            char na[ADW_PAIR_NAME_LEN];
            adw_config_pair_name(c, (uint16_t)p, na, sizeof(na));
            return fail(err, errlen, unmapped, na);
        }
    }
    return 0;
}

/* The loader's bounds (adwiser/config.h): paced mode reads n_target_max (its catch-up cap, paced_release.c), and
 * a value no file could carry must not run because the document was built in code. */
static int check_aggregation(const struct adw_config *c, char *err, size_t errlen)
{
    const struct adw_aggregation_policy *a = &c->policies.aggregation_target;
    if (a->n_target_max < ADW_AGG_N_TARGET_MAX_MIN || a->n_target_max > ADW_AGG_N_TARGET_MAX_MAX)
        return fail(err, errlen, "policies.aggregation_target.n_target_max: %u outside [%u, %u]", a->n_target_max,
                    ADW_AGG_N_TARGET_MAX_MIN, ADW_AGG_N_TARGET_MAX_MAX);
    if (!(a->t_bar_ms > 0 && a->t_bar_ms <= ADW_AGG_T_BAR_MS_MAX))
        return fail(err, errlen, "policies.aggregation_target.t_bar_ms: %g outside (0, %g]", a->t_bar_ms,
                    ADW_AGG_T_BAR_MS_MAX);
    if (!(a->k1 > 0 && a->k1 < ADW_AGG_K1_BELOW))
        return fail(err, errlen, "policies.aggregation_target.k1: %g outside (0, %g)", a->k1, ADW_AGG_K1_BELOW);
    if (!(a->k2 > 0 && a->k2 < ADW_AGG_K2_BELOW))
        return fail(err, errlen, "policies.aggregation_target.k2: %g outside (0, %g)", a->k2, ADW_AGG_K2_BELOW);
    if (!(a->delta_s >= ADW_AGG_DELTA_S_MIN && a->delta_s <= ADW_AGG_DELTA_S_MAX))
        return fail(err, errlen, "policies.aggregation_target.delta_s: %g outside [%g, %g]", a->delta_s,
                    ADW_AGG_DELTA_S_MIN, ADW_AGG_DELTA_S_MAX);
    if (a->n_pairs > c->n_stas)
        return fail(err, errlen, "policies.aggregation_target.pairs: more entries than pairs");
    return check_pair_list(c, a->pairs, a->n_pairs, "policies.aggregation_target.pairs", err, errlen);
}

/* The schema's uniqueItems of policies.realtime.dscp and .udp_ports: a repeat names its second place. */
static int check_realtime_unique(const struct adw_realtime_policy *r, char *err, size_t errlen)
{
    for (unsigned i = 0; i < r->n_dscp; i++)
        for (unsigned j = 0; j < i; j++)
            if (r->dscp[j] == r->dscp[i])
                return fail(err, errlen, "policies.realtime.dscp[%u]: %u is already dscp[%u]", i,
                            (unsigned)r->dscp[i], j);
    for (unsigned i = 0; i < r->n_udp_ports; i++)
        for (unsigned j = 0; j < i; j++)
            if (r->udp_ports[j] == r->udp_ports[i])
                return fail(err, errlen, "policies.realtime.udp_ports[%u]: %u is already udp_ports[%u]", i,
                            (unsigned)r->udp_ports[i], j);
    return 0;
}

static int check_policies(const struct adw_config *c, char *err, size_t errlen)
{
    const struct adw_policies *p = &c->policies;
    const struct adw_tsabr_policy *t = &p->ts_abr_qd;
    if (!(t->a_pkts_per_ms > 0 && t->a_pkts_per_ms <= 20))
        return fail(err, errlen, "policies.ts_abr_qd.a_pkts_per_ms: %g outside (0, 20]", t->a_pkts_per_ms);
    if (t->r_min_pkts < 1 || t->r_min_pkts > t->r_max_pkts || t->r_max_pkts > 65536)
        return fail(err, errlen, "policies.ts_abr_qd.r_min_pkts: need 1 <= r_min (%u) <= r_max (%u) <= 65536",
                    t->r_min_pkts, t->r_max_pkts);
    if (t->r_init_pkts < t->r_min_pkts || t->r_init_pkts > t->r_max_pkts)
        return fail(err, errlen, "policies.ts_abr_qd.r_init_pkts: %u outside [%u, %u]", t->r_init_pkts,
                    t->r_min_pkts, t->r_max_pkts);
    if (!(t->v_cap_factor > 1 && t->v_cap_factor <= 10))
        return fail(err, errlen, "policies.ts_abr_qd.v_cap_factor: %g outside (1, 10]", t->v_cap_factor);
    if (!(t->rate_change_reset > 0 && t->rate_change_reset <= 10))
        return fail(err, errlen, "policies.ts_abr_qd.rate_change_reset: %g outside (0, 10]", t->rate_change_reset);
    if (p->dynamic_slicing.n_pairs > c->n_stas)
        return fail(err, errlen, "policies.dynamic_slicing.pairs: more entries than pairs");
    if (check_pair_list(c, p->dynamic_slicing.pairs, p->dynamic_slicing.n_pairs, "policies.dynamic_slicing.pairs",
                        err, errlen))
        return -1;
    if (p->realtime.n_dscp > ADW_MAX_RT_DSCP || p->realtime.n_udp_ports > ADW_MAX_RT_PORTS)
        return fail(err, errlen, "policies.realtime: too many entries");
    for (unsigned i = 0; i < p->realtime.n_dscp; i++)
        if (p->realtime.dscp[i] > 63)
            return fail(err, errlen, "policies.realtime.dscp[%u]: %u outside 0..63", i, (unsigned)p->realtime.dscp[i]);
    for (unsigned i = 0; i < p->realtime.n_udp_ports; i++)
        if (p->realtime.udp_ports[i] == 0)
            return fail(err, errlen, "policies.realtime.udp_ports[%u]: port 0", i);
    if (check_realtime_unique(&p->realtime, err, errlen))
        return -1;
    if (!(p->realtime.hold_max_fraction >= 0 && p->realtime.hold_max_fraction <= 1))
        return fail(err, errlen, "policies.realtime.hold_max_fraction: %g outside [0, 1]",
                    p->realtime.hold_max_fraction);
    if (p->realtime.guard_us > ADW_RT_GUARD_US_MAX)
        return fail(err, errlen, "policies.realtime.guard_us: %u outside [0, %u]", p->realtime.guard_us,
                    ADW_RT_GUARD_US_MAX);
    const struct adw_queue_sizing_policy *q = &p->queue_sizing;
    if (q->t_max_ns == 0 || q->t_max_ns > 10000000000ull)
        return fail(err, errlen, "policies.queue_sizing.t_max_ms: outside (0, 10000]");
    if (q->q_min_pkts < 1 || q->q_min_pkts > q->q_max_pkts)
        return fail(err, errlen, "policies.queue_sizing.q_min_pkts: need 1 <= q_min (%u) <= q_max (%u)", q->q_min_pkts,
                    q->q_max_pkts);
    if (!(q->a1 > 0 && q->a1 <= 10) || !(q->b1 > 0 && q->b1 <= 10))
        return fail(err, errlen, "policies.queue_sizing.a1: a1 and b1 must lie in (0, 10]");
    if (!(q->ewma_alpha > 0 && q->ewma_alpha <= 1))
        return fail(err, errlen, "policies.queue_sizing.ewma_alpha: %g outside (0, 1]", q->ewma_alpha);
    return check_aggregation(c, err, errlen);
}

int adw_config_check(const struct adw_config *c, char *err, size_t errlen)
{
    if (c == NULL)
        return fail(err, errlen, "config: missing");
    if (c->schema_version != ADW_SCHEMA_VERSION)
        return fail(err, errlen, "schema_version: %u, expected %u", c->schema_version, ADW_SCHEMA_VERSION);
    if (check_topology(c, err, errlen) || check_slices(c, err, errlen) || check_policies(c, err, errlen))
        return -1;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    return 0;
}
