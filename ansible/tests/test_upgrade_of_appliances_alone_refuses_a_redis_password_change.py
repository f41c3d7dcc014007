"""upgrade.yml --limit <appliances>, without the controller host, refuses a Redis password (the vault's
adwiser_redis_password) other than the one Redis was configured with, before it changes anything: the check ran only
in the controller's play, which such a limit leaves out, so the appliances were upgraded and their dataplanes
restarted on a password Redis refuses (their heartbeat check failed, and each rescue put its files back, one appliance
after the other). The check runs in a play on the appliances, on the controller host (delegated: a limit does not
restrict delegation), before the controller's play and the appliances' upgrade. The play is taken from upgrade.yml as
written and run on the control node with an inventory of a controller host and an appliance, limited to the
appliance, over a scratch redis.conf written by role redis's template."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run, write_redis_conf

CHECK = "Check the controller host's Redis password before anything changes"
INSTALLED = "the-installed-redis-password"


def _plays() -> list[dict]:
    return yaml.safe_load((ANSIBLE / "upgrade.yml").read_text())


def _check_play() -> dict:
    found = [p for p in _plays() if p["name"] == CHECK]
    assert len(found) == 1, f"upgrade.yml has no play {CHECK!r}"
    return copy.deepcopy(found[0])


def test_the_password_check_runs_on_the_controller_host_before_anything_changes() -> None:
    names = [p["name"] for p in _plays()]
    assert CHECK in names, names
    play = _check_play()
    # On the appliances: a limit to some of them still runs it; any of them refused stops the rollout.
    assert play["hosts"] == "appliances" and play.get("any_errors_fatal") is True, play
    assert names.index(CHECK) < names.index("Upgrade the controller") < names.index(
        "Upgrade the appliances, one at a time"), names
    tasks = play["tasks"]
    assert [t.get("delegate_to") for t in tasks] == ["{{ adwiser_controller_host }}"] * len(tasks), tasks
    assert any(t.get("ansible.builtin.import_role", {}).get("tasks_from") == "check_installed_password"
               for t in tasks), tasks


@pytest.mark.parametrize(("password", "refused"), [(INSTALLED, False), ("a-new-password-for-redis", True)])
def test_an_upgrade_limited_to_appliances_refuses_a_redis_password_redis_was_not_configured_with(
        playbook: Run, tmp_path: Path, password: str, refused: bool) -> None:
    conf = tmp_path / "redis.conf"
    write_redis_conf(playbook, conf, INSTALLED)
    hosts = tmp_path / "hosts.yml"
    hosts.write_text(yaml.safe_dump({"all": {
        "vars": {"ansible_connection": "local", "adwiser_controller_host": "controller",
                 "adwiser_redis_password": password, "redis_config_file": str(conf)},
        "children": {"controllers": {"hosts": {"controller": {}}}, "appliances": {"hosts": {"appliance": {}}}}}}))
    play = {k: v for k, v in _check_play().items() if k != "become"}
    run = playbook([play], "--limit", "appliance", inventory=str(hosts))
    assert (run.returncode != 0) == refused, run.stdout
    if refused:
        assert "site.yml" in run.stdout and "adwiser_redis_password" in run.stdout, run.stdout
    assert password not in run.stdout + run.stderr
