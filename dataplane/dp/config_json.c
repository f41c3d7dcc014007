/*
 * JSON configuration document -> struct adw_config; see config_json.h.
 * The ranges below are the schema's (configs/schema/adwiser-config.schema.json),
 * narrowed where the core's capacity is smaller (ADW_MAX_*).
 */
#include "config_json.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_walk.h"

struct loader {
    struct jw w;
    struct adw_config *c;
    uint16_t *sta_by_id;   /* STA indices sorted by id, for resolving pair names */
    double ceiling_mpdus[ADW_MAX_APS];   /* each AP's ampdu_ceiling_mpdus, 0 = not given */
};

/* The schema's default of policies.aggregation_target.n_max_mpdus. */
#define AGG_N_MAX_MPDUS_DEFAULT 64

static const char *const ROOT_KEYS[] = {"schema_version", "appliance_id", "topology", "slice_map", "policies", NULL};
static const char *const TOPO_KEYS[] = {"aps", "stas", "conflicts", NULL};
static const char *const AP_KEYS[] = {"id", "name", "channel", "port", "vlan", "ampdu_ceiling_mpdus",
                                      "ampdu_ceiling_us", NULL};
/* phy_rate_mbps (1 .. 10000 Mbit/s: 802.11's lowest rate up), the APs' ampdu_ceiling_mpdus / _us
 * and the aggregation loop's c_beta .. bottleneck_packets are the controller's (its
 * aggregation-target runner, issue 9); checked against the schema's bounds (a document the
 * controller refuses is not loaded here either), not used here. */
static const char *const STA_KEYS[] = {"id", "mac", "ips", "ap", "phy_rate_mbps", NULL};
static const char *const SLICEMAP_KEYS[] = {"slices", NULL};
static const char *const SLICE_KEYS[] = {"duration_ms", "pairs", NULL};
static const char *const POLICY_KEYS[] = {"ts_abr_qd", "dynamic_slicing", "realtime", "queue_sizing",
                                          "aggregation_target", NULL};
static const char *const TSABR_KEYS[] = {"a_pkts_per_ms", "r_init_pkts", "r_min_pkts", "r_max_pkts",
                                         "v_cap_factor", "rate_change_reset", "early_handover", NULL};
static const char *const DYN_KEYS[] = {"enabled", "pairs", NULL};
static const char *const RT_KEYS[] = {"dscp", "udp_ports", "hold_max_fraction", "guard_us", NULL};
static const char *const QS_KEYS[] = {"t_max_ms", "c_pkts", "q_max_pkts", "q_min_pkts", "a1", "b1", "ewma_alpha",
                                      NULL};
static const char *const AGG_KEYS[] = {"enabled", "n_target_max", "t_bar_ms", "k1", "k2", "delta_s", "pairs",
                                       "overrides", "c_beta", "c_init_us", "packet_bytes", "mpdu_overhead_bytes",
                                       "n_max_mpdus", "bottleneck_frames", "bottleneck_packets", NULL};
static const char *const AGG_OVERRIDE_KEYS[] = {"pairs", "n_target_max", "t_bar_ms", NULL};


