"""site.yml refuses an appliance (the checks of roles dataplane, dpdk and openvswitch, and on the appliance adwiser-dp
--check-config on the staged program, document and ACK model) before role common changes it: its accounts, the
operators' SSH keys, its directories and its kernel settings (written and loaded at once: IP forwarding among them).
Role common ran whole before the checks on the appliance, so a refused document left an appliance forwarding, with new
operator accounts, although the run said it changed nothing that runs. Only what those checks need comes before them:
the package cache and the base packages (role dataplane installs its runtime libraries from that cache; the validator
that checks a document where no adwiser-dp is built needs python3-jsonschema). Checked on the play as ansible compiles
it, with the tasks that run on an appliance of each backend."""

from __future__ import annotations

import pytest

from conftest import checks_on_the_appliance, play_tasks, refuses_the_appliance, runs_with_backend

PLAY = "Appliances (bridge, DPDK, dataplane)"
APT = ("ansible.builtin.apt",)
# ansible's own steps (a role's end), which change nothing on the host.
META = ("meta", "ansible.builtin.meta")
# The roles whose asserts refuse what the inventory asks of the appliance (role openvswitch: the bridge's variables).
REFUSING_ROLES = ("dataplane", "dpdk", "openvswitch")


def _play(backend: str) -> list[dict]:
    return [t for t in play_tasks("site.yml")[PLAY] if runs_with_backend(t, backend)]


@pytest.mark.parametrize("backend", ["dpdk", "nfqueue"])
def test_every_appliance_refusal_comes_before_role_common_changes_the_appliance(backend: str) -> None:
    play = _play(backend)
    last = max(i for i, t in enumerate(play) if refuses_the_appliance(t, REFUSING_ROLES))
    early = [t["name"] for t in play[:last] if t["role"] == "common" and t["action"] not in APT + META]
    assert early == [], f"before {play[last]['name']!r}: {early}"


@pytest.mark.parametrize("backend", ["dpdk", "nfqueue"])
def test_the_packages_the_appliance_checks_need_come_before_them(backend: str) -> None:
    play = _play(backend)
    first = next(i for i, t in enumerate(play) if checks_on_the_appliance(t))
    packages = [t for t in play[:first] if t["role"] == "common" and t["action"] in APT]
    assert any(t["args"].get("update_cache") and "python3-jsonschema" in t["args"].get("name", [])
               for t in packages), [t["name"] for t in play[:first]]
