/*
 * air_config.c — loads the air model's JSON config (jansson).
 *
 * Every constant is an object {"value": ..., "source": "..."} so that each
 * number carries the standard clause or paper table it comes from; a
 * constant without a source, of the wrong type or out of range refuses the
 * whole file with a message naming the key.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "airtime.h"
#include "wlan_air.h"

struct loader {
    char *err;
    size_t errlen;
    int failed;
};

static void fail(struct loader *L, const char *fmt, ...)
{
    if (L->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(L->err, L->errlen, fmt, ap);
    va_end(ap);
    L->failed = 1;
}

/* The "value" of constant `key` inside `obj`, checking that it has a source. */
static json_t *constant(struct loader *L, json_t *obj, const char *where, const char *key)
{
    json_t *c = obj ? json_object_get(obj, key) : NULL;
    if (!c || !json_is_object(c)) {
        fail(L, "%s.%s: missing (expected {\"value\": ..., \"source\": \"...\"})", where, key);
        return NULL;
    }
    json_t *src = json_object_get(c, "source");
    if (!json_is_string(src) || json_string_length(src) == 0) {
        fail(L, "%s.%s: missing \"source\" (standard clause or paper table)", where, key);
        return NULL;
    }
    json_t *v = json_object_get(c, "value");
    if (!v)
        fail(L, "%s.%s: missing \"value\"", where, key);
    return v;
}

static double num(struct loader *L, json_t *obj, const char *where, const char *key, double lo, double hi)
{
    json_t *v = constant(L, obj, where, key);
    if (!v)
        return 0;
    if (!json_is_number(v)) {
        fail(L, "%s.%s: value must be a number", where, key);
        return 0;
    }
    double d = json_number_value(v);
    if (!(d >= lo && d <= hi)) {
        fail(L, "%s.%s: value %g out of range [%g, %g]", where, key, d, lo, hi);
        return 0;   /* refused, as a non-number is: callers convert it (a double beyond uint32_t's range has no
                     * defined conversion) and the load fails whole on the first error */
    }
    return d;
}

static uint32_t uint_(struct loader *L, json_t *obj, const char *where, const char *key, double lo, double hi)
{
    double d = num(L, obj, where, key, lo, hi);
    if (d != floor(d))
        fail(L, "%s.%s: value %g must be an integer", where, key, d);
    return (uint32_t)d;
}

static bool boolean(struct loader *L, json_t *obj, const char *where, const char *key)
{
    json_t *v = constant(L, obj, where, key);
    if (v && !json_is_boolean(v))
        fail(L, "%s.%s: value must be true or false", where, key);
    return v && json_is_true(v);
}

static json_t *section(struct loader *L, json_t *root, const char *key)
{
    json_t *s = json_object_get(root, key);
    if (!json_is_object(s))
        fail(L, "%s: missing section", key);
    return s;
}

/* The EDCA Parameter Set carries ECWmin/ECWmax, CW = 2^ECW - 1 (§9.4.2.29): the series CW = 2 CW + 1 walks. */
static void cw_of_the_series(struct loader *L, const char *where, const char *key, const char *field, uint32_t cw)
{
    if ((cw & (cw + 1)) != 0)
        fail(L, "%s.%s: %u is not 2^n - 1 (802.11-2016 §9.4.2.29 %s)", where, key, cw, field);
}

/* min_aifsn: 2 for the parameters non-AP STAs use (802.11-2016 §9.4.2.29: "The minimum value for the AIFSN
 * subfield is 2"); 1 for an AP's own queues (dot11QAPEDCATableAIFSN). */