/* The schema's identifier pattern ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$. */
static int is_identifier(const char *s)
{
    if (!isalnum((unsigned char)s[0]))
        return 0;
    size_t n = 0;
    for (const char *p = s; *p; p++, n++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-')
            return 0;
    return n <= 64;
}

/* The schema's port pattern ^[A-Za-z0-9][A-Za-z0-9_.:,=-]{0,127}$ (the length is jw_string's cap). */
static int is_port_name(const char *s)
{
    if (!isalnum((unsigned char)s[0]))
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_.:,=-", *p))
            return 0;
    return 1;
}

static int read_id(struct loader *l, const json_t *obj, const char *path, const char *key, char *out)
{
    if (jw_string(&l->w, obj, path, key, 1, 0, out, ADW_ID_LEN))
        return -1;
    if (!is_identifier(out))
        return jw_fail_at(&l->w, path, key, "'%s' is not an identifier ([A-Za-z0-9][A-Za-z0-9_.-]{0,63})", out);
    return 0;
}

/* Required array `key` of obj with 1 to max elements (`what` names an element in the error). */
static json_t *nonempty_array(struct loader *l, const json_t *obj, const char *path, const char *key, size_t max,
                              const char *what)
{
    json_t *arr = jw_array(&l->w, obj, path, key, 1, max);
    if (arr && json_array_size(arr) == 0) {
        jw_fail_at(&l->w, path, key, "at least one %s needed", what);
        return NULL;
    }
    return arr;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
    if (strlen(s) != 17)
        return -1;
    for (int i = 0; i < 6; i++) {
        const char *o = s + 3 * i;
        if (!isxdigit((unsigned char)o[0]) || !isxdigit((unsigned char)o[1]) || (i < 5 && o[2] != ':'))
            return -1;
        char hex[3] = {o[0], o[1], 0};
        mac[i] = (uint8_t)strtoul(hex, NULL, 16);
    }
    return 0;
}

static int find_ap(const struct adw_config *c, const char *id)
{
    for (unsigned i = 0; i < c->n_aps; i++)
        if (strcmp(c->aps[i].id, id) == 0)
            return (int)i;
    return -1;
}

/* An earlier AP (index below i) on AP i's port with its VLAN (0 = both untagged), or -1. */
static int find_same_port_vlan(const struct adw_config *c, unsigned i)
{
    for (unsigned j = 0; j < i; j++)
        if (c->aps[j].vlan == c->aps[i].vlan && strcmp(c->aps[j].port, c->aps[i].port) == 0)
            return (int)j;
    return -1;
}

static const struct adw_config *sort_cfg;
static int cmp_sta_id(const void *a, const void *b)
{
    return strcmp(sort_cfg->stas[*(const uint16_t *)a].id, sort_cfg->stas[*(const uint16_t *)b].id);
}

static int find_sta(const struct loader *l, const char *id)
{
    size_t lo = 0, hi = l->c->n_stas;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int r = strcmp(l->c->stas[l->sta_by_id[mid]].id, id);
        if (r == 0)
            return l->sta_by_id[mid];
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* "ap_id/sta_id" -> pair index (the STA's index); the STA must be on that AP. */
static int resolve_pair(struct loader *l, const json_t *v, const char *path, uint16_t *out)
{
    char name[ADW_PAIR_NAME_LEN];
    if (jw_elem_string(&l->w, v, path, name, sizeof(name)))
        return -1;
    char *slash = strchr(name, '/');
    if (!slash || strchr(slash + 1, '/')) {
        jw_fail(&l->w, path, "'%s' is not a pair 'ap_id/sta_id'", name);
        return -1;
    }
    *slash = '\0';
    int sta = find_sta(l, slash + 1);
    if (sta < 0) {
        jw_fail(&l->w, path, "no STA '%s' in topology.stas", slash + 1);
        return -1;
    }
    int ap = find_ap(l->c, name);
    if (ap < 0 || l->c->stas[sta].ap != ap) {
        jw_fail(&l->w, path, "STA '%s' is not associated with AP '%s'", slash + 1, name);
        return -1;
    }
    *out = (uint16_t)sta;
    return 0;
}

/* Reads element i of an array at `path` (e.g. "topology.aps[2]", the name its errors give) into what ctx
 * points to or into l->c; 0, or -1 with the error written. */
typedef int elem_reader(struct loader *l, const json_t *v, const char *path, size_t i, void *ctx);

/* Every element of arr, the array member `key` of the object at `path`, in order, through reader; the first one
 * refused ends the walk.  Elements must be objects with only the members `keys` (NULL: reader checks the element's
 * type itself).  arr NULL is an absent optional array, or one already refused (-1 then). */
static int read_elements(struct loader *l, const json_t *arr, const char *path, const char *key,
                         const char *const *keys, elem_reader *reader, void *ctx)
{
    if (!arr)
        return l->w.failed ? -1 : 0;
    char p[JW_PATH_LEN], e[JW_PATH_LEN];
    jw_path_key(p, path, key);
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        jw_path_index(e, p, i);
        if ((keys && jw_object(&l->w, v, e, keys)) || reader(l, v, e, i, ctx))
            return -1;
    }
    return 0;
}

static int read_pair(struct loader *l, const json_t *v, const char *path, size_t i, void *idx)
{
    return resolve_pair(l, v, path, &((uint16_t *)idx)[i]);
}

/* The array of pair names `key` (absent allowed unless required; at least min_len when present) into idx[], its
 * count into *n. */
static int read_pairs(struct loader *l, const json_t *obj, const char *path, const char *key, int required,
                      size_t min_len, uint16_t *idx, uint16_t *n)
{
    json_t *arr = jw_array(&l->w, obj, path, key, required, ADW_MAX_PAIRS);
    if (!arr)
        return l->w.failed ? -1 : 0;   /* an absent required array was refused by jw_array already */
    if (json_array_size(arr) < min_len)
        return jw_fail_at(&l->w, path, key, "at least %zu pair(s) needed", min_len);
    if (read_elements(l, arr, path, key, NULL, read_pair, idx))
        return -1;
    *n = (uint16_t)json_array_size(arr);
    return 0;
}

#define AP_NAME_MAX_CHARS 128   /* the controller's models and the schema: characters, as JSON Schema counts them */

/* Characters (code points) of a UTF-8 string: jansson has checked it is valid UTF-8. */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0u) != 0x80u;
    return n;
}

