"""Role common turns IP forwarding on only on the appliances, the hosts that route (an NFQUEUE appliance routes its
APs' traffic; a DPDK one's kernel keeps its management ports). It turned it on on the controller host too, where
net.ipv6.conf.all.forwarding = 1 makes the kernel ignore router advertisements: a controller that takes its IPv6
address and default route from them lost the route. The setting follows the host's group, so a host in both groups
gets one file from both plays (not one rewritten back and forth)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ANSIBLE, Run, localhost_play

ROLE = ANSIBLE / "roles" / "common"
FORWARDING = ("net.ipv4.ip_forward = 1", "net.ipv6.conf.all.forwarding = 1")


def _rendered(playbook: Run, tmp_path: Path, groups: list[str]) -> str:
    out = tmp_path / "60-adwiser.conf"
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("all:\n  children:\n" + "".join(
        f"    {g}:\n      hosts:\n        localhost:\n          ansible_connection: local\n" for g in groups)
        + ("" if groups else "  hosts:\n    localhost:\n      ansible_connection: local\n"))
    run = playbook(localhost_play([{"name": "Render", "ansible.builtin.template": {
        "src": str(ROLE / "templates" / "sysctl.conf.j2"), "dest": str(out), "mode": "0600"}}],
        vars_files=[str(ROLE / "defaults" / "main.yml")]), inventory=str(inventory))
    assert run.returncode == 0, run.stdout
    return out.read_text()


@pytest.mark.parametrize("groups,forwards", [(["controllers"], False), (["appliances"], True),
                                             (["controllers", "appliances"], True)])
def test_ip_forwarding_is_on_only_on_an_appliance(playbook: Run, tmp_path: Path, groups: list[str], forwards: bool):
    text = _rendered(playbook, tmp_path, groups)
    assert all((line in text) == forwards for line in FORWARDING), text
    assert "net.core.rmem_default = 4194304" in text