static void load_edca(struct loader *L, json_t *mac, const char *key, uint32_t min_aifsn,
                      struct wlan_edca out[WLAN_AC_COUNT])
{
    static const char *acs[WLAN_AC_COUNT] = {"AC_BE", "AC_VO"};
    json_t *e = json_object_get(mac, key);
    if (!json_is_object(e)) {
        fail(L, "mac.%s: missing section", key);
        return;
    }
    for (int a = 0; a < WLAN_AC_COUNT; a++) {
        char where[64];
        snprintf(where, sizeof where, "mac.%s.%s", key, acs[a]);
        json_t *ac = json_object_get(e, acs[a]);
        if (!json_is_object(ac)) {
            fail(L, "%s: missing section", where);
            return;
        }
        out[a].aifsn = uint_(L, ac, where, "aifsn", min_aifsn, 15);
        out[a].cw_min = uint_(L, ac, where, "cw_min", 1, 1023);
        out[a].cw_max = uint_(L, ac, where, "cw_max", 1, 1023);
        out[a].txop_limit_us = uint_(L, ac, where, "txop_limit_us", 0, 8160);
        cw_of_the_series(L, where, "cw_min", "ECWmin", out[a].cw_min);
        cw_of_the_series(L, where, "cw_max", "ECWmax", out[a].cw_max);
        if (out[a].cw_max < out[a].cw_min)
            fail(L, "%s: cw_max %u below cw_min %u", where, out[a].cw_max, out[a].cw_min);
    }
}

static void load_phy(struct loader *L, json_t *phy, struct wlan_air_config *c)
{
    json_t *std = constant(L, phy, "phy", "standard");
    if (std && json_is_string(std) && strcmp(json_string_value(std), "ht") == 0)
        c->phy = WLAN_PHY_HT;
    else if (std && json_is_string(std) && strcmp(json_string_value(std), "vht") == 0)
        c->phy = WLAN_PHY_VHT;
    else if (std)
        fail(L, "phy.standard: value must be \"ht\" or \"vht\"");
    c->bandwidth_mhz = uint_(L, phy, "phy", "bandwidth_mhz", 20, 80);
    c->spatial_streams = uint_(L, phy, "phy", "spatial_streams", 1, 2);
    c->short_gi = boolean(L, phy, "phy", "short_gi");
    if (L->failed)
        return;
    c->n_mcs = (c->phy == WLAN_PHY_HT ? 8 : 10) * c->spatial_streams;
    for (uint32_t m = 0; m < c->n_mcs; m++)
        if (airtime_ndbps(c->phy, c->bandwidth_mhz, m) == 0)
            fail(L, "phy.bandwidth_mhz: MCS %u does not exist at %u MHz with %u spatial streams (the rate set is "
                 "MCS 0-%u per stream)", m, c->bandwidth_mhz, c->spatial_streams, c->phy == WLAN_PHY_HT ? 7 : 9);
    json_t *sens = constant(L, phy, "phy", "sensitivity_dbm");
    if (sens && (!json_is_array(sens) || json_array_size(sens) != c->n_mcs))
        fail(L, "phy.sensitivity_dbm: value must be an array of %u numbers (one per MCS)", c->n_mcs);
    for (uint32_t m = 0; !L->failed && m < c->n_mcs; m++) {
        json_t *v = json_array_get(sens, m);
        if (!json_is_number(v))
            fail(L, "phy.sensitivity_dbm[%u]: must be a number", m);
        else
            c->sensitivity_dbm[m] = json_number_value(v);
    }
    json_t *snr = constant(L, phy, "phy", "snr_required_db");
    if (snr && (!json_is_array(snr) || json_array_size(snr) != c->n_mcs))
        fail(L, "phy.snr_required_db: value must be an array of %u numbers (one per MCS)", c->n_mcs);
    for (uint32_t m = 0; !L->failed && m < c->n_mcs; m++) {
        json_t *v = json_array_get(snr, m);
        if (!json_is_number(v))
            fail(L, "phy.snr_required_db[%u]: must be a number", m);
        else
            c->snr_required_db[m] = json_number_value(v);
    }
    c->noise_floor_dbm = num(L, phy, "phy", "noise_floor_dbm", -120, -60);
    c->cs_threshold_dbm = num(L, phy, "phy", "cs_threshold_dbm", -100, -40);
    c->ed_threshold_dbm = num(L, phy, "phy", "ed_threshold_dbm", -100, -40);
    if (!L->failed && c->ed_threshold_dbm < c->cs_threshold_dbm)
        fail(L, "phy.ed_threshold_dbm: %.1f is below cs_threshold_dbm %.1f (energy detection needs more signal "
             "than preamble detection)", c->ed_threshold_dbm, c->cs_threshold_dbm);
    c->preamble_capture_db = num(L, phy, "phy", "preamble_capture_db", 0, 100);
    c->per_slope_per_db = num(L, phy, "phy", "per_slope_per_db", 0.1, 20);
    c->per_ref_bytes = uint_(L, phy, "phy", "per_ref_bytes", 1, 1048575);
    c->fading_sigma_db = num(L, phy, "phy", "fading_sigma_db", 0, 20);
}

