"""site.yml's controller host: a refusal leaves Redis and the controller on one password. Role redis restarts Redis
on its configuration (the vault's password) before role controller runs (test_redis_configured_first.py); the
controller and the aggregation loop take the password from the environment file role controller writes, and restart
on it in their handlers. A check that refused between the two (the first admin's password in role controller, the
built UI, TLS or the nginx site in role webui) failed the host before those handlers: on a password change Redis ran
the new password and the controller the old one, refused by Redis. So every check on the controller host runs before
anything notifies Redis's restart, or after the controller's restarts have run. Checked on the order in which ansible
itself compiles the play."""

from __future__ import annotations

from conftest import play_tasks

CONTROLLER_HOST = "Controller host (Redis, controller, web UI)"
REDIS_RESTART = "Restart Redis"
CONTROLLER_RESTARTS = {"Restart the controller", "Restart the aggregation loop"}


def _flushes(task: dict) -> bool:
    return task["action"] in ("meta", "ansible.builtin.meta") and task["args"].get("_raw_params") == "flush_handlers"


def _refuses(task: dict) -> bool:
    """An assert, or a file written only once a command accepted it (validate)."""
    return task["action"] == "ansible.builtin.assert" or "validate" in task["args"]


def test_every_check_on_the_controller_host_runs_before_redis_changes_or_after_the_controller_restarted() -> None:
    tasks = play_tasks("site.yml")[CONTROLLER_HOST]
    redis_notified = min(i for i, t in enumerate(tasks) if REDIS_RESTART in t["notify"])
    controller_notified = max(i for i, t in enumerate(tasks) if CONTROLLER_RESTARTS & set(t["notify"]))
    controller_restarted = next(i for i in range(controller_notified + 1, len(tasks)) if _flushes(tasks[i]))
    # A check run again by its role after site.yml's pre_tasks ran it passes again: the inventory is the same.
    passed = {t["name"] for t in tasks[:redis_notified] if _refuses(t)}
    between = [f"{t['name']} ({t['role']})" for t in tasks[redis_notified:controller_restarted]
               if _refuses(t) and t["name"] not in passed]
    assert between == [], f"refuses after {tasks[redis_notified]['name']!r} notified Redis's restart"
