"""A run that fails after a file was written and before the restart it notified (a source file missing on the control
node, an unreachable host, a refusal of role webui, a failed retirement or enable on an appliance) still restarts the
service on it: the next run finds the file unchanged and notifies nothing, so a lost restart left Redis on its old
configuration under a new controller environment, the controller on the Redis password Redis no longer takes, or an
appliance's dataplane, bridge, NIC binding or NFQUEUE rules on what they ran before. On an appliance this is sound
because every refusal (the checks, adwiser-dp --check-config on the staged files) comes before any task notifies a
restart still pending, so a refused run restarts nothing. Not in upgrade.yml's appliance play: its rescue puts the files
back and restarts what runs them itself, and any_errors_fatal ends the play before pending restarts would run. Each
play is taken from its playbook with its keywords as written and run on the control node: a file written, then a task
that fails."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run, play_tasks

# Playbook, play, whether a failed host's pending restarts run.
PLAYS = [("site.yml", "Controller host (Redis, controller, web UI)", True),
         ("upgrade.yml", "Upgrade the controller", True),
         ("site.yml", "Appliances (bridge, DPDK, dataplane)", True),
         ("upgrade.yml", "Upgrade the appliances, one at a time", False)]


def _play_as_written(book: str, name: str, tmp_path: Path) -> list[dict]:
    found = [p for p in yaml.safe_load((ANSIBLE / book).read_text()) if p["name"] == name]
    assert len(found) == 1, f"{book} has no play {name!r}"
    play = {k: v for k, v in copy.deepcopy(found[0]).items()
            if k not in ("pre_tasks", "roles", "tasks", "post_tasks", "handlers", "vars", "become", "hosts")}
    written, restarted = tmp_path / "service.env", tmp_path / "restarted"
    play.update(hosts="localhost", connection="local", gather_facts=False, tasks=[
        {"name": "Write the environment", "ansible.builtin.copy": {"content": "new\n", "dest": str(written),
                                                                   "mode": "0600"},
         "notify": "Restart the service"},
        {"name": "Fail after it", "ansible.builtin.fail": {"msg": "a later task failed"}}],
        handlers=[{"name": "Restart the service", "ansible.builtin.copy": {"content": "", "dest": str(restarted),
                                                                           "mode": "0600"}}])
    return [play]


@pytest.mark.parametrize(("book", "name", "restarts"), PLAYS)
def test_a_failed_run_restarts_what_it_wrote_but_in_an_appliance_upgrade(
        playbook: Run, tmp_path: Path, book: str, name: str, restarts: bool) -> None:
    run = playbook(_play_as_written(book, name, tmp_path))
    assert run.returncode != 0, run.stdout
    assert (tmp_path / "restarted").exists() == restarts, run.stdout


def test_a_failed_controller_upgrade_stops_the_rollout_before_the_appliances(playbook: Run, tmp_path: Path) -> None:
    plays = _play_as_written("upgrade.yml", "Upgrade the controller", tmp_path)
    plays.append({"name": "Appliances", "hosts": "appliance", "connection": "local", "gather_facts": False,
                  "tasks": [{"name": "Upgrade", "ansible.builtin.copy": {
                      "content": "", "dest": str(tmp_path / "appliance-upgraded"), "mode": "0600"}}]})
    plays[0]["hosts"] = "controller"
    run = playbook(plays, inventory="controller,appliance,")
    assert run.returncode != 0, run.stdout
    assert (tmp_path / "restarted").exists(), run.stdout
    assert not (tmp_path / "appliance-upgraded").exists(), run.stdout


# The roles that refuse what the inventory asks of an appliance; the helpers' asserts (unit_retire, tree_copy) check
# the arguments the roles pass them, not the inventory.
REFUSING_ROLES = ("dataplane", "dpdk", "openvswitch")


def _refuses(task: dict) -> bool:
    """An assert of a role above, or a check of a file on the appliance (a `validate`, adwiser-dp --check-config)."""
    return task["role"] in REFUSING_ROLES and (task["action"] == "ansible.builtin.assert" or "validate" in task["args"]
                                               or "--check-config" in json.dumps(task["args"]))


def test_a_refused_appliance_run_has_no_restart_pending() -> None:
    pending = []
    for task in play_tasks("site.yml")["Appliances (bridge, DPDK, dataplane)"]:
        if task["action"] in ("meta", "ansible.builtin.meta") and task["args"].get("_raw_params") == "flush_handlers":
            pending = []
        elif _refuses(task):
            assert pending == [], f"{task['name']!r} ({task['role']}) refuses after {pending} notified a restart"
        elif task["notify"]:
            pending.append(f"{task['name']} ({task['role']})")
