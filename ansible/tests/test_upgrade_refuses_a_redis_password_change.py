"""upgrade.yml refuses a Redis password (the vault's adwiser_redis_password) other than the one Redis was configured
with, before it changes anything on the controller host: it runs role controller, which writes the password to the
controller's environment and restarts the controller on it, but not role redis, so Redis kept the old password, the
controller's health check failed and nothing put the controller back. site.yml changes it: Redis, then the
controller, then the appliances. The check is taken from upgrade.yml as it is and run on the control node over a
scratch redis.conf written by role redis's template."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run, localhost_play, play_tasks, write_redis_conf

CONTROLLER = "Upgrade the controller"
CHECK = "Refuse a Redis password other than Redis's"
INSTALLED = 'secret with "quotes" and \\ backslash'


def _pre_tasks() -> list[dict]:
    plays = [p for p in yaml.safe_load((ANSIBLE / "upgrade.yml").read_text()) if p["name"] == CONTROLLER]
    return copy.deepcopy(plays[0].get("pre_tasks") or [])


def test_the_password_check_runs_before_the_controller_play_writes_anything() -> None:
    tasks = play_tasks("upgrade.yml")[CONTROLLER]
    names = [t["name"] for t in tasks]
    assert CHECK in names, names
    before = tasks[:names.index(CHECK)]
    assert all(t["role"] in (None, "redis") and not t["notify"] for t in before), before
    assert "controller" in [t["role"] for t in tasks[names.index(CHECK):]]


@pytest.mark.parametrize(("password", "refused"), [(INSTALLED, False), ("a-new-password-for-redis", True)])
def test_upgrade_refuses_a_redis_password_redis_was_not_configured_with(
        playbook: Run, tmp_path: Path, password: str, refused: bool) -> None:
    conf = tmp_path / "redis.conf"
    write_redis_conf(playbook, conf, INSTALLED)
    run = playbook(localhost_play(_pre_tasks(), vars={"adwiser_redis_password": password,
                                                     "redis_config_file": str(conf)}))
    assert (run.returncode != 0) == refused, run.stdout
    if refused:
        assert "site.yml" in run.stdout and "adwiser_redis_password" in run.stdout, run.stdout
    assert password not in run.stdout + run.stderr
