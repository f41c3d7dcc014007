"""site.yml refuses an appliance's inventory (the dataplane role's checks: its variables, the nfqueue router, the
document against the schema on the control node, and on the appliance adwiser-dp --check-config on the document and
the ACK model as the new backend will start them) before any role stops a unit. A
backend switch retires the previous backend: on a switch from dpdk the NIC binding's stop stops the DPDK dataplane
(Requires=) and gives the NICs back to the kernel, on a switch from nfqueue the rules' stop takes the routes and the
rules away; on a switch to nfqueue role openvswitch takes the uplink and AP ports that are kernel interfaces off the
bridge, which forwarded them until then. A refusal after any of these left the appliance forwarding nothing. Checked
on the order in which ansible itself compiles the play, with the tasks that run on an appliance of each backend."""

from __future__ import annotations

import json

import pytest

from conftest import VALIDATION, play_tasks, runs_with_backend

APPLIANCES = "Appliances (bridge, DPDK, dataplane)"
SYSTEMD = ("ansible.builtin.systemd", "ansible.builtin.systemd_service")
START_CHECK = "Check the staged program, document and ACK model together"


def _refuses(task: dict) -> bool:
    """A check of the dataplane role: an assert, the schema's on the control node, adwiser-dp's on the appliance."""
    return task["role"] == "dataplane" and (task["action"] == "ansible.builtin.assert"
                                            or task["name"] in (VALIDATION, START_CHECK)
                                            or "validate" in task["args"])


def _stops(task: dict) -> bool:
    return task["action"] in SYSTEMD and task["args"].get("state") == "stopped"


def _takes_a_port_off_the_bridge(task: dict) -> bool:
    return task["action"] == "ansible.builtin.command" and "del-port" in json.dumps(task["args"])


@pytest.mark.parametrize("backend", ["dpdk", "nfqueue"])
def test_every_dataplane_check_runs_before_the_first_stop(backend: str) -> None:
    play = [t for t in play_tasks("site.yml")[APPLIANCES] if runs_with_backend(t, backend)]
    checks = {t["name"] for t in play if _refuses(t)}
    assert {VALIDATION, START_CHECK} <= checks and len(checks) > 5, checks
    first_stop = next(i for i, t in enumerate(play) if _stops(t))
    before = {t["name"] for t in play[:first_stop] if _refuses(t)}
    assert checks - before == set(), f"only after {play[first_stop]['name']!r} ({play[first_stop]['role']})"


def test_every_dataplane_check_runs_before_a_port_leaves_the_bridge() -> None:
    play = [t for t in play_tasks("site.yml")[APPLIANCES] if runs_with_backend(t, "nfqueue")]
    checks = {t["name"] for t in play if _refuses(t)}
    assert {VALIDATION, START_CHECK} <= checks, checks
    first_removal = next(i for i, t in enumerate(play) if _takes_a_port_off_the_bridge(t))
    before = {t["name"] for t in play[:first_removal] if _refuses(t)}
    assert checks - before == set(), f"only after {play[first_removal]['name']!r} ({play[first_removal]['role']})"
