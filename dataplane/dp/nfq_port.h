/*
 * Which scheduler port a queued packet came in on.  Routed, the kernel's
 * input interface is the port's own interface.  Bridged (br_netfilter's
 * iptables FORWARD on a Linux bridge, SPEC: "a Linux bridge or router"), the
 * input interface is the bridge itself and the port it came in on is the
 * physical input interface (NFQA_IFINDEX_PHYSINDEV).  The same holds for
 * the port it leaves on, from the output devices (a flood's count).
 */
#ifndef ADW_DP_NFQ_PORT_H
#define ADW_DP_NFQ_PORT_H

#include <stdint.h>

/* Index i with ifindex[i] == physindev (if not 0), else == indev; -1 if neither is one of the n ports. */
int nfq_port_of(const int *ifindex, unsigned n, uint32_t indev, uint32_t physindev);

#endif
