"""upgrade.yml's rollback of the units a failed appliance upgrade enabled, disabled or started: whether each unit
the upgrade's roles enable was enabled is recorded before the upgrade (checked on the play as ansible compiles it)
and put back by the rescue, so that the appliance boots into what it ran before; and a failed upgrade that switched
the backend (dpdk <-> nfqueue) leaves the previous backend's units enabled and running, the new one's stopped and
disabled, whether or not the upgrade had retired the previous one's. The rescue runs as it is in upgrade.yml on the control node, systemctl a stand-in (tests/rollback_play.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Run, play_tasks
from rollback_play import APPLIANCES, fake_systemctl, rollback_play, systemctl_calls, unit_states

RECORD = "Record which of the dataplane's units are enabled"
DATAPLANE, RULES, BIND = "adwiser-dataplane.service", "adwiser-nfqueue-rules.service", "adwiser-dpdk-bind.service"
# Each backend's files (named as on the appliance) with the unit that runs them.
BACKEND_FILES = {"nfqueue": {"adwiser-nfqueue-rules": RULES, RULES: RULES},
                 "dpdk": {"dpdk-devices.conf": BIND, BIND: BIND}}
BACKEND_UNIT = {"nfqueue": RULES, "dpdk": BIND}
DATAPLANE_FILES = {"adwiser-dp": DATAPLANE, DATAPLANE: DATAPLANE}


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
    units = {**DATAPLANE_FILES, **BACKEND_FILES["nfqueue"]}
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


@pytest.mark.parametrize("retired", [False, True], ids=["previous-kept", "previous-retired"])
@pytest.mark.parametrize(("old", "new"), [("nfqueue", "dpdk"), ("dpdk", "nfqueue")])
def test_a_failed_backend_switch_leaves_the_previous_backends_units(playbook: Run, tmp_path: Path,
                                                                     old: str, new: str, retired: bool) -> None:
    root = tmp_path / "root"
    root.mkdir()
    units = {**DATAPLANE_FILES, **BACKEND_FILES["nfqueue"], **BACKEND_FILES["dpdk"]}
    before = {name: (f"old {name}\n" if name in DATAPLANE_FILES or name in BACKEND_FILES[old] else None)
              for name in units}
    after = {name: f"new {name}\n" for name in [*DATAPLANE_FILES, *BACKEND_FILES[new]]}
    # As the roles do: the new backend's unit is enabled, and started by its handler with the dataplane; the previous
    # backend's unit is stopped, disabled and its files removed (retired), or, as the roles did before, left.
    retire = {BACKEND_UNIT[old]: [f for f in BACKEND_FILES[old] if f != BACKEND_UNIT[old]]} if retired else None
    failed = playbook(rollback_play(root, before, after, units, enable={BACKEND_UNIT[new]: True, DATAPLANE: True},
                                    start=[BACKEND_UNIT[new], DATAPLANE], retire=retire),
                      env=fake_systemctl(tmp_path, root, enabled={DATAPLANE, BACKEND_UNIT[old]},
                                         active={DATAPLANE, BACKEND_UNIT[old]}))
    assert failed.returncode != 0, failed.stdout
    assert "was put back" in failed.stdout, failed.stdout
    for name, content in before.items():
        assert (root / name).read_text() == content if content is not None else not (root / name).exists(), name
    assert unit_states(tmp_path, "enabled") == {DATAPLANE, BACKEND_UNIT[old]}
    assert unit_states(tmp_path, "active") == {DATAPLANE, BACKEND_UNIT[old]}
    # The new backend's unit is stopped once by the rescue, while its files are there (the stand-in refuses otherwise,
    # as systemd cannot run an ExecStop whose script is gone), a retired previous one (stopped by the upgrade) runs
    # again (active above), and the previous dataplane runs again.
    assert systemctl_calls(tmp_path, "stop") == [BACKEND_UNIT[old]] * retired + [BACKEND_UNIT[new]]
    assert systemctl_calls(tmp_path, "restart")[-1] == DATAPLANE