static void load_mac(struct loader *L, json_t *mac, struct wlan_air_config *c)
{
    c->slot_us = uint_(L, mac, "mac", "slot_us", 1, 50);
    c->sifs_us = uint_(L, mac, "mac", "sifs_us", 1, 50);
    c->ba_rate_mbps = uint_(L, mac, "mac", "ba_rate_mbps", 6, 54);
    c->ba_bytes = uint_(L, mac, "mac", "ba_bytes", 14, 200);
    if (!L->failed && airtime_legacy_us(c->ba_rate_mbps, c->ba_bytes) == 0)
        fail(L, "mac.ba_rate_mbps: %u is not a non-HT OFDM rate", c->ba_rate_mbps);
    c->rts_rate_mbps = uint_(L, mac, "mac", "rts_rate_mbps", 6, 54);
    c->rts_bytes = uint_(L, mac, "mac", "rts_bytes", 14, 100);
    c->cts_bytes = uint_(L, mac, "mac", "cts_bytes", 14, 100);
    if (!L->failed && airtime_legacy_us(c->rts_rate_mbps, c->rts_bytes) == 0)
        fail(L, "mac.rts_rate_mbps: %u is not a non-HT OFDM rate", c->rts_rate_mbps);
    load_edca(L, mac, "edca_ap", 1, c->edca_ap);
    load_edca(L, mac, "edca_sta", 2, c->edca_sta);
    /* The compressed BlockAck's 8-octet bitmap acknowledges 64 MPDUs (§9.3.1.9.3): HT and VHT agreements span
     * at most 64 (larger windows came with 802.11ax). */
    c->ba_window = uint_(L, mac, "mac", "ba_window", 1, 64);
    /* Maximum A-MPDU Length Exponent: HT 0-3, up to 65535 octets (§9.4.2.56.3); VHT 0-7, up to 1048575
     * (§9.4.2.158.2). load_phy ran first. */
    c->max_ampdu_bytes = uint_(L, mac, "mac", "max_ampdu_bytes", 1600, c->phy == WLAN_PHY_HT ? 65535 : 1048575);
    c->max_ampdu_subframes = uint_(L, mac, "mac", "max_ampdu_subframes", 1, 256);
    c->max_ppdu_us = uint_(L, mac, "mac", "max_ppdu_us", 100, 5484);
    c->mac_overhead_bytes = uint_(L, mac, "mac", "mac_overhead_bytes", 0, 100);
    c->eth_header_bytes = uint_(L, mac, "mac", "eth_header_bytes", 0, 64);
    c->mpdu_retry_limit = uint_(L, mac, "mac", "mpdu_retry_limit", 1, 64);
    c->queue_limit_pkts = uint_(L, mac, "mac", "queue_limit_pkts", 1, 65536);
    if (!L->failed && c->max_ampdu_subframes > c->ba_window)
        fail(L, "mac.max_ampdu_subframes: %u exceeds the BlockAck window %u", c->max_ampdu_subframes, c->ba_window);
}

static void load_rc(struct loader *L, json_t *rc, struct wlan_air_config *c)
{
    c->rc_update_interval_us = uint_(L, rc, "rate_control", "update_interval_us", 1000, 10000000);
    c->rc_ewma_weight = num(L, rc, "rate_control", "ewma_weight", 0, 0.99);
    c->rc_sample_ratio = num(L, rc, "rate_control", "sample_ratio", 0, 0.5);
    c->rc_prob_cap = num(L, rc, "rate_control", "prob_cap", 0.1, 1);
    c->rc_initial_mcs = uint_(L, rc, "rate_control", "initial_mcs", 0, WLAN_MAX_MCS - 1);
    c->rc_rts_on_fallback = boolean(L, rc, "rate_control", "rts_on_fallback");
    if (!L->failed && c->rc_initial_mcs >= c->n_mcs)
        fail(L, "rate_control.initial_mcs: %u is not in the rate set (0..%u)", c->rc_initial_mcs, c->n_mcs - 1);
}

