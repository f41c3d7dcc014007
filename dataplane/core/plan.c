/*
 * plan.c — turns a checked configuration into a plan (see sched_internal.h):
 * lookup tables, conflict lists, slice time per pair, and the state slot of
 * every pair, keeping the slot of each pair the plan in force also has
 * (matched by its name "ap/sta"), so a new version does not reset r, the
 * queues or the A* limits of pairs it keeps. Control path only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched_internal.h"

static uint32_t name_hash(const char *ap, const char *sta)
{
    uint32_t h = 2166136261u;
    for (const char *p = ap; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    h = (h ^ '/') * 16777619u;
    for (const char *p = sta; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    return h;
}

#define NAME_SLOTS (2u * ADW_MAX_PAIRS)

/* Index of the pair named ap/sta in cfg through the hash index idx, or ADW_PAIR_NONE. */
static uint16_t find_pair(const struct adw_config *cfg, const uint16_t *idx, const char *ap, const char *sta)
{
    uint32_t h = name_hash(ap, sta) & (NAME_SLOTS - 1);
    while (idx[h] != ADW_PAIR_NONE) {
        const struct adw_sta_cfg *s = &cfg->stas[idx[h]];
        if (strcmp(s->id, sta) == 0 && strcmp(cfg->aps[s->ap].id, ap) == 0)
            return idx[h];
        h = (h + 1) & (NAME_SLOTS - 1);
    }
    return ADW_PAIR_NONE;
}

static int assign_slots(struct adw_plan *p, const struct adw_plan *current)
{
    const struct adw_config *c = p->cfg;
    bool *taken = calloc(ADW_MAX_SLOTS, sizeof(bool));
    uint16_t *idx = malloc(NAME_SLOTS * sizeof(uint16_t));
    if (taken == NULL || idx == NULL) {
        free(taken);
        free(idx);
        return -1;
    }
    for (unsigned i = 0; i < NAME_SLOTS; i++)
        idx[i] = ADW_PAIR_NONE;
    if (current != NULL) {
        const struct adw_config *oc = current->cfg;
        for (uint16_t q = 0; q < oc->n_stas; q++) {
            taken[current->slot_of_pair[q]] = true;
            uint32_t h = name_hash(oc->aps[oc->stas[q].ap].id, oc->stas[q].id) & (NAME_SLOTS - 1);
            while (idx[h] != ADW_PAIR_NONE)
                h = (h + 1) & (NAME_SLOTS - 1);
            idx[h] = q;
        }
    }
    for (uint16_t q = 0; q < c->n_stas; q++)
        p->slot_of_pair[q] = ADW_SLOT_NONE;
    /* Pairs kept from the plan in force keep their slot. */
    if (current != NULL)
        for (uint16_t q = 0; q < c->n_stas; q++) {
            uint16_t old = find_pair(current->cfg, idx, c->aps[c->stas[q].ap].id, c->stas[q].id);
            if (old != ADW_PAIR_NONE)
                p->slot_of_pair[q] = current->slot_of_pair[old];
        }
    /* New pairs take slots no pair of the plan in force holds (ADW_MAX_SLOTS says why there is always one): the slot
     * of a pair this plan removes stays its own past the swap. */
    uint16_t next_free = 0;
    for (uint16_t q = 0; q < c->n_stas; q++) {
        if (p->slot_of_pair[q] != ADW_SLOT_NONE)
            continue;
        while (next_free < ADW_MAX_SLOTS && taken[next_free])
            next_free++;
        if (next_free == ADW_MAX_SLOTS) {
            free(taken);
            free(idx);
            return -1;
        }
        p->slot_of_pair[q] = next_free;
        taken[next_free] = true;
    }
    free(taken);
    free(idx);
    return 0;
}

