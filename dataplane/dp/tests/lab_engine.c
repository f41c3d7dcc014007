/* lab_engine.c — see lab_engine.h. */
#include "lab_engine.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

void lab_engine_start(struct dp_engine *e, struct dp_options *o, unsigned n_ports, const char *backend,
                      uint64_t now_ns)
{
    char err[512];
    const char *lab = getenv("ADW_LAB_JSON");
    assert_non_null(lab);
    o->config_path = lab;
    struct adw_config *cfg = dp_engine_load_config(lab, err, sizeof(err));
    if (!cfg)
        fail_msg("%s", err);
    if (dp_engine_start(e, o, cfg, n_ports, backend, now_ns, err, sizeof(err)) != 0)
        fail_msg("%s", err);
}