static int read_ap(struct loader *l, const json_t *v, const char *p, size_t i, void *ctx)
{
    (void)ctx;
    char name[4 * AP_NAME_MAX_CHARS + 1];   /* a UTF-8 character takes at most 4 bytes */
    struct adw_ap_cfg *ap = &l->c->aps[i];
    long long channel = 0, vlan = 0;
    if (read_id(l, v, p, "id", ap->id))
        return -1;
    /* Counted before the copy, whose size is in bytes: a name over the limit is refused in characters. */
    const json_t *jn = json_object_get(v, "name");
    size_t chars = jn && json_is_string(jn) ? utf8_chars(json_string_value(jn)) : 0;
    if (chars > AP_NAME_MAX_CHARS)
        return jw_fail_at(&l->w, p, "name", "%zu characters, at most %d allowed", chars, AP_NAME_MAX_CHARS);
    if (jw_string(&l->w, v, p, "name", 0, 0, name, sizeof(name))
        || jw_integer(&l->w, v, p, "channel", 1, 1, 233, &channel)
        || jw_string(&l->w, v, p, "port", 1, 0, ap->port, sizeof(ap->port)))
        return -1;
    json_t *jv = json_object_get(v, "vlan");
    if (jv && !json_is_null(jv) && jw_integer(&l->w, v, p, "vlan", 0, 1, 4094, &vlan))
        return -1;
    double ceiling_us;
    l->ceiling_mpdus[i] = 0;
    jv = json_object_get(v, "ampdu_ceiling_mpdus");
    if (jv && !json_is_null(jv)
        && jw_number(&l->w, v, p, "ampdu_ceiling_mpdus", 0, 1.0, 256.0, &l->ceiling_mpdus[i]))
        return -1;
    jv = json_object_get(v, "ampdu_ceiling_us");
    if (jv && !json_is_null(jv) && jw_number(&l->w, v, p, "ampdu_ceiling_us", 0, 100.0, 10000.0, &ceiling_us))
        return -1;
    if (!is_port_name(ap->port))
        return jw_fail_at(&l->w, p, "port", "'%s' is not a port name ([A-Za-z0-9][A-Za-z0-9_.:,=-]{0,127})",
                          ap->port);
    ap->channel = (uint16_t)channel;
    ap->vlan = (uint16_t)vlan;
    if (find_ap(l->c, ap->id) >= 0)
        return jw_fail_at(&l->w, p, "id", "duplicate AP id '%s'", ap->id);
    /* The port and VLAN are all that tells the APs' frames apart: a DPDK port demultiplexes by VLAN id, and
     * the NFQUEUE backend's interface of an AP is <port>.<vlan>, which would be one interface for both. */
    int same = find_same_port_vlan(l->c, (unsigned)i);
    if (same >= 0) {
        char vlan[16] = "untagged";
        if (ap->vlan)
            snprintf(vlan, sizeof(vlan), "vlan %u", (unsigned)ap->vlan);
        return jw_fail_at(&l->w, p, "vlan",
                          "AP '%s' has the port and VLAN of AP '%s' (port '%s', %s); APs on one port need each "
                          "its own vlan, at most one untagged", ap->id, l->c->aps[same].id, ap->port, vlan);
    }
    l->c->n_aps = (uint16_t)(i + 1);   /* counted as read: find_ap above sees only the APs before this one */
    return 0;
}

