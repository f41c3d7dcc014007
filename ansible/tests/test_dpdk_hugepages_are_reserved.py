"""Role dpdk reserves the dataplane's memory in hugepages (/etc/sysctl.d/61-adwiser-hugepages.conf) or refuses the
setup: a page size the file cannot reserve (vm.nr_hugepages counts pages of the kernel's default size, 2 MB) must
not pass as a setup whose EAL -m then finds no hugepages at the dataplane's start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run, localhost_play

ROLE = ANSIBLE / "roles" / "dpdk"


def _setup_until_the_reservation(dest: Path) -> list[dict]:
    """The role's refusals (checks.yml, run before setup.yml as the playbooks and main.yml run them), then setup.yml's
    tasks up to and with the hugepages file (written to `dest`), without the package install."""
    tasks = []
    for task in [*yaml.safe_load((ROLE / "tasks" / "checks.yml").read_text()),
                 *yaml.safe_load((ROLE / "tasks" / "setup.yml").read_text())]:
        if "ansible.builtin.apt" in task:
            continue
        if task["name"] == "Reserve hugepages at boot":
            module = {**task["ansible.builtin.template"], "src": str(ROLE / "templates" / "hugepages.conf.j2"),
                      "dest": str(dest)}
            for key in ("owner", "group"):
                module.pop(key)
            tasks.append({"name": task["name"], "ansible.builtin.template": module})
            return tasks
        tasks.append(task)
    raise AssertionError("no task 'Reserve hugepages at boot'")


@pytest.mark.parametrize("size_kb", [2048, 1048576])
def test_the_memory_is_reserved_or_the_setup_refused(size_kb: int, playbook: Run, tmp_path: Path) -> None:
    dest = tmp_path / "61-adwiser-hugepages.conf"
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps({"dpdk_memory_mb": 1024, "dpdk_hugepage_size_kb": size_kb,
                                  "dpdk_pci_devices": ["0000:00:04.0"]}))
    run = playbook(localhost_play(_setup_until_the_reservation(dest), vars_files=[str(ROLE / "defaults" / "main.yml")]),
                   "-e", f"@{inputs}")
    if size_kb == 2048:
        assert run.returncode == 0, run.stdout
        assert "vm.nr_hugepages = 512" in dest.read_text().splitlines()
    else:
        assert run.returncode != 0 and not dest.exists(), (run.stdout, dest.exists() and dest.read_text())
        assert "dpdk_hugepage_size_kb" in run.stdout
