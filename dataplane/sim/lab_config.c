/* lab_config.c — see lab_config.h; mirrors configs/lab-2ap-2sta.yaml. */
#include "lab_config.h"

#include <stdlib.h>
#include <string.h>

const uint8_t LAB_STA_MAC[2][6] = {{0x02, 0xad, 0, 0, 1, 1}, {0x02, 0xad, 0, 0, 2, 1}};
const uint8_t LAB_STA_IP[2][4] = {{198, 18, 0, 11}, {198, 18, 0, 12}};
const uint8_t LAB_SRV_MAC[6] = {0x02, 0xad, 0, 0, 0, 0xfe};
const uint8_t LAB_SRV_IP[4] = {198, 18, 0, 1};

struct adw_config *lab_config_2ap_2sta(unsigned slice_ms)
{
    struct adw_config *c = calloc(1, sizeof(*c));
    if (c == NULL)
        return NULL;
    c->schema_version = ADW_SCHEMA_VERSION;
    c->version = 1;
    strcpy(c->appliance_id, "lab");
    c->n_aps = 2;
    for (unsigned i = 0; i < 2; i++) {
        struct adw_ap_cfg *a = &c->aps[i];
        a->id[0] = 'a', a->id[1] = 'p', a->id[2] = (char)('1' + i);
        memcpy(a->port, a->id, 4);
        a->channel = 36;
        struct adw_sta_cfg *s = &c->stas[i];
        s->id[0] = 's', s->id[1] = 't', s->id[2] = 'a', s->id[3] = (char)('1' + i);
        memcpy(s->mac, LAB_STA_MAC[i], 6);
        s->n_addrs = 1;
        s->addrs[0].family = 4;
        memcpy(s->addrs[0].addr, LAB_STA_IP[i], 4);
        s->ap = (uint16_t)i;
        c->slices[i].duration_ns = (uint64_t)slice_ms * 1000000ull;
        c->slices[i].n_pairs = 1;
        c->slices[i].pairs[0] = (uint16_t)i;
    }
    c->n_stas = 2;
    c->n_conflicts = 1;
    c->conflicts[0].a = 0;
    c->conflicts[0].b = 1;
    c->n_slices = 2;
    adw_config_default_policies(&c->policies);
    return c;
}
