/*
 * What the backends need from the topology beyond the core: which port
 * (DPDK port or interface) plays which role.  (The MAC of the STA owning an
 * IPv4 address, for the NFQUEUE backend, is sta_ip_map.h.)
 */
#ifndef ADW_DP_TOPOLOGY_H
#define ADW_DP_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

#include "adwiser/config.h"
#include "dp_options.h"

/*
 * roles[0] = "uplink", names[0] = --uplink; roles[k] = AP k-1's id,
 * names[k] = its --ap binding or else its `port`, vlans[k] its `vlan`
 * (0 = untagged; vlans[0] = 0).  Pointers into o and cfg.  Refuses --ap
 * bindings that name no AP of the configuration, and --ap/--port bindings
 * that give two APs one port name and one VLAN.
 */
int dp_topology_port_names(const struct dp_options *o, const struct adw_config *cfg, const char **roles,
                           const char **names, uint16_t *vlans, unsigned *n_ports, char *err, size_t errlen);

/*
 * --backend nfqueue: every port dp_topology_port_names named (names[k],
 * vlans[k], n of them) must name a Linux interface, at most
 * IFNAMSIZ - 1 characters including the ".<vlan>" of an AP behind a VLAN
 * (the kernel never has a longer one, and glibc's if_nametoindex refuses it
 * as "no such device").  Refuses the first that is longer, naming where it
 * came from (--uplink, --ap, --port or topology.aps[k].port); a NULL
 * --uplink (--check-config) is not checked.
 */
int dp_topology_check_ifnames(const struct dp_options *o, const struct adw_config *cfg, const char *const *names,
                              const uint16_t *vlans, unsigned n, char *err, size_t errlen);

/* 0 when b has the same APs in the same order as a (ports stay bound across a reload). */
int dp_topology_same_aps(const struct adw_config *a, const struct adw_config *b, char *err, size_t errlen);

#endif
