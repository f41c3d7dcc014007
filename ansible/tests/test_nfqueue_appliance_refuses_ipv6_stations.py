"""An nfqueue appliance is an IPv4 proxy-ARP router (dataplane/dp/README.md): nothing answers neighbour discovery for
a station's IPv6 address on the uplink, nor relays the uplink router's advertisements to the stations, the NFQUEUE
rules are iptables (IPv4) ones and the NFQUEUE backend maps IPv4 destinations to stations only. An IPv6 station
address would get a /128 route and no traffic, so the role refuses it, naming the station, before anything changes."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Run, localhost_play
from test_nfqueue_appliance_forwards_through_the_kernel import SOUTH


def _check(playbook: Run, tmp_path: Path, host_vars: dict) -> tuple[int, str]:
    play = localhost_play([{"name": "Check", "ansible.builtin.include_role": {
        "name": "dataplane", "tasks_from": "check_nfqueue_router"}}])
    hosts = tmp_path / "hosts.yml"
    hosts.write_text(json.dumps({"all": {"hosts": {"localhost": {"ansible_connection": "local", **host_vars}}}}))
    run = playbook(play, inventory=str(hosts))
    return run.returncode, run.stdout


def _with_ipv6_station(backend: str) -> dict:
    topology = {**SOUTH["adwiser_topology"], "stas": [
        SOUTH["adwiser_topology"]["stas"][0],
        {**SOUTH["adwiser_topology"]["stas"][1], "ips": ["198.18.21.12", "2001:db8:21::12"]}]}
    return {**SOUTH, "adwiser_backend": backend, "adwiser_topology": topology}


def test_an_nfqueue_appliance_refuses_an_ipv6_station_address(playbook: Run, tmp_path: Path) -> None:
    code, out = _check(playbook, tmp_path, _with_ipv6_station("nfqueue"))
    assert code != 0, out
    assert "s1-s2: 2001:db8:21::12" in out


def test_an_nfqueue_appliance_with_ipv4_stations_passes_the_check(playbook: Run, tmp_path: Path) -> None:
    code, out = _check(playbook, tmp_path, {**SOUTH, "adwiser_backend": "nfqueue"})
    assert code == 0, out


def test_a_dpdk_appliance_keeps_its_ipv6_station_addresses(playbook: Run, tmp_path: Path) -> None:
    code, out = _check(playbook, tmp_path, _with_ipv6_station("dpdk"))
    assert code == 0, out
