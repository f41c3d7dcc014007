"""The appliance's switching fabric on Open vSwitch, and its fail-open (issue 10, SPEC §2).

An OVS bridge joins the uplink port, the AP-facing ports and the dataplane's
ports (one veth pair per dataplane port: `fb-<x>` on the bridge, `dp-<x>` for
the dataplane). OpenFlow rules, kept in step with the topology, steer managed
traffic (frames to and from the STAs of the configuration) through the
dataplane and carry everything else straight across with normal MAC learning.

A watchdog judges the dataplane's liveness from its Redis heartbeat
(controller/REDIS.md), its process state and its ports; when it is dead,
stopped or stalled it swaps the whole flow table, atomically (an OpenFlow 1.4
bundle), to bypass rules that carry managed traffic straight across too, and
steers back once the dataplane is healthy again. Nothing else is restarted.

    plan.py          which bridge ports exist and what they are called
    flows.py         the flow table for a topology in steered or bypass mode
    ovs.py           ovs-vsctl / ovs-ofctl against a private OVS run directory
    links.py         the veth pairs towards the dataplane
    port_buffers.py  the receive buffers OVS's port sockets need for a slice batch
    liveness.py      the verdict on the dataplane's health
    manager.py       the loop: topology following, watchdog, mode switches
"""