static int read_aps(struct loader *l, const json_t *topo)
{
    json_t *arr = nonempty_array(l, topo, "topology", "aps", ADW_MAX_APS, "AP");
    return arr ? read_elements(l, arr, "topology", "aps", AP_KEYS, read_ap, NULL) : -1;
}

static int read_sta_ip(struct loader *l, const json_t *v, const char *e, size_t j, void *sta)
{
    char text[46];
    if (jw_elem_string(&l->w, v, e, text, sizeof(text)))
        return -1;
    struct adw_ip_addr *a = &((struct adw_sta_cfg *)sta)->addrs[j];
    memset(a, 0, sizeof(*a));
    if (inet_pton(AF_INET, text, a->addr) == 1)
        a->family = 4;
    else if (inet_pton(AF_INET6, text, a->addr) == 1)
        a->family = 6;
    else {
        jw_fail(&l->w, e, "'%s' is not an IPv4 or IPv6 address", text);
        return -1;
    }
    return 0;
}

static int read_sta(struct loader *l, const json_t *v, const char *p, size_t i, void *ctx)
{
    (void)ctx;
    char text[ADW_ID_LEN];
    struct adw_sta_cfg *sta = &l->c->stas[i];
    if (read_id(l, v, p, "id", sta->id) || jw_string(&l->w, v, p, "mac", 1, 0, text, sizeof(text)))
        return -1;
    if (parse_mac(text, sta->mac))
        return jw_fail_at(&l->w, p, "mac", "'%s' is not a MAC address (six colon-separated hex octets)", text);
    if (sta->mac[0] & 1)
        return jw_fail_at(&l->w, p, "mac", "'%s' is a group address, a STA needs a unicast MAC", text);
    json_t *ips = jw_array(&l->w, v, p, "ips", 0, ADW_MAX_STA_ADDRS);
    if (read_elements(l, ips, p, "ips", NULL, read_sta_ip, sta))
        return -1;
    sta->n_addrs = (uint8_t)json_array_size(ips);
    double rate;
    json_t *jr = json_object_get(v, "phy_rate_mbps");
    if (jr && !json_is_null(jr) && jw_number(&l->w, v, p, "phy_rate_mbps", 0, 1.0, 10000.0, &rate))
        return -1;
    if (read_id(l, v, p, "ap", text))
        return -1;
    int ap = find_ap(l->c, text);
    if (ap < 0)
        return jw_fail_at(&l->w, p, "ap", "no AP '%s' in topology.aps", text);
    sta->ap = (uint16_t)ap;
    return 0;
}

static int read_stas(struct loader *l, const json_t *topo)
{
    json_t *arr = nonempty_array(l, topo, "topology", "stas", ADW_MAX_STAS, "STA");
    if (!arr || read_elements(l, arr, "topology", "stas", STA_KEYS, read_sta, NULL))
        return -1;
    l->c->n_stas = (uint16_t)json_array_size(arr);
    for (uint16_t k = 0; k < l->c->n_stas; k++)
        l->sta_by_id[k] = k;
    sort_cfg = l->c;
    qsort(l->sta_by_id, l->c->n_stas, sizeof(uint16_t), cmp_sta_id);
    for (uint16_t k = 1; k < l->c->n_stas; k++) {
        if (strcmp(l->c->stas[l->sta_by_id[k - 1]].id, l->c->stas[l->sta_by_id[k]].id) == 0) {
            char p[JW_PATH_LEN];
            uint16_t dup = l->sta_by_id[k] > l->sta_by_id[k - 1] ? l->sta_by_id[k] : l->sta_by_id[k - 1];
            jw_path_index(p, "topology.stas", dup);
            jw_fail(&l->w, p, "duplicate STA id '%s'", l->c->stas[dup].id);
            return -1;
        }
    }
    return 0;
}