static int find_node(const struct wlan_air_config *c, const char *name)
{
    for (uint32_t i = 0; i < c->n_nodes; i++)
        if (strcmp(c->nodes[i].name, name) == 0)
            return (int)i;
    return -1;
}

static void load_topology(struct loader *L, json_t *root, struct wlan_air_config *c)
{
    json_t *nodes = constant(L, root, "topology", "nodes");
    if (!nodes)
        return;
    if (!json_is_array(nodes) || json_array_size(nodes) < 2 || json_array_size(nodes) > WLAN_MAX_NODES) {
        fail(L, "topology.nodes: value must be an array of 2..%d nodes", WLAN_MAX_NODES);
        return;
    }
    c->n_nodes = (uint32_t)json_array_size(nodes);
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        json_t *n = json_array_get(nodes, i);
        const char *name = json_string_value(json_object_get(n, "name"));
        const char *role = json_string_value(json_object_get(n, "role"));
        if (!name || strlen(name) == 0 || strlen(name) >= WLAN_NAME_LEN) {
            fail(L, "topology.nodes[%u].name: missing or longer than %d characters", i, WLAN_NAME_LEN - 1);
            return;
        }
        if (find_node(c, name) >= 0 && (uint32_t)find_node(c, name) < i) {
            fail(L, "topology.nodes[%u].name: duplicate name \"%s\"", i, name);
            return;
        }
        snprintf(c->nodes[i].name, WLAN_NAME_LEN, "%s", name);
        if (role && strcmp(role, "ap") == 0)
            c->nodes[i].role = WLAN_ROLE_AP;
        else if (role && strcmp(role, "sta") == 0)
            c->nodes[i].role = WLAN_ROLE_STA;
        else {
            fail(L, "topology.nodes[%u].role: must be \"ap\" or \"sta\"", i);
            return;
        }
        c->nodes[i].ap = -1;
    }
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        if (c->nodes[i].role != WLAN_ROLE_STA)
            continue;
        const char *ap = json_string_value(json_object_get(json_array_get(nodes, i), "ap"));
        int a = ap ? find_node(c, ap) : -1;
        if (a < 0 || c->nodes[a].role != WLAN_ROLE_AP) {
            fail(L, "topology.nodes[%u].ap: STA \"%s\" must name an AP of the topology", i, c->nodes[i].name);
            return;
        }
        c->nodes[i].ap = a;
    }
    json_t *rss = constant(L, root, "topology", "rss_dbm");
    if (!rss)
        return;
    if (!json_is_array(rss) || json_array_size(rss) != c->n_nodes) {
        fail(L, "topology.rss_dbm: value must be a %ux%u matrix", c->n_nodes, c->n_nodes);
        return;
    }
    for (uint32_t i = 0; i < c->n_nodes; i++) {
        json_t *row = json_array_get(rss, i);
        if (!json_is_array(row) || json_array_size(row) != c->n_nodes) {
            fail(L, "topology.rss_dbm[%u]: row must have %u entries", i, c->n_nodes);
            return;
        }
        for (uint32_t j = 0; j < c->n_nodes; j++) {
            json_t *v = json_array_get(row, j);
            if (i == j) {
                c->rss_dbm[i][j] = 0;
                continue;
            }
            if (!json_is_number(v) || json_number_value(v) > 0 || json_number_value(v) < -150) {
                fail(L, "topology.rss_dbm[%u][%u]: must be a number in [-150, 0] dBm", i, j);
                return;
            }
            c->rss_dbm[i][j] = json_number_value(v);
        }
    }
}

int wlan_air_config_load(const char *path, struct wlan_air_config *out, char *err, size_t errlen)
{
    struct loader L = {.err = err, .errlen = errlen};
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
        return -1;
    }
    struct wlan_air_config c;
    memset(&c, 0, sizeof c);
    json_t *phy = section(&L, root, "phy");
    json_t *mac = section(&L, root, "mac");
    json_t *rc = section(&L, root, "rate_control");
    json_t *topo = section(&L, root, "topology");
    if (!L.failed)
        load_phy(&L, phy, &c);
    if (!L.failed)
        load_mac(&L, mac, &c);
    if (!L.failed)
        load_rc(&L, rc, &c);
    if (!L.failed)
        load_topology(&L, topo, &c);
    json_decref(root);
    if (L.failed)
        return -1;
    *out = c;
    return 0;
}
