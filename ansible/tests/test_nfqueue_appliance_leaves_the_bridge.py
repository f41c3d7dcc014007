"""An appliance switched from dpdk to nfqueue had its uplink and AP ports put on the Open vSwitch bridge, and OVS
keeps a port in its database until it is deleted: while they are on the bridge OVS takes their frames and the kernel,
whose FORWARD chain holds the NFQUEUE rule, never routes them. So on nfqueue the bridge script deletes exactly those
ports from the bridge (not every port it does not list: the controller's fabric adds ports of its own); on dpdk it
deletes none."""

from __future__ import annotations

from pathlib import Path

from conftest import Run
from roles_rendered import rendered
from test_nfqueue_appliance_forwards_through_the_kernel import APPLIANCE_ROLES, SOUTH

BRIDGE_SCRIPT = {"script": "openvswitch/templates/adwiser-ovs-bridge.j2"}


def _lines(script: str) -> list[str]:
    return [" ".join(line.split()) for line in script.splitlines()]


def test_an_nfqueue_appliance_takes_its_uplink_and_ap_ports_off_the_bridge(playbook: Run, tmp_path: Path) -> None:
    out = rendered(playbook, tmp_path, APPLIANCE_ROLES, {**SOUTH, "adwiser_backend": "nfqueue"},
                   templates=BRIDGE_SCRIPT)
    lines = _lines(out["script"])
    deleted = sorted(line for line in lines if "del-port" in line)
    assert deleted == ['$vsctl --if-exists del-port br-adwiser eno1', '$vsctl --if-exists del-port br-adwiser eno2']
    assert not any("add-port" in line for line in lines)


def test_a_dpdk_appliance_takes_no_port_off_the_bridge(playbook: Run, tmp_path: Path) -> None:
    out = rendered(playbook, tmp_path, APPLIANCE_ROLES, {**SOUTH, "adwiser_backend": "dpdk"}, templates=BRIDGE_SCRIPT)
    assert "del-port" not in out["script"]