static int read_conflict(struct loader *l, const json_t *v, const char *p, size_t i, void *ctx)
{
    (void)ctx;
    char e[JW_PATH_LEN];
    if (!json_is_array(v) || json_array_size(v) != 2) {
        jw_fail(&l->w, p, "expected a list of exactly two pairs");
        return -1;
    }
    jw_path_index(e, p, 0);
    if (resolve_pair(l, json_array_get(v, 0), e, &l->c->conflicts[i].a))
        return -1;
    jw_path_index(e, p, 1);
    return resolve_pair(l, json_array_get(v, 1), e, &l->c->conflicts[i].b);
}

static int read_conflicts(struct loader *l, const json_t *topo)
{
    json_t *arr = jw_array(&l->w, topo, "topology", "conflicts", 0, ADW_MAX_CONFLICTS);
    if (read_elements(l, arr, "topology", "conflicts", NULL, read_conflict, NULL))
        return -1;
    l->c->n_conflicts = (uint32_t)json_array_size(arr);
    return 0;
}

static int read_slice(struct loader *l, const json_t *v, const char *p, size_t i, void *ctx)
{
    (void)ctx;
    long long ms = 0;
    struct adw_slice_cfg *s = &l->c->slices[i];
    if (jw_integer(&l->w, v, p, "duration_ms", 1, 1, 500, &ms)
        || read_pairs(l, v, p, "pairs", 1, 1, s->pairs, &s->n_pairs))
        return -1;
    s->duration_ns = (uint64_t)ms * 1000000u;
    return 0;
}

static int read_slice_map(struct loader *l, const json_t *root)
{
    json_t *sm = jw_member(&l->w, root, "", "slice_map", 1);
    if (!sm || jw_object(&l->w, sm, "slice_map", SLICEMAP_KEYS))
        return -1;
    json_t *arr = nonempty_array(l, sm, "slice_map", "slices", ADW_MAX_SLICES, "slice");
    if (!arr || read_elements(l, arr, "slice_map", "slices", SLICE_KEYS, read_slice, NULL))
        return -1;
    l->c->n_slices = (uint16_t)json_array_size(arr);
    return 0;
}

