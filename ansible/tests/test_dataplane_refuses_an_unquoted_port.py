"""An unquoted PCI address in the inventory (`adwiser_uplink_port: 0000:00:04.0`) is a float for YAML 1.1 (4.0):
the dataplane role refuses a port that is not a string, the uplink's or an AP's, naming the variable and saying to
quote it (README.md, "Writing the inventory: YAML 1.1"), before anything changes, instead of failing on
"object of type 'float' has no len()". The inventory is written as YAML text, as an operator writes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Run, localhost_play, play_tasks

PORT_CHECK = "Refuse ports the inventory did not quote"
UPLINK, AP1, AP2 = '"0000:00:04.0"', '"0000:00:05.0"', '"0000:00:06.0"'


def _run(playbook: Run, tmp_path: Path, uplink: str, ap1: str, ap2: str, tasks_from: str = "main") -> tuple[int, str]:
    hosts = tmp_path / "hosts.yml"
    hosts.write_text(f"""all:
  hosts:
    localhost:
      ansible_connection: local
      adwiser_backend: dpdk
      adwiser_appliance_id: lab
      adwiser_uplink_port: {uplink}
      adwiser_topology:
        aps:
          - {{id: ap1, port: {ap1}, vlan: null}}
          - {{id: ap2, port: {ap2}, vlan: null}}
""")
    play = localhost_play([{"name": "Dataplane", "ansible.builtin.include_role": {
        "name": "dataplane", "tasks_from": tasks_from}}])
    # --check: a role that got past its checks changes nothing on the control node.
    run = playbook(play, "--check", inventory=str(hosts))
    return run.returncode, run.stdout


def test_the_dataplane_refuses_an_unquoted_uplink_port(playbook: Run, tmp_path: Path) -> None:
    code, out = _run(playbook, tmp_path, "0000:00:04.0", AP1, AP2)
    assert code != 0, out
    assert "adwiser_uplink_port" in out and "quote" in out, out
    assert "has no len()" not in out, out


@pytest.mark.parametrize("ap", ["ap1", "ap2"])
def test_the_dataplane_refuses_an_unquoted_ap_port(playbook: Run, tmp_path: Path, ap: str) -> None:
    ports = {"ap1": AP1, "ap2": AP2}
    ports[ap] = ports[ap].strip('"')
    code, out = _run(playbook, tmp_path, UPLINK, ports["ap1"], ports["ap2"])
    assert code != 0, out
    assert f"adwiser_topology AP {ap}'s port" in out and "quote" in out, out
    assert "adwiser_uplink_port" not in out, out


def test_the_dataplane_passes_quoted_ports(playbook: Run, tmp_path: Path) -> None:
    code, out = _run(playbook, tmp_path, UPLINK, AP1, AP2, tasks_from="check_ports")
    assert code == 0, out


# Roles openvswitch and dpdk run before role dataplane and read the ports as text too: an unquoted uplink failed the
# bridge script's template ("has no len()") and an unquoted PCI address was left out of the NICs to bind, unnamed.
# So each playbook checks the ports before any role runs on an appliance (upgrade.yml: in its first play, before the
# controller's upgrade too).
@pytest.mark.parametrize(("book", "play"), [("site.yml", "Appliances (bridge, DPDK, dataplane)"),
                                            ("upgrade.yml", "Check the appliances before anything changes")])
def test_the_playbooks_check_the_ports_before_any_role_runs_on_an_appliance(book: str, play: str) -> None:
    plays = play_tasks(book)
    tasks = [t for t in plays[play] if not t["implicit"]]
    checks = [i for i, t in enumerate(tasks) if t["name"] == PORT_CHECK]
    assert checks, f"{book}: no {PORT_CHECK!r} in play {play!r}"
    assert all(t["role"] is None for t in tasks[:checks[0]]), [t["name"] for t in tasks[:checks[0]]]
    if book == "upgrade.yml":
        assert next(iter(plays)) == play
