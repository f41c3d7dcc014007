/*
 * rss_step.c — wlan-emu's --rss-step (see rss_step.h).
 */
#include <stdio.h>

#include "rss_step.h"

int rss_step_parse(const wlan_air_t *air, const char *spec, struct rss_step *out, char *err, size_t errlen)
{
    char a[64], b[64];
    double d;
    char tail;
    if (sscanf(spec, "%63[^,],%63[^,],%lf%c", a, b, &d, &tail) != 3) {
        snprintf(err, errlen, "'%s': expected NODE,NODE,DELTA_DB", spec);
        return -1;
    }
    out->a = wlan_air_node_index(air, a);
    out->b = wlan_air_node_index(air, b);
    if (out->a < 0 || out->b < 0 || out->a == out->b) {
        snprintf(err, errlen, "'%s': '%s' and '%s' must be two nodes of the air config", spec, a, b);
        return -1;
    }
    if (!(d >= -60.0 && d <= 60.0)) {
        snprintf(err, errlen, "'%s': DELTA_DB must be within [-60, 60] dB", spec);
        return -1;
    }
    out->delta_db = d;
    return 0;
}

/* Applies every --rss-step once per SIGUSR1 received, logging what the link's RSS became. */
void rss_steps_apply(wlan_air_t *air, const struct rss_step *st, int n, uint64_t now_us,
                     const struct wlan_air_callbacks *cb)
{
    /* The loop reads the clock before it runs the air: what started in between is before the step. */
    wlan_air_advance(air, now_us, cb);
    const struct wlan_air_config *c = wlan_air_config(air);
    for (int i = 0; i < n; i++) {
        if (wlan_air_shift_link_rss(air, st[i].a, st[i].b, st[i].delta_db) != 0) {
            fprintf(stderr, "wlan-emu: rss step %s<->%s %+.1f dB at %llu us refused (outside [-150, 0] dBm)\n",
                    c->nodes[st[i].a].name, c->nodes[st[i].b].name, st[i].delta_db, (unsigned long long)now_us);
            continue;
        }
        fprintf(stderr, "wlan-emu: rss step at %llu us: %s<->%s %+.1f dB, now %.1f dBm at %s, %.1f dBm at %s\n",
                (unsigned long long)now_us, c->nodes[st[i].a].name, c->nodes[st[i].b].name, st[i].delta_db,
                c->rss_dbm[st[i].b][st[i].a], c->nodes[st[i].b].name, c->rss_dbm[st[i].a][st[i].b],
                c->nodes[st[i].a].name);
    }
}
