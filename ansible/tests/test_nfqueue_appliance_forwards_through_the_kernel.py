"""An nfqueue appliance forwards between its uplink and AP interfaces through the kernel, as a router with proxy
ARP (dataplane/dp/README.md, "NFQUEUE: the appliance namespace as a router"): its FORWARD chain is where the
NFQUEUE rule hands packets to adwiser-dp. None of those interfaces is a port of the Open vSwitch bridge, whose
forwarding would pass the kernel's FORWARD chain by. A dpdk appliance keeps its bridge ports."""

from __future__ import annotations

from pathlib import Path

import yaml

from conftest import ANSIBLE, Run
from roles_rendered import rendered

SOUTH = yaml.safe_load((ANSIBLE / "inventories" / "campus" / "host_vars" / "adw-south-1.yml").read_text())
APPLIANCE_ROLES = ["common", "openvswitch", "dpdk", "dataplane"]


def test_no_interface_of_an_nfqueue_appliance_is_on_the_bridge(playbook: Run, tmp_path: Path) -> None:
    out = rendered(playbook, tmp_path, APPLIANCE_ROLES, {**SOUTH, "adwiser_backend": "nfqueue"}, values=["ovs_ports"])
    assert out["ovs_ports"] == []


def test_a_dpdk_appliance_keeps_its_kernel_interfaces_on_the_bridge(playbook: Run, tmp_path: Path) -> None:
    out = rendered(playbook, tmp_path, APPLIANCE_ROLES, {**SOUTH, "adwiser_backend": "dpdk"}, values=["ovs_ports"])
    assert out["ovs_ports"] == [{"name": "eno1"}, {"name": "eno2", "trunks": [201, 202]}]


def test_the_nfqueue_rules_unit_makes_the_appliance_a_proxy_arp_router(playbook: Run, tmp_path: Path) -> None:
    out = rendered(playbook, tmp_path, APPLIANCE_ROLES, {**SOUTH, "adwiser_backend": "nfqueue"},
                   templates={"script": "dataplane/templates/adwiser-nfqueue-rules.j2"})
    start = out["script"].split("start)", 1)[1].split(";;", 1)[0]
    lines = [" ".join(line.split()) for line in start.splitlines()]
    assert "ip link add link eno2 name eno2.201 type vlan id 201" in start
    assert "ip link add link eno2 name eno2.202 type vlan id 202" in start
    assert "set_sysctl net/ipv4/ip_forward 1" in lines
    for dev in ("eno1", "eno2.201", "eno2.202"):
        assert f"set_sysctl net/ipv4/conf/{dev}/proxy_arp 1" in lines, dev
    assert f"ip addr replace {SOUTH['dataplane_nfqueue_router_address']} dev eno1" in lines
    for prefix in SOUTH["dataplane_nfqueue_uplink_prefixes"]:
        assert f"ip route replace {prefix} dev eno1" in lines
    assert "ip route replace 198.18.21.11/32 dev eno2.201" in lines
    assert "ip route replace 198.18.21.12/32 dev eno2.202" in lines
    assert 'iptables -w -A "$chain" -o eno2.201 -j NFQUEUE $queue' in lines
    assert "--queue-bypass" in out["script"]


def test_an_nfqueue_appliance_routes_the_address_blocks_of_its_aps(playbook: Run, tmp_path: Path) -> None:
    """STAs the controller adds at run time are in no inventory, so they get no /32 route: an operator who gives
    an AP's STAs their own block (its DHCP pool) routes the block to the AP's interface, and they are reached."""
    blocks = {"s1-ap1": ["198.18.21.64/27"], "s1-ap2": ["198.18.21.96/27", "198.18.21.128/28"]}
    out = rendered(playbook, tmp_path, APPLIANCE_ROLES,
                   {**SOUTH, "adwiser_backend": "nfqueue", "dataplane_nfqueue_ap_prefixes": blocks},
                   templates={"script": "dataplane/templates/adwiser-nfqueue-rules.j2"})
    start, stop = out["script"].split("start)", 1)[1].split(";;", 1)
    start_lines = [" ".join(line.split()) for line in start.splitlines()]
    stop_lines = [" ".join(line.split()) for line in stop.split(";;", 1)[0].splitlines()]
    for prefix, dev in (("198.18.21.64/27", "eno2.201"), ("198.18.21.96/27", "eno2.202"),
                        ("198.18.21.128/28", "eno2.202")):
        assert f"ip route replace {prefix} dev {dev}" in start_lines, prefix
        assert f"ip route del {prefix} dev {dev} 2>/dev/null || true" in stop_lines, prefix
