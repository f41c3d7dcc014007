"""A restart that fails (a unit that does not start, a sysctl file the kernel refuses) still lets every other restart
the run notified run, and the play still fails, naming the restarts that failed. ansible fails a host at its first
failing handler and drops the handlers after it, force_handlers or not: a failed Redis restart left the controller,
the aggregation loop and nginx on what they ran before, a failed bridge left the NIC binding and the dataplane so, and
the next run, finding the files unchanged, notified nothing. Each play of the playbooks is taken with its keywords and
post_tasks as written, with the handlers of the roles it runs, all notified, on the control node (no systemd there:
every restart fails); and every flush of the handlers in the playbooks, the end of a play included, is followed by the
check that fails on the restarts that failed."""

from __future__ import annotations

import copy

import pytest
import yaml

from conftest import ANSIBLE, Run, play_tasks

# Playbook, play, the roles whose handlers it runs.
PLAYS = [("site.yml", "Controller host (Redis, controller, web UI)", ["common", "redis", "controller", "webui"]),
         ("upgrade.yml", "Upgrade the controller", ["controller", "webui"]),
         ("site.yml", "Appliances (bridge, DPDK, dataplane)", ["common", "dataplane", "openvswitch", "dpdk"])]
CHECK = "Fail on the restarts that failed"
FLUSH = ("meta", "ansible.builtin.meta")


def _handlers(roles: list[str]) -> list[dict]:
    return [h for role in roles for h in yaml.safe_load((ANSIBLE / "roles" / role / "handlers" / "main.yml").read_text())]


def _play_with_every_restart_notified(book: str, name: str, roles: list[str]) -> list[dict]:
    found = [p for p in yaml.safe_load((ANSIBLE / book).read_text()) if p["name"] == name]
    assert len(found) == 1, f"{book} has no play {name!r}"
    play = {k: v for k, v in copy.deepcopy(found[0]).items()
            if k not in ("pre_tasks", "roles", "tasks", "handlers", "vars", "become", "hosts")}
    handlers = _handlers(roles)
    # The probes after the restarts need a running controller: the restarts and their check are under test.
    play["post_tasks"] = [t for t in play.get("post_tasks") or [] if "ansible.builtin.uri" not in t]
    # role_path: where a role's handlers find the helper next to their role, as in the role.
    play.update(hosts="localhost", connection="local", gather_facts=False, handlers=handlers,
                vars={"adwiser_manage_services": True, "role_path": str(ANSIBLE / "roles" / roles[0])},
                tasks=[{"name": "Write every restarted file", "ansible.builtin.command": "true", "changed_when": True,
                        "notify": [h["name"] for h in handlers]}])
    return [play]


@pytest.mark.parametrize(("book", "name", "roles"), PLAYS)
def test_every_notified_restart_runs_after_one_failed_and_the_play_fails_naming_them(
        playbook: Run, book: str, name: str, roles: list[str]) -> None:
    run = playbook(_play_with_every_restart_notified(book, name, roles))
    assert run.returncode != 0, run.stdout
    handlers = [h["name"] for h in _handlers(roles)]
    assert len(handlers) >= 2, handlers
    for handler in handlers:
        assert f"RUNNING HANDLER [{handler}]" in run.stdout, f"{handler!r} did not run:\n{run.stdout}"
    # The check's task, as ansible names it ("TASK [recorded_restart : ...]").
    failure = run.stdout[run.stdout.index(f"{CHECK}]"):] if f"{CHECK}]" in run.stdout else ""
    for handler in handlers:
        assert handler in failure, f"{handler!r} not named in the failure:\n{run.stdout}"


@pytest.mark.parametrize("book", ["site.yml", "upgrade.yml"])
def test_every_flush_of_the_restarts_is_followed_by_their_check(book: str) -> None:
    """A flush the roles or playbooks write is followed by the check at once (a failed restart stops the play there, as
    it did); one ansible adds (between the sections of a play, unnamed) runs restarts that a later check must see."""
    for play, tasks in play_tasks(book).items():
        notified: list[str] = []
        unchecked: list[str] = []
        for i, task in enumerate(tasks):
            if task["notify"]:
                notified.append(task["name"])
            elif task["name"] == CHECK:
                unchecked = []
            elif task["action"] in FLUSH and task["args"].get("_raw_params") == "flush_handlers" and notified:
                if task["name"] and not task["implicit"]:
                    assert tasks[i + 1]["name"] == CHECK, f"{play}: {task['name']!r} runs {notified} with no check after it"
                unchecked += notified
                notified = []
        assert notified + unchecked == [], f"{play}: no check after the restarts of {notified + unchecked}"
