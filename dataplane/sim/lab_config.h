/*
 * lab_config.h — the 2AP-2STA lab of 004 §4 (configs/lab-2ap-2sta.yaml) as a
 * struct adw_config, for the simulation and the tests: AP1-STA1 and AP2-STA2
 * conflict and alternate in slices of slice_ms each.
 */
#ifndef ADW_SIM_LAB_CONFIG_H
#define ADW_SIM_LAB_CONFIG_H

#include "adwiser/config.h"

/* Heap-allocated (free with free()); NULL on allocation failure. */
struct adw_config *lab_config_2ap_2sta(unsigned slice_ms);

/* MACs and IPv4 addresses of the lab's STAs (index 0 = sta1) and of the server behind the uplink. */
extern const uint8_t LAB_STA_MAC[2][6];
extern const uint8_t LAB_STA_IP[2][4];
extern const uint8_t LAB_SRV_MAC[6];
extern const uint8_t LAB_SRV_IP[4];

#endif
