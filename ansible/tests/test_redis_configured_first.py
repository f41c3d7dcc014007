"""site.yml's controller host: Redis runs the configuration the redis role writes (password, unix socket, bind,
AOF) before any role after it starts what talks to Redis (the controller, the aggregation loop). A handler left to
the end of the play would restart Redis only after those had started against Debian's packaged configuration (no
password, no socket). Checked on the order in which ansible itself compiles the play."""

from __future__ import annotations

from conftest import play_tasks

CONTROLLER_HOST = "Controller host (Redis, controller, web UI)"


def _flushes(task: dict) -> bool:
    return task["action"] in ("meta", "ansible.builtin.meta") and task["args"].get("_raw_params") == "flush_handlers"


def test_redis_restarts_on_its_configuration_before_the_controller_role_runs() -> None:
    tasks = play_tasks("site.yml")[CONTROLLER_HOST]
    roles = [t["role"] for t in tasks]
    assert "redis" in roles and "controller" in roles, roles
    restarting = [i for i, t in enumerate(tasks) if "Restart Redis" in t["notify"]]
    assert restarting, "no task notifies Restart Redis"
    # The role itself, not its checks, which the play's pre_tasks run first and which start nothing.
    first_after = roles.index("controller", max(i for i, role in enumerate(roles) if role == "redis"))
    assert restarting[-1] < first_after
    flushed = [i for i in range(restarting[-1] + 1, first_after) if _flushes(tasks[i])]
    assert flushed, (f"Restart Redis is still pending when role {roles[first_after]} starts "
                     f"(task {tasks[first_after]['name']!r})")
