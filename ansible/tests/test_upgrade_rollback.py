"""upgrade.yml's rollback of a failed appliance upgrade: every file the upgrade's roles (dpdk, dataplane) write is
copied aside before it and put back (checked on the play as ansible compiles it), and the rescue then runs again
what the files it put back are run by (the NFQUEUE rules, the NIC binding, the hugepages), the dataplane last. The
rescue runs as it is in upgrade.yml, on the control node, after a stand-in upgrade that rewrites files in a scratch
folder and fails; systemctl is a stand-in first on PATH that records its arguments (tests/rollback_play.py)."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import Run, play_tasks
from rollback_play import APPLIANCES, fake_systemctl, rollback_play, systemctl_calls

# Written by the upgrade and left as they are by its rollback: the build's sources and the fingerprint of those
# the last build was made from (source method). The next run finds that build and installs it again instead of
# building it again; what runs is the program, which is put back. And the staged program, document and ACK model
# (roles/dataplane/tasks/prepare.yml), which nothing runs: the next run checks them again before installing them.
NOT_ROLLED_BACK = {"/opt/adwiser/src/dataplane/build/.adwiser-sources.sha256", "/var/lib/adwiser-dataplane/adwiser-dp",
                   "/var/lib/adwiser-dataplane/dataplane.json", "/var/lib/adwiser-dataplane/ack_burst_model.json"}


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
    running = set(units.values()) - {""}
    failed = playbook(rollback_play(root, before, after, units), env=fake_systemctl(tmp_path, root, running, running))
    assert failed.returncode != 0, failed.stdout
    assert "was put back" in failed.stdout, failed.stdout
    for name, content in before.items():
        assert (root / name).read_text() == content if content is not None else not (root / name).exists(), name
    restarted = systemctl_calls(tmp_path, "restart")
    # The rules the old program reads from are the old ones, and the NIC binding did not change.
    assert restarted == ["adwiser-nfqueue-rules.service", "adwiser-dataplane.service"]


def test_a_failed_upgrade_that_changed_only_the_rules_restarts_only_them(playbook: Run, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    units = {"adwiser-dp": "adwiser-dataplane.service", "adwiser-nfqueue-rules": "adwiser-nfqueue-rules.service"}
    before = {"adwiser-dp": "program\n", "adwiser-nfqueue-rules": "old rules\n"}
    running = set(units.values())
    failed = playbook(rollback_play(root, before, {"adwiser-nfqueue-rules": "new rules\n"}, units),
                      env=fake_systemctl(tmp_path, root, running, running))
    assert failed.returncode != 0, failed.stdout
    assert (root / "adwiser-nfqueue-rules").read_text() == "old rules\n"
    restarted = systemctl_calls(tmp_path, "restart")
    assert restarted == ["adwiser-nfqueue-rules.service"]
