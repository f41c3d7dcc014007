/* The checks of a start without the start; see config_check.h. */
#include "config_check.h"

#include <stdio.h>
#include <stdlib.h>

#include "adwiser/sched.h"
#include "dp_engine.h"
#include "dp_topology.h"
#include "pacing_table.h"

static int check_with_config(const struct dp_options *o, const struct adw_config *cfg, char *err, size_t errlen)
{
    char why[400];
    const char *roles[1 + DP_MAX_AP_PORTS], *names[1 + DP_MAX_AP_PORTS];
    uint16_t vlans[1 + DP_MAX_AP_PORTS];
    unsigned n_ports;
    if (dp_topology_port_names(o, cfg, roles, names, vlans, &n_ports, err, errlen) != 0)
        return -1;
    if (o->backend == DP_BACKEND_NFQUEUE && dp_topology_check_ifnames(o, cfg, names, vlans, n_ports, err, errlen) != 0)
        return -1;
    struct adw_sched_params p = {.pool_pkts = 1024, .report_frames = 1};
    struct adw_sched *s = adw_sched_create(&p, cfg, 0, why, sizeof(why));
    if (!s) {
        snprintf(err, errlen, "%s: %s", o->config_path, why);
        return -1;
    }
    /* The ACK model is checked by the core it is handed to, so the check builds a (small) core. */
    struct adw_ack_model m;
    int rc = o->ack_model_path ? dp_engine_load_ack_model(o->ack_model_path, s, &m, err, errlen) : 0;
    adw_sched_free(s);
    if (rc == 0 && o->pacing_path) {
        struct pacing_table *t = dp_engine_load_pacing(o->pacing_path, err, errlen);
        rc = t ? 0 : -1;
        pacing_table_free(t);
    }
    return rc;
}

int dp_config_check(const struct dp_options *o, char *err, size_t errlen)
{
    char why[400];
    struct adw_config *cfg = dp_engine_load_config(o->config_path, why, sizeof(why));
    if (!cfg) {
        snprintf(err, errlen, "%s: %s", o->config_path, why);
        return -1;
    }
    int rc = check_with_config(o, cfg, err, errlen);
    free(cfg);
    return rc;
}
