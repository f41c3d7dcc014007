"""site.yml refuses an appliance's inventory (the dataplane role's checks: variables, the nfqueue router, the document
against the schema on the control node) before any role stops a unit or takes a port off the bridge. On a switch from
dpdk to nfqueue role dpdk retires the NIC binding, whose stop stops the DPDK dataplane (Requires=) and gives the NICs
back to the kernel; a refusal after it, in the dataplane role, left the appliance forwarding nothing: no dataplane,
no NFQUEUE rules, no routes. Checked on the order in which ansible itself compiles the play."""

from __future__ import annotations

import json

from conftest import play_tasks

APPLIANCES = "Appliances (bridge, DPDK, dataplane)"
SYSTEMD = ("ansible.builtin.systemd", "ansible.builtin.systemd_service")
VALIDATION = "Validate the configuration document on the control node"


def _disrupts(task: dict) -> bool:
    """Stops or restarts a unit, or takes a port off the bridge."""
    if task["action"] in SYSTEMD:
        return task["args"].get("state") in ("stopped", "restarted")
    return task["action"] == "ansible.builtin.command" and "del-port" in json.dumps(task["args"])


def test_every_dataplane_check_runs_before_the_first_stop() -> None:
    play = play_tasks("site.yml")[APPLIANCES]
    checks = {t["name"] for t in play if t["role"] == "dataplane"
              and (t["action"] == "ansible.builtin.assert" or t["name"] == VALIDATION)}
    assert VALIDATION in checks and len(checks) > 3, checks
    first_stop = next(i for i, t in enumerate(play) if _disrupts(t))
    before = {t["name"] for t in play[:first_stop] if t["role"] == "dataplane"}
    assert checks - before == set(), f"only after {play[first_stop]['name']!r} ({play[first_stop]['role']})"