static int build_conflicts(struct adw_plan *p)
{
    const struct adw_config *c = p->cfg;
    p->conflict_off = calloc((size_t)c->n_stas + 1, sizeof(uint32_t));
    p->conflict_list = malloc(sizeof(uint16_t) * (2u * c->n_conflicts + 1u));
    if (p->conflict_off == NULL || p->conflict_list == NULL)
        return -1;
    for (unsigned k = 0; k < c->n_conflicts; k++) {
        p->conflict_off[c->conflicts[k].a + 1]++;
        p->conflict_off[c->conflicts[k].b + 1]++;
    }
    for (unsigned i = 0; i < c->n_stas; i++)
        p->conflict_off[i + 1] += p->conflict_off[i];
    uint32_t *fill = calloc(c->n_stas ? c->n_stas : 1u, sizeof(uint32_t));
    if (fill == NULL)
        return -1;
    for (unsigned k = 0; k < c->n_conflicts; k++) {
        uint16_t a = c->conflicts[k].a, b = c->conflicts[k].b;
        p->conflict_list[p->conflict_off[a] + fill[a]++] = b;
        p->conflict_list[p->conflict_off[b] + fill[b]++] = a;
    }
    free(fill);
    return 0;
}

/* Index in c->aps[] of the AP whose id is that of AP a of oc, ADW_MAX_APS if c has none. */
static uint16_t ap_in(const struct adw_config *c, const struct adw_config *oc, uint16_t a)
{
    for (uint16_t i = 0; i < c->n_aps; i++)
        if (strcmp(c->aps[i].id, oc->aps[a].id) == 0)
            return i;
    return ADW_MAX_APS;
}

/* Appends slot to AP a's list of a per-AP CSR (pass 0 counts, pass 1 fills). */
static void add_to_ap(uint32_t *off, uint16_t *list, uint32_t *fill, int pass, uint16_t a, uint16_t slot)
{
    if (pass == 0)
        off[a + 1]++;
    else
        list[off[a] + fill[a]++] = slot;
}

/* gone_held_* and gone_at_* of p replacing cur (after assign_slots: a kept pair has its slot in cur). */
static int build_gone_conflicts(struct adw_plan *p, const struct adw_plan *cur)
{
    const struct adw_config *c = p->cfg;
    size_t n_aps = c->n_aps ? c->n_aps : 1u;
    p->gone_held_off = calloc(n_aps + 1, sizeof(uint32_t));
    p->gone_at_off = calloc(n_aps + 1, sizeof(uint32_t));
    if (p->gone_held_off == NULL || p->gone_at_off == NULL)
        return -1;
    if (cur == NULL)
        return 0;
    const struct adw_config *oc = cur->cfg;
    bool *kept = calloc(ADW_MAX_SLOTS, sizeof(bool));
    bool *on_ap = calloc(ADW_MAX_APS, sizeof(bool)); /* APs of p already listed for the gone pair */
    uint16_t *ap_of = malloc(sizeof(uint16_t) * (oc->n_aps ? oc->n_aps : 1u)); /* AP of cur -> AP of p */
    uint32_t *fill_held = calloc(n_aps, sizeof(uint32_t)), *fill_at = calloc(n_aps, sizeof(uint32_t));
    int rc = kept == NULL || on_ap == NULL || ap_of == NULL || fill_held == NULL || fill_at == NULL ? -1 : 0;
    for (uint16_t q = 0; rc == 0 && q < c->n_stas; q++)
        kept[p->slot_of_pair[q]] = true;
    for (uint16_t a = 0; rc == 0 && a < oc->n_aps; a++)
        ap_of[a] = ap_in(c, oc, a);
    for (int pass = 0; rc == 0 && pass < 2; pass++) {
        for (uint16_t o = 0; o < oc->n_stas; o++) {
            uint16_t slot = cur->slot_of_pair[o], o_ap = ap_of[oc->stas[o].ap];
            if (kept[slot])
                continue;
            p->n_gone += pass == 0;
            if (o_ap < ADW_MAX_APS)
                add_to_ap(p->gone_at_off, p->gone_at_slot, fill_at, pass, o_ap, slot);
            for (int set = 1; set >= 0; set--) /* each AP once, then unmarked */
                for (uint32_t k = cur->conflict_off[o]; k < cur->conflict_off[o + 1]; k++) {
                    uint16_t a = ap_of[oc->stas[cur->conflict_list[k]].ap];
                    if (a == ADW_MAX_APS || on_ap[a] == set)
                        continue;
                    on_ap[a] = set;
                    if (set)
                        add_to_ap(p->gone_held_off, p->gone_held_slot, fill_held, pass, a, slot);
                }
        }
        if (pass == 0) {
            for (unsigned a = 0; a < c->n_aps; a++) {
                p->gone_held_off[a + 1] += p->gone_held_off[a];
                p->gone_at_off[a + 1] += p->gone_at_off[a];
            }
            p->gone_held_slot = malloc(sizeof(uint16_t) * (p->gone_held_off[c->n_aps] + 1u));
            p->gone_at_slot = malloc(sizeof(uint16_t) * (p->gone_at_off[c->n_aps] + 1u));
            if (p->gone_held_slot == NULL || p->gone_at_slot == NULL)
                rc = -1;
        }
    }
    free(kept);
    free(on_ap);
    free(ap_of);
    free(fill_held);
    free(fill_at);
    return rc;
}

