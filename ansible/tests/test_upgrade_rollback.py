"""upgrade.yml's rollback of a failed appliance upgrade: every file the upgrade's roles (dpdk, dataplane) write is
copied aside before it and put back (checked on the play as ansible compiles it), and the rescue then runs again
what the files it put back are run by (the NFQUEUE rules, the NIC binding, the hugepages), the dataplane last. The
rescue runs as it is in upgrade.yml, on the control node, after a stand-in upgrade that rewrites files in a scratch
folder and fails; systemctl is a stand-in first on PATH that records its arguments."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import yaml

from conftest import ANSIBLE, Run, play_tasks

APPLIANCES = "Upgrade the appliances, one at a time"
UPGRADE = "Upgrade the appliance and check it"
# Written by the upgrade and left as they are by its rollback: the build's sources and the fingerprint of those
# the last build was made from (source method). The next run finds that build and installs it again instead of
# building it again; what runs is the program, which is put back.
NOT_ROLLED_BACK = {"/opt/adwiser/src/dataplane/build/.adwiser-sources.sha256"}


def _path(entry: dict | str) -> str:
    return entry["path"] if isinstance(entry, dict) else entry


def test_the_rollback_covers_every_file_the_upgrade_writes() -> None:
    tasks = play_tasks("upgrade.yml")[APPLIANCES]
    backed_up = [_path(e) for t in tasks if t["name"] == "Find the installed dataplane's files" for e in t["loop"]]
    assert backed_up and all(p.startswith("/") for p in backed_up), backed_up
    written = {t["args"]["dest"] for t in tasks if t["role"] in ("dpdk", "dataplane")
               and t["action"] in ("ansible.builtin.copy", "ansible.builtin.template")}
    assert all(p.startswith("/") for p in written), written
    assert sorted(written - NOT_ROLLED_BACK - set(backed_up)) == []
    # The copies are kept by file name in one folder: two files of the same name would share one copy.
    names = [os.path.basename(p) for p in backed_up]
    assert len(names) == len(set(names)), names


def _rollback_play(root: Path, before: dict[str, str | None], after: dict[str, str],
                   units: dict[str, str]) -> list[dict]:
    """upgrade.yml's appliance play (its tasks and rescue as they are) over files in `root`, each with the unit of
    `units`, installed with the contents of `before` (None: absent); its upgrade a stand-in that writes `after`
    and fails."""
    play = copy.deepcopy(next(p for p in yaml.safe_load((ANSIBLE / "upgrade.yml").read_text())
                              if p["name"] == APPLIANCES))
    upgrade = next(t for t in play["tasks"] if t["name"] == UPGRADE)
    upgrade["block"] = [
        {"name": "Stand-in upgrade", "ansible.builtin.copy": {"content": "{{ item.value }}", "dest": "{{ item.key }}",
                                                             "mode": "0644"},
         "loop": "{{ upgrade_after | dict2items }}"},
        {"name": "Stand-in check", "ansible.builtin.fail": {"msg": "the new dataplane does not come up"}}]
    for name, content in before.items():
        if content is not None:
            (root / name).write_text(content)
    files = [{"path": str(root / name), "unit": unit} for name, unit in units.items()]
    play.update(hosts="localhost", connection="local", gather_facts=False, become=False)
    play["vars"].update(upgrade_rollback_dir=str(root / "backup"), upgrade_rollback_files=files,
                        upgrade_after={str(root / name): content for name, content in after.items()},
                        adwiser_manage_services=True)
    return [play]


def _systemctl(tmp_path: Path) -> dict[str, str]:
    """The environment of a playbook whose systemctl records its arguments in tmp_path/systemctl.log and shows
    every unit loaded and active."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "systemctl"
    stub.write_text(f"#!/bin/sh\necho \"$*\" >> '{tmp_path / 'systemctl.log'}'\n"
                    "[ \"$1\" = show ] && printf 'LoadState=loaded\\nActiveState=active\\nSubState=running\\n'\n"
                    "exit 0\n")
    stub.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def test_a_failed_upgrade_gets_its_files_back_and_reruns_what_they_run(playbook: Run, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    # The dataplane's files first: it is restarted last all the same.
    units = {"adwiser-dp": "adwiser-dataplane.service", "ack_burst_model.json": "adwiser-dataplane.service",
             "adwiser-nfqueue-rules": "adwiser-nfqueue-rules.service", "dpdk-devices.conf": "adwiser-dpdk-bind.service",
             "adwiser-config.schema.json": ""}
    before = {"adwiser-dp": "old program\n", "ack_burst_model.json": None, "adwiser-nfqueue-rules": "old rules\n",
              "dpdk-devices.conf": "old devices\n", "adwiser-config.schema.json": "old schema\n"}
    after = {"adwiser-dp": "new program\n", "ack_burst_model.json": "new model\n", "adwiser-nfqueue-rules": "new rules\n",
             "adwiser-config.schema.json": "new schema\n"}
    failed = playbook(_rollback_play(root, before, after, units), env=_systemctl(tmp_path))
    assert failed.returncode != 0, failed.stdout
    assert "was put back" in failed.stdout, failed.stdout
    for name, content in before.items():
        assert (root / name).read_text() == content if content is not None else not (root / name).exists(), name
    restarted = [line.split()[1].strip("'") for line in (tmp_path / "systemctl.log").read_text().splitlines()
                 if line.startswith("restart ")]
    # The rules the old program reads from are the old ones, and the NIC binding did not change.
    assert restarted == ["adwiser-nfqueue-rules.service", "adwiser-dataplane.service"]


def test_a_failed_upgrade_that_changed_only_the_rules_restarts_only_them(playbook: Run, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    units = {"adwiser-dp": "adwiser-dataplane.service", "adwiser-nfqueue-rules": "adwiser-nfqueue-rules.service"}
    before = {"adwiser-dp": "program\n", "adwiser-nfqueue-rules": "old rules\n"}
    failed = playbook(_rollback_play(root, before, {"adwiser-nfqueue-rules": "new rules\n"}, units),
                      env=_systemctl(tmp_path))
    assert failed.returncode != 0, failed.stdout
    assert (root / "adwiser-nfqueue-rules").read_text() == "old rules\n"
    restarted = [line.split()[1].strip("'") for line in (tmp_path / "systemctl.log").read_text().splitlines()
                 if line.startswith("restart ")]
    assert restarted == ["adwiser-nfqueue-rules.service"]
