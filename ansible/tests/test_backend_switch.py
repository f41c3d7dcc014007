"""A backend switch (dpdk <-> nfqueue) takes the previous backend out of service: on an appliance of one backend the
roles (site.yml, upgrade.yml) stop and disable every unit they enable only for the other and remove every file they
write only for it (checked on the plays as ansible compiles them), through role unit_retire, run here on files in a
scratch folder with the stand-in systemctl of tests/rollback_play.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Run, localhost_play, play_tasks, recap, runs_with_backend
from rollback_play import fake_systemctl, systemctl_calls, unit_states

BACKENDS = ("dpdk", "nfqueue")
APPLIANCE_PLAYS = {"site.yml": "Appliances (bridge, DPDK, dataplane)",
                   "upgrade.yml": "Upgrade the appliances, one at a time"}
SYSTEMD = ("ansible.builtin.systemd", "ansible.builtin.systemd_service")
BIND = "adwiser-dpdk-bind.service"


def _only_for(tasks: list[dict], backend: str) -> list[dict]:
    other = next(b for b in BACKENDS if b != backend)
    return [t for t in tasks if runs_with_backend(t, backend) and not runs_with_backend(t, other)]


@pytest.mark.parametrize("book", sorted(APPLIANCE_PLAYS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_each_backend_retires_what_the_roles_install_only_for_the_other(book: str, backend: str) -> None:
    play = play_tasks(book)[APPLIANCE_PLAYS[book]]
    tasks = [t for t in play if runs_with_backend(t, backend)]
    theirs = _only_for(play, next(b for b in BACKENDS if b != backend))
    enabled = {t["args"]["name"] for t in theirs if t["action"] in SYSTEMD and t["args"].get("enabled") is True}
    written = {t["args"]["dest"] for t in theirs if t["action"] in ("ansible.builtin.copy", "ansible.builtin.template")}
    assert enabled and written, (enabled, written)
    retire = [t for t in tasks if t["role"] == "unit_retire"]
    stopped = {t["args"]["name"] for t in retire if t["args"].get("state") == "stopped"}
    disabled = {t["args"]["name"] for t in retire if t["args"].get("enabled") is False}
    removed = {p for t in retire if t["args"].get("state") == "absent" for p in t["loop"]}
    assert stopped == disabled == enabled
    assert removed == written


def _retire(root: Path, unit: str, files: list[str]) -> list[dict]:
    return localhost_play([{"name": "Retire", "ansible.builtin.include_role": {"name": "unit_retire"},
                            "vars": {"unit_retire_name": unit, "unit_retire_unit_dir": str(root),
                                     "unit_retire_files": [str(root / f) for f in files],
                                     "adwiser_manage_services": True}}])


def test_retiring_a_unit_stops_disables_and_removes_it_once(playbook: Run, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    files = ["dpdk-devices.conf", "adwiser-dpdk.conf"]
    for name in [BIND, *files]:
        (root / name).write_text(f"{name}\n")
    env = fake_systemctl(tmp_path, root, enabled={BIND}, active={BIND})
    play = _retire(root, BIND, files)

    preview = playbook(play, "--check", env=env)
    assert preview.returncode == 0, preview.stdout
    assert recap(preview.stdout)["changed"] > 0
    assert all((root / name).exists() for name in [BIND, *files])
    assert unit_states(tmp_path, "enabled") == unit_states(tmp_path, "active") == {BIND}

    done = playbook(play, env=env)
    assert done.returncode == 0, done.stdout
    assert not any((root / name).exists() for name in [BIND, *files])
    assert unit_states(tmp_path, "enabled") == unit_states(tmp_path, "active") == set()
    # Stopped while its files were there (the stand-in refuses otherwise), then systemd reloaded.
    assert systemctl_calls(tmp_path, "stop") == [BIND]
    assert (tmp_path / "systemctl.log").read_text().splitlines()[-1] == "daemon-reload"

    for args in (("--check",), ()):
        again = playbook(play, *args, env=env)
        assert again.returncode == 0, again.stdout
        assert recap(again.stdout)["changed"] == 0, again.stdout


def test_retiring_a_unit_the_appliance_never_had_changes_nothing(playbook: Run, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    env = fake_systemctl(tmp_path, root, enabled=set(), active=set())
    for args in (("--check",), ()):
        run = playbook(_retire(root, BIND, ["dpdk-devices.conf"]), *args, env=env)
        assert run.returncode == 0, run.stdout
        assert recap(run.stdout)["changed"] == 0, run.stdout
    assert not (tmp_path / "systemctl.log").exists()
