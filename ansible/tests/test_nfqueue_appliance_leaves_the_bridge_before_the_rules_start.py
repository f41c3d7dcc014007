"""On the run that switches an appliance from dpdk to nfqueue, its uplink and AP ports leave the Open vSwitch bridge
before the dataplane role starts anything: the dataplane's start pulls in the NFQUEUE rules unit (Wants=), which
puts the router address, routes and VLAN interfaces on those ports, and a port OVS still holds takes their frames.
A handler would run at the play's end, after that start, and a run that failed before its handlers would leave the
ports on the bridge for good (the bridge script then unchanged, nothing notifies it again). So a task takes them
off on every run, whatever changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from conftest import ANSIBLE, Run, localhost_play, play_tasks, recap

APPLIANCES = "Appliances (bridge, DPDK, dataplane)"
SYSTEMD = ("ansible.builtin.systemd", "ansible.builtin.systemd_service")


def test_the_retired_ports_leave_the_bridge_in_a_task_before_any_dataplane_unit_starts() -> None:
    play = play_tasks("site.yml")[APPLIANCES]
    removals = [i for i, t in enumerate(play) if t["role"] == "openvswitch"
                and t["action"] == "ansible.builtin.command" and "del-port" in json.dumps(t["args"])]
    starts = [i for i, t in enumerate(play) if t["role"] in ("dpdk", "dataplane", "unit_retire")
              and t["action"] in SYSTEMD and t["args"].get("state") in ("started", "restarted")]
    assert removals, "no task of role openvswitch deletes the retired ports"
    assert starts, "no task starts a dataplane unit"
    assert max(removals) < min(starts), [play[i]["name"] for i in (*removals, min(starts))]
    for i in removals:
        assert not any("changed" in str(c) for c in play[i]["when"]), play[i]


def test_the_task_deletes_only_the_retired_ports_the_bridge_has(playbook: Run, tmp_path: Path) -> None:
    """Run with a stand-in ovs-vsctl whose bridge holds eno1 (retired) and fabric0 (the controller's fabric):
    eno1 leaves, fabric0 stays, eno2 (already gone) is no error; a second run changes nothing."""
    ports = tmp_path / "ports"
    ports.write_text("eno1\nfabric0\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "ovs-vsctl"
    stub.write_text(f"""#!/bin/sh
echo "$*" >> '{tmp_path / "ovs-vsctl.log"}'
case "$*" in
*list-ports*) cat '{ports}' ;;
*del-port*) for last; do :; done; grep -vx "$last" '{ports}' > '{ports}.new' || true; mv '{ports}.new' '{ports}' ;;
esac
""")
    stub.chmod(0o755)
    names = ("Find the bridge's ports", "Take the retired ports off the bridge before the dataplane's rules start")
    tasks = [t for t in yaml.safe_load((ANSIBLE / "roles/openvswitch/tasks/retire.yml").read_text())
             if t["name"] in names]
    assert len(tasks) == 2
    play = localhost_play(tasks, vars={"ovs_bridge": "br-adwiser", "ovs_retired_ports": ["eno1", "eno2"],
                                       "adwiser_manage_services": True})
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    first = playbook(play, env=env)
    assert first.returncode == 0, first.stdout
    assert recap(first.stdout)["changed"] == 1, first.stdout
    assert ports.read_text() == "fabric0\n"
    again = playbook(play, env=env)
    assert again.returncode == 0, again.stdout
    assert recap(again.stdout)["changed"] == 0, again.stdout
    assert "del-port br-adwiser eno2" not in (tmp_path / "ovs-vsctl.log").read_text()