bool adw_plan_conflict(const struct adw_plan *p, uint16_t a, uint16_t b)
{
    for (uint32_t i = p->conflict_off[a]; i < p->conflict_off[a + 1]; i++)
        if (p->conflict_list[i] == b)
            return true;
    return false;
}

static int build_names(struct adw_plan *p)
{
    const struct adw_config *c = p->cfg;
    size_t n = c->n_stas ? c->n_stas : 1u;
    p->pair_name = malloc(n * sizeof(*p->pair_name));
    p->pair_name_len = malloc(n);
    if (p->pair_name == NULL || p->pair_name_len == NULL)
        return -1;
    for (uint16_t q = 0; q < c->n_stas; q++) {
        adw_config_pair_name(c, q, p->pair_name[q], sizeof(p->pair_name[q]));
        p->pair_name_len[q] = (uint8_t)strlen(p->pair_name[q]);
    }
    return 0;
}

void adw_plan_free(struct adw_plan *p)
{
    if (p == NULL)
        return;
    adw_pair_table_free(&p->table);
    free(p->conflict_off);
    free(p->conflict_list);
    free(p->gone_held_off);
    free(p->gone_held_slot);
    free(p->gone_at_off);
    free(p->gone_at_slot);
    free(p->pair_name);
    free(p->pair_name_len);
    free(p->cfg);
    free(p);
}

struct adw_plan *adw_plan_build(const struct adw_config *cfg, const struct adw_plan *current, char *err,
                                size_t errlen)
{
    if (adw_config_check(cfg, err, errlen) != 0)
        return NULL;
    struct adw_plan *p = calloc(1, sizeof(*p));
    if (p == NULL || (p->cfg = malloc(sizeof(*cfg))) == NULL) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    memcpy(p->cfg, cfg, sizeof(*cfg));
    if (adw_pair_table_build(&p->table, p->cfg) != 0 || build_conflicts(p) != 0 || assign_slots(p, current) != 0
        || build_gone_conflicts(p, current) != 0 || build_names(p) != 0) {
        adw_plan_free(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    const struct adw_config *c = p->cfg;
    for (unsigned sl = 0; sl < c->n_slices; sl++) {
        p->frame_ns += c->slices[sl].duration_ns;
        for (unsigned i = 0; i < c->slices[sl].n_pairs; i++) {
            uint16_t q = c->slices[sl].pairs[i];
            p->slice_mask[q] |= 1ull << sl;
            if (p->s_ns[q] == 0)
                p->s_ref_ns[q] = c->slices[sl].duration_ns;
            p->s_ns[q] += c->slices[sl].duration_ns;
        }
    }
    const struct adw_dynslice_policy *ds = &c->policies.dynamic_slicing;
    if (ds->enabled) {
        for (unsigned q = 0; q < c->n_stas; q++)
            p->dyn_taker[q] = ds->n_pairs == 0;
        for (unsigned i = 0; i < ds->n_pairs; i++)
            p->dyn_taker[ds->pairs[i]] = true;
    }
    for (unsigned i = 0; i < c->policies.realtime.n_dscp; i++)
        p->rt_dscp[c->policies.realtime.dscp[i] & 63] = true;
    return p;
}
