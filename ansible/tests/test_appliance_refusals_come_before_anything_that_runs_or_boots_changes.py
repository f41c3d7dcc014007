"""On an appliance, site.yml and upgrade.yml refuse a document, ACK model or program (the dataplane role's asserts,
the schema's check on the control node, and on the appliance adwiser-dp --check-config: a `validate` or the start's
check), and a DPDK setup (role dpdk's asserts: no port to bind, a driver or hugepage size it cannot set up), before
any task writes a file that runs now or at boot (the bridge script and unit, the DPDK setup, the NFQUEUE
rules, the dataplane's program, document, environment, ACK model and unit) or enables a unit. A refusal after one of
these left, say, a bridge script that drops the ports at the next boot, or a NIC binding that takes the NICs an
nfqueue dataplane needs, with the run saying nothing running changed. Checked on the plays as ansible compiles them,
with the tasks that run on an appliance of each backend."""

from __future__ import annotations

import pytest

from conftest import checks_on_the_appliance, play_tasks, refuses_the_appliance, runs_with_backend

APPLIANCE_PLAYS = {"site.yml": "Appliances (bridge, DPDK, dataplane)",
                   "upgrade.yml": "Upgrade the appliances, one at a time"}
SYSTEMD = ("ansible.builtin.systemd", "ansible.builtin.systemd_service")
WRITES = ("ansible.builtin.copy", "ansible.builtin.template")
# The roles whose asserts refuse what the inventory asks of the appliance.
REFUSING_ROLES = ("dataplane", "dpdk")
# What a unit runs or reads, now or at boot (the roles' defaults for the dataplane's paths).
TAKES_EFFECT = {
    "/usr/local/sbin/adwiser-ovs-bridge", "/etc/systemd/system/adwiser-ovs-bridge.service",
    "/etc/sysctl.d/61-adwiser-hugepages.conf", "/etc/modules-load.d/adwiser-dpdk.conf",
    "/etc/adwiser/dpdk-devices.conf", "/usr/local/sbin/adwiser-dpdk-bind", "/etc/systemd/system/adwiser-dpdk-bind.service",
    "/usr/local/sbin/adwiser-nfqueue-rules", "/etc/systemd/system/adwiser-nfqueue-rules.service",
    "/usr/local/sbin/adwiser-dp", "/etc/adwiser/dataplane.json", "/etc/adwiser/dataplane.env",
    "/etc/adwiser/ack_burst_model.json", "/etc/systemd/system/adwiser-dataplane.service",
}


def _takes_effect(task: dict) -> bool:
    args = task["args"]
    return ((task["action"] in WRITES and args.get("dest") in TAKES_EFFECT)
            or (task["action"] in SYSTEMD and args.get("enabled") is True))


@pytest.mark.parametrize("book", sorted(APPLIANCE_PLAYS))
@pytest.mark.parametrize("backend", ["dpdk", "nfqueue"])
def test_every_appliance_refusal_comes_before_anything_that_runs_or_boots_changes(book: str, backend: str) -> None:
    play = [t for t in play_tasks(book)[APPLIANCE_PLAYS[book]] if runs_with_backend(t, backend)]
    refusals = [i for i, t in enumerate(play) if refuses_the_appliance(t, REFUSING_ROLES)]
    assert sum(checks_on_the_appliance(play[i]) for i in refusals) >= 2, [play[i]["name"] for i in refusals]
    first = next(i for i, t in enumerate(play) if _takes_effect(t))
    late = [f"{play[i]['name']} ({play[i]['role']})" for i in refusals if i > first]
    assert late == [], f"after {play[first]['name']!r} ({play[first]['role']}): {late}"
