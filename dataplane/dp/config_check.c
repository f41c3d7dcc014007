/* The checks of a start without the start; see config_check.h. */
#include "config_check.h"

#include <stdio.h>
#include <stdlib.h>

#include "ack_model_json.h"
#include "adwiser/sched.h"
#include "config_json.h"
#include "dp_topology.h"
#include "pacing_table.h"

/* The ACK model is checked by the core when it is handed one, so the check builds a (small) core to hand it to. */
static int check_ack_model(const struct dp_options *o, struct adw_sched *s, char *err, size_t errlen)
{
    struct adw_ack_model m;
    char why[400];
    if (ack_model_json_load_file(o->ack_model_path, ACK_MODEL_KIND_ACK_BURST, &m, why, sizeof(why)) != 0
        || adw_sched_set_ack_model(s, &m, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "--ack-model %s: %s", o->ack_model_path, why);
        return -1;
    }
    return 0;
}

static int check_pacing(const struct dp_options *o, char *err, size_t errlen)
{
    char why[400];
    struct pacing_table *t = pacing_table_load_file(o->pacing_path, why, sizeof(why));
    if (!t) {
        snprintf(err, errlen, "--pacing %s: %s", o->pacing_path, why);
        return -1;
    }
    pacing_table_free(t);
    return 0;
}

static int check_with_config(const struct dp_options *o, const struct adw_config *cfg, char *err, size_t errlen)
{
    char why[400];
    const char *roles[1 + DP_MAX_AP_PORTS], *names[1 + DP_MAX_AP_PORTS];
    uint16_t vlans[1 + DP_MAX_AP_PORTS];
    unsigned n_ports;
    if (dp_topology_port_names(o, cfg, roles, names, vlans, &n_ports, err, errlen) != 0)
        return -1;
    struct adw_sched_params p = {.pool_pkts = 1024, .report_frames = 1};
    struct adw_sched *s = adw_sched_create(&p, cfg, 0, why, sizeof(why));
    if (!s) {
        snprintf(err, errlen, "%s: %s", o->config_path, why);
        return -1;
    }
    int rc = o->ack_model_path ? check_ack_model(o, s, err, errlen) : 0;
    adw_sched_free(s);
    if (rc == 0 && o->pacing_path)
        rc = check_pacing(o, err, errlen);
    return rc;
}

int dp_config_check(const struct dp_options *o, char *err, size_t errlen)
{
    char why[400];
    struct adw_config *cfg = config_json_alloc();
    if (!cfg) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = config_json_load_file(o->config_path, cfg, why, sizeof(why));
    if (rc != 0)
        snprintf(err, errlen, "%s: %s", o->config_path, why);
    else
        rc = check_with_config(o, cfg, err, errlen);
    free(cfg);
    return rc;
}