static int read_u32(struct loader *l, const json_t *o, const char *p, const char *k, long long lo, long long hi,
                    uint32_t *out)
{
    long long v = 0;
    if (jw_integer(&l->w, o, p, k, 1, lo, hi, &v))
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int read_tsabr(struct loader *l, const json_t *pol)
{
    const char *p = "policies.ts_abr_qd";
    struct adw_tsabr_policy *t = &l->c->policies.ts_abr_qd;
    json_t *o = jw_member(&l->w, pol, "policies", "ts_abr_qd", 1);
    int early = 0;
    if (!o || jw_object(&l->w, o, p, TSABR_KEYS) || jw_bool(&l->w, o, p, "early_handover", 0, &early))
        return -1;
    t->early_handover = early;
    return jw_number_above(&l->w, o, p, "a_pkts_per_ms", 1, 0.0, 20.0, &t->a_pkts_per_ms)
        || read_u32(l, o, p, "r_init_pkts", 1, 65536, &t->r_init_pkts)
        || read_u32(l, o, p, "r_min_pkts", 1, 65536, &t->r_min_pkts)
        || read_u32(l, o, p, "r_max_pkts", 1, 65536, &t->r_max_pkts)
        || jw_number_above(&l->w, o, p, "v_cap_factor", 1, 1.0, 10.0, &t->v_cap_factor)
        || jw_number_above(&l->w, o, p, "rate_change_reset", 1, 0.0, 10.0, &t->rate_change_reset) ? -1 : 0;
}

static int read_dynamic(struct loader *l, const json_t *pol)
{
    const char *p = "policies.dynamic_slicing";
    struct adw_dynslice_policy *d = &l->c->policies.dynamic_slicing;
    int en = 0;
    json_t *o = jw_member(&l->w, pol, "policies", "dynamic_slicing", 1);
    if (!o || jw_object(&l->w, o, p, DYN_KEYS) || jw_bool(&l->w, o, p, "enabled", 1, &en)
        || read_pairs(l, o, p, "pairs", 0, 0, d->pairs, &d->n_pairs))
        return -1;
    d->enabled = en;
    return 0;
}

static int read_rt_dscp(struct loader *l, const json_t *v, const char *e, size_t i, void *ctx)
{
    (void)ctx;
    long long x;
    if (jw_elem_integer(&l->w, v, e, 0, 63, &x))
        return -1;
    l->c->policies.realtime.dscp[i] = (uint8_t)x;
    return 0;
}

static int read_rt_port(struct loader *l, const json_t *v, const char *e, size_t i, void *ctx)
{
    (void)ctx;
    long long x;
    if (jw_elem_integer(&l->w, v, e, 1, 65535, &x))
        return -1;
    l->c->policies.realtime.udp_ports[i] = (uint16_t)x;
    return 0;
}

static int read_realtime(struct loader *l, const json_t *pol)
{
    const char *p = "policies.realtime";
    struct adw_realtime_policy *r = &l->c->policies.realtime;
    long long x;
    json_t *o = jw_member(&l->w, pol, "policies", "realtime", 1);
    if (!o || jw_object(&l->w, o, p, RT_KEYS))
        return -1;
    json_t *dscp = jw_array(&l->w, o, p, "dscp", 0, ADW_MAX_RT_DSCP);
    if (read_elements(l, dscp, p, "dscp", NULL, read_rt_dscp, NULL))
        return -1;
    r->n_dscp = (uint8_t)(dscp ? json_array_size(dscp) : 0);
    json_t *ports = jw_array(&l->w, o, p, "udp_ports", 0, ADW_MAX_RT_PORTS);
    if (read_elements(l, ports, p, "udp_ports", NULL, read_rt_port, NULL))
        return -1;
    r->n_udp_ports = (uint8_t)(ports ? json_array_size(ports) : 0);
    /* Optional in the schema: absent means the defaults of adwiser/config.h. */
    r->hold_max_fraction = ADW_RT_HOLD_MAX_FRACTION_DEFAULT;
    x = ADW_RT_GUARD_US_DEFAULT;
    if (jw_number(&l->w, o, p, "hold_max_fraction", 0, 0.0, 1.0, &r->hold_max_fraction)
        || jw_integer(&l->w, o, p, "guard_us", 0, 0, ADW_RT_GUARD_US_MAX, &x))
        return -1;
    r->guard_us = (uint32_t)x;
    return 0;
}

static int read_queue_sizing(struct loader *l, const json_t *pol)
{
    const char *p = "policies.queue_sizing";
    struct adw_queue_sizing_policy *q = &l->c->policies.queue_sizing;
    double t_max_ms = 0;
    json_t *o = jw_member(&l->w, pol, "policies", "queue_sizing", 1);
    if (!o || jw_object(&l->w, o, p, QS_KEYS))
        return -1;
    if (jw_number_above(&l->w, o, p, "t_max_ms", 1, 0.0, 10000.0, &t_max_ms)
        || read_u32(l, o, p, "c_pkts", 0, 1024, &q->c_pkts)
        || read_u32(l, o, p, "q_max_pkts", 1, 1048576, &q->q_max_pkts)
        || read_u32(l, o, p, "q_min_pkts", 1, 1048576, &q->q_min_pkts)
        || jw_number_above(&l->w, o, p, "a1", 1, 0.0, 10.0, &q->a1)
        || jw_number_above(&l->w, o, p, "b1", 1, 0.0, 10.0, &q->b1)
        || jw_number_above(&l->w, o, p, "ewma_alpha", 1, 0.0, 1.0, &q->ewma_alpha))
        return -1;
    q->t_max_ns = (uint64_t)ceil(t_max_ms * 1e6);   /* up: any T_max the schema allows is at least 1 ns */
    return 0;
}

/* While the overrides are read: where each pair was first named (override index + 1, 0 = in none yet). */
struct override_walk {
    uint16_t pairs[ADW_MAX_PAIRS];           /* the override being read */
    uint16_t first_override[ADW_MAX_PAIRS];  /* by pair index */
    uint16_t first_pos[ADW_MAX_PAIRS];
};

static int check_agg_override(struct loader *l, const json_t *v, const char *e, size_t i, void *ctx)
{
    struct override_walk *ow = ctx;
    uint16_t n;
    long long nt;
    double tb;
    if (read_pairs(l, v, e, "pairs", 1, 1, ow->pairs, &n))
        return -1;
    /* The controller takes a pair's N-bar and T-bar from one override; a repeat inside one says the same. */
    for (uint16_t k = 0; k < n; k++) {
        uint16_t q = ow->pairs[k];
        if (ow->first_override[q] == 0) {
            ow->first_override[q] = (uint16_t)(i + 1);
            ow->first_pos[q] = k;
        } else if (ow->first_override[q] != i + 1) {
            char list[JW_PATH_LEN], at[JW_PATH_LEN], name[ADW_PAIR_NAME_LEN];
            jw_path_key(list, e, "pairs");
            jw_path_index(at, list, k);
            adw_config_pair_name(l->c, q, name, sizeof(name));
            jw_fail(&l->w, at, "pair %s is already in overrides[%u].pairs[%u]: a pair takes its N-bar and T-bar "
                    "from one override", name, ow->first_override[q] - 1u, (unsigned)ow->first_pos[q]);
            return -1;
        }
    }
    json_t *x = json_object_get(v, "n_target_max");
    if (x && !json_is_null(x)
        && jw_integer(&l->w, v, e, "n_target_max", 0, ADW_AGG_N_TARGET_MAX_MIN, ADW_AGG_N_TARGET_MAX_MAX, &nt))
        return -1;
    x = json_object_get(v, "t_bar_ms");
    if (x && !json_is_null(x) && jw_number_above(&l->w, v, e, "t_bar_ms", 0, 0.0, ADW_AGG_T_BAR_MS_MAX, &tb))
        return -1;
    return 0;
}

/* Overrides are the controller's (it computes per-class targets); checked here, not stored. */
static int check_agg_overrides(struct loader *l, const json_t *o, const char *p)
{
    json_t *arr = jw_array(&l->w, o, p, "overrides", 0, ADW_MAX_PAIRS);
    struct override_walk *ow = calloc(1, sizeof(*ow));
    if (!ow)
        return jw_fail_at(&l->w, p, "overrides", "out of memory");
    int rc = read_elements(l, arr, p, "overrides", AGG_OVERRIDE_KEYS, check_agg_override, ow);
    free(ow);
    return rc;
}

/* The optional parameters of the controller's aggregation loop, within the schema's bounds; and no AP's measured
 * aggregation ceiling above n_max_mpdus, the most one A-MPDU holds (the models' cross-field rule). */
static int check_agg_controller_fields(struct loader *l, const json_t *o, const char *p)
{
    double x;
    long long n, n_max = AGG_N_MAX_MPDUS_DEFAULT;
    if (jw_number_above(&l->w, o, p, "c_beta", 0, 0.0, 1.0, &x)
        || jw_number_above(&l->w, o, p, "c_init_us", 0, 0.0, 100000.0, &x)
        || jw_integer(&l->w, o, p, "packet_bytes", 0, 64, 9000, &n)
        || jw_integer(&l->w, o, p, "mpdu_overhead_bytes", 0, 0, 256, &n)
        || jw_integer(&l->w, o, p, "n_max_mpdus", 0, 1, 256, &n_max)
        || jw_integer(&l->w, o, p, "bottleneck_frames", 0, 1, 64, &n)
        || jw_integer(&l->w, o, p, "bottleneck_packets", 0, 1, 100000, &n))
        return -1;
    for (unsigned i = 0; i < l->c->n_aps; i++)
        if (l->ceiling_mpdus[i] > (double)n_max) {
            char e[JW_PATH_LEN];
            jw_path_index(e, "topology.aps", i);
            return jw_fail_at(&l->w, e, "ampdu_ceiling_mpdus",
                              "%g MPDUs is above %s.n_max_mpdus (%lld), the most one A-MPDU holds",
                              l->ceiling_mpdus[i], p, n_max);
        }
    return 0;
}

static int read_aggregation(struct loader *l, const json_t *pol)
{
    const char *p = "policies.aggregation_target";
    struct adw_aggregation_policy *a = &l->c->policies.aggregation_target;
    int en = 0;
    json_t *o = jw_member(&l->w, pol, "policies", "aggregation_target", 1);
    if (!o || jw_object(&l->w, o, p, AGG_KEYS) || jw_bool(&l->w, o, p, "enabled", 1, &en)
        || read_u32(l, o, p, "n_target_max", ADW_AGG_N_TARGET_MAX_MIN, ADW_AGG_N_TARGET_MAX_MAX, &a->n_target_max)
        || jw_number_above(&l->w, o, p, "t_bar_ms", 1, 0.0, ADW_AGG_T_BAR_MS_MAX, &a->t_bar_ms)
        || jw_number_between(&l->w, o, p, "k1", 1, 0.0, ADW_AGG_K1_BELOW, &a->k1)
        || jw_number_between(&l->w, o, p, "k2", 1, 0.0, ADW_AGG_K2_BELOW, &a->k2)
        || jw_number(&l->w, o, p, "delta_s", 1, ADW_AGG_DELTA_S_MIN, ADW_AGG_DELTA_S_MAX, &a->delta_s)
        || read_pairs(l, o, p, "pairs", 0, 0, a->pairs, &a->n_pairs) || check_agg_overrides(l, o, p)
        || check_agg_controller_fields(l, o, p))
        return -1;
    a->enabled = en;
    return 0;
}

static int read_document(struct loader *l, const json_t *root)
{
    long long sv = 0;
    if (jw_object(&l->w, root, "", ROOT_KEYS) || jw_integer(&l->w, root, "", "schema_version", 1, 1, 1, &sv)
        || read_id(l, root, "", "appliance_id", l->c->appliance_id))
        return -1;
    l->c->schema_version = (uint32_t)sv;
    json_t *topo = jw_member(&l->w, root, "", "topology", 1);
    if (!topo || jw_object(&l->w, topo, "topology", TOPO_KEYS) || read_aps(l, topo) || read_stas(l, topo)
        || read_conflicts(l, topo) || read_slice_map(l, root))
        return -1;
    json_t *pol = jw_member(&l->w, root, "", "policies", 1);
    if (!pol || jw_object(&l->w, pol, "policies", POLICY_KEYS) || read_tsabr(l, pol) || read_dynamic(l, pol)
        || read_realtime(l, pol) || read_queue_sizing(l, pol) || read_aggregation(l, pol))
        return -1;
    return 0;
}

static int load_root(json_t *root, struct adw_config *out, char *err, size_t errlen)
{
    struct loader l = {.w = {.err = err, .errlen = errlen}, .c = out};
    memset(out, 0, sizeof(*out));
    l.sta_by_id = calloc(ADW_MAX_STAS, sizeof(uint16_t));
    if (!l.sta_by_id) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = read_document(&l, root);
    free(l.sta_by_id);
    if (rc == 0 && !l.w.failed && adw_config_check(out, err, errlen) != 0)
        rc = -1;
    if (rc != 0 || l.w.failed)
        memset(out, 0, sizeof(*out));   /* refused whole: nothing half-filled is left behind */
    return rc != 0 || l.w.failed ? -1 : 0;
}

/* A document as jansson parsed it (root NULL: the syntax error is in je) loaded into *out; root is released. */
static int load_parsed(json_t *root, const json_error_t *je, struct adw_config *out, char *err, size_t errlen)
{
    if (!root) {
        snprintf(err, errlen, "not valid JSON at line %d column %d: %s", je->line, je->column, je->text);
        return -1;
    }
    int rc = load_root(root, out, err, errlen);
    json_decref(root);
    return rc;
}

int config_json_parse(const char *text, struct adw_config *out, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    return load_parsed(root, &je, out, err, errlen);
}

int config_json_load_file(const char *path, struct adw_config *out, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    return load_parsed(root, &je, out, err, errlen);
}

struct adw_config *config_json_alloc(void)
{
    return calloc(1, sizeof(struct adw_config));
}
