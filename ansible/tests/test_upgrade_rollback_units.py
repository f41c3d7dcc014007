"""upgrade.yml's rollback of the units a failed appliance upgrade enabled or disabled: whether each unit the
upgrade's roles enable was enabled is recorded before the upgrade (checked on the play as ansible compiles it) and
put back by the rescue, so that the appliance boots into what it ran before. The rescue runs as it is in
upgrade.yml on the control node, systemctl a stand-in (tests/rollback_play.py)."""

from __future__ import annotations

from pathlib import Path

from conftest import Run, play_tasks
from rollback_play import APPLIANCES, fake_systemctl, rollback_play, unit_states

RECORD = "Record which of the dataplane's units are enabled"
DATAPLANE, RULES = "adwiser-dataplane.service", "adwiser-nfqueue-rules.service"
DATAPLANE_FILES = {"adwiser-dp": DATAPLANE, DATAPLANE: DATAPLANE}
NFQUEUE_FILES = {"adwiser-nfqueue-rules": RULES, RULES: RULES}


def test_the_rollback_records_every_unit_the_upgrade_enables() -> None:
    tasks = play_tasks("upgrade.yml")[APPLIANCES]
    recorded = [unit for t in tasks if t["name"] == RECORD for unit in t["loop"]]
    enabled = {t["args"]["name"] for t in tasks if t["role"] in ("dpdk", "dataplane")
               and t["action"] in ("ansible.builtin.systemd", "ansible.builtin.systemd_service")
               and "enabled" in t["args"]}
    assert enabled and sorted(enabled - set(recorded)) == []


def test_a_failed_upgrade_puts_back_which_units_are_enabled(playbook: Run, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    units = {**DATAPLANE_FILES, **NFQUEUE_FILES}
    before = {name: f"old {name}\n" for name in units}
    # The operator had disabled the dataplane at boot (it runs now); the failed upgrade enabled it, and disabled the
    # rules.
    failed = playbook(rollback_play(root, before, {"adwiser-dp": "new program\n"}, units,
                                    enable={DATAPLANE: True, RULES: False}),
                      env=fake_systemctl(tmp_path, root, enabled={RULES}, active={DATAPLANE, RULES}))
    assert failed.returncode != 0, failed.stdout
    assert "was put back" in failed.stdout, failed.stdout
    assert unit_states(tmp_path, "enabled") == {RULES}
    assert unit_states(tmp_path, "active") == {DATAPLANE, RULES}

