/* Port roles and address lookups from the configuration; see dp_topology.h. */
#include "dp_topology.h"

#include <net/if.h>
#include <stdio.h>
#include <string.h>

/* Where the name of scheduler port i came from (dp_topology_port_names' order of precedence). */
static void name_source(const struct dp_options *o, const struct adw_config *cfg, unsigned i, char *out, size_t len)
{
    if (i == 0) {
        snprintf(out, len, "--uplink");
        return;
    }
    const struct adw_ap_cfg *ap = &cfg->aps[i - 1];
    for (unsigned b = 0; b < o->n_aps; b++)
        if (strcmp(ap->id, o->aps[b].ap_id) == 0) {
            snprintf(out, len, "--ap %s=%s", o->aps[b].ap_id, o->aps[b].port);
            return;
        }
    for (unsigned a = 0; a < o->n_aliases; a++)
        if (strcmp(ap->port, o->aliases[a].name) == 0) {
            snprintf(out, len, "--port %s=%s", o->aliases[a].name, o->aliases[a].port);
            return;
        }
    snprintf(out, len, "topology.aps[%u].port", i - 1);
}

/*
 * Two APs named onto one port with one VLAN (0 = untagged) by --ap or --port (the loader refuses it within the
 * document): a start cannot tell their frames apart (DPDK refuses it when binding; NFQUEUE would open one
 * interface for both), so --check-config, given the same bindings, refuses it too.
 */
static int check_shared_names(const struct dp_options *o, const struct adw_config *cfg, const char *const *names,
                              const uint16_t *vlans, char *err, size_t errlen)
{
    /* An AP on the uplink's port: the DPDK backend never shares the uplink (dpdk_ports.c refuses it when binding);
     * under NFQUEUE only a tagged AP is another interface (<port>.<vlan>), an untagged one would be the uplink. */
    for (unsigned i = 1; names[0] && i <= cfg->n_aps; i++) {
        if (strcmp(names[i], names[0]) != 0 || (o->backend == DP_BACKEND_NFQUEUE && vlans[i]))
            continue;
        char source[2 * DP_NAME_LEN + 16];
        name_source(o, cfg, i, source, sizeof(source));
        snprintf(err, errlen, "%s: AP '%s' gets the uplink's port '%s'; the uplink is never shared%s", source,
                 cfg->aps[i - 1].id, names[0],
                 o->backend == DP_BACKEND_NFQUEUE ? " with an untagged AP" : " (DPDK backend)");
        return -1;
    }
    for (unsigned i = 2; i <= cfg->n_aps; i++) {
        for (unsigned j = 1; j < i; j++) {
            if (vlans[i] != vlans[j] || strcmp(names[i], names[j]) != 0)
                continue;
            char source[2 * DP_NAME_LEN + 16], vlan[16] = "untagged";
            name_source(o, cfg, i, source, sizeof(source));
            if (vlans[i])
                snprintf(vlan, sizeof(vlan), "vlan %u", (unsigned)vlans[i]);
            snprintf(err, errlen, "%s: AP '%s' gets the port and VLAN of AP '%s' (port '%s', %s); APs on one port "
                     "need each its own vlan, at most one untagged", source, cfg->aps[i - 1].id,
                     cfg->aps[j - 1].id, names[i], vlan);
            return -1;
        }
    }
    return 0;
}

int dp_topology_port_names(const struct dp_options *o, const struct adw_config *cfg, const char **roles,
                           const char **names, uint16_t *vlans, unsigned *n_ports, char *err, size_t errlen)
{
    if (cfg->n_aps > DP_MAX_AP_PORTS) {
        snprintf(err, errlen, "topology.aps: %u APs, adwiser-dp drives at most %d AP ports", cfg->n_aps,
                 DP_MAX_AP_PORTS);
        return -1;
    }
    for (unsigned a = 0; a < o->n_aliases; a++) {
        unsigned i;
        for (i = 0; i < cfg->n_aps && strcmp(cfg->aps[i].port, o->aliases[a].name) != 0; i++)
            ;
        if (i == cfg->n_aps) {
            snprintf(err, errlen, "--port %s=%s: no AP has port '%s' in topology.aps", o->aliases[a].name,
                     o->aliases[a].port, o->aliases[a].name);
            return -1;
        }
    }
    for (unsigned b = 0; b < o->n_aps; b++) {
        unsigned i;
        for (i = 0; i < cfg->n_aps && strcmp(cfg->aps[i].id, o->aps[b].ap_id) != 0; i++)
            ;
        if (i == cfg->n_aps) {
            snprintf(err, errlen, "--ap %s=%s: no AP '%s' in topology.aps", o->aps[b].ap_id, o->aps[b].port,
                     o->aps[b].ap_id);
            return -1;
        }
    }
    roles[0] = "uplink";
    names[0] = o->uplink;
    vlans[0] = 0;
    for (unsigned i = 0; i < cfg->n_aps; i++) {
        roles[i + 1] = cfg->aps[i].id;
        names[i + 1] = cfg->aps[i].port;
        vlans[i + 1] = cfg->aps[i].vlan;
        for (unsigned a = 0; a < o->n_aliases; a++)
            if (strcmp(cfg->aps[i].port, o->aliases[a].name) == 0)
                names[i + 1] = o->aliases[a].port;
        for (unsigned b = 0; b < o->n_aps; b++)
            if (strcmp(cfg->aps[i].id, o->aps[b].ap_id) == 0)
                names[i + 1] = o->aps[b].port;
    }
    *n_ports = cfg->n_aps + 1u;
    return check_shared_names(o, cfg, names, vlans, err, errlen);
}

int dp_topology_check_ifnames(const struct dp_options *o, const struct adw_config *cfg, const char *const *names,
                              const uint16_t *vlans, unsigned n, char *err, size_t errlen)
{
    for (unsigned i = 0; i < n; i++) {
        if (!names[i])
            continue;
        char vlan[8] = "";
        if (vlans[i])
            snprintf(vlan, sizeof(vlan), ".%u", (unsigned)vlans[i]);
        size_t len = strlen(names[i]) + strlen(vlan);
        if (len < IFNAMSIZ)
            continue;
        char source[2 * DP_NAME_LEN + 16];
        name_source(o, cfg, i, source, sizeof(source));
        snprintf(err, errlen, "%s: %sinterface name '%s%s' is %zu characters, Linux allows at most %d (--backend nfqueue)",
                 source, vlans[i] ? "VLAN " : "", names[i], vlan, len, IFNAMSIZ - 1);
        return -1;
    }
    return 0;
}

int dp_topology_same_aps(const struct adw_config *a, const struct adw_config *b, char *err, size_t errlen)
{
    if (a->n_aps != b->n_aps) {
        snprintf(err, errlen, "topology.aps: %u APs where %u ports are bound; restart adwiser-dp to change ports",
                 b->n_aps, a->n_aps);
        return -1;
    }
    for (unsigned i = 0; i < a->n_aps; i++) {
        if (a->aps[i].vlan != b->aps[i].vlan || strcmp(a->aps[i].port, b->aps[i].port) != 0) {
            snprintf(err, errlen, "topology.aps[%u]: port or vlan changed from the one bound at start; restart to change ports",
                     i);
            return -1;
        }
        if (strcmp(a->aps[i].id, b->aps[i].id) != 0) {
            snprintf(err, errlen, "topology.aps[%u].id: '%s' where port %u is bound to '%s'; restart to change ports",
                     i, b->aps[i].id, i + 1, a->aps[i].id);
            return -1;
        }
    }
    return 0;
}
