"""Fixtures of the playbook tests that need no root: small playbooks run by ansible-playbook on the control
node itself (connection local), with this folder's ansible.cfg and roles."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

ANSIBLE = Path(__file__).resolve().parents[1]
REPO = ANSIBLE.parent

Run = Callable[..., subprocess.CompletedProcess]
# What reads variables: the playbooks, the roles (tasks, handlers, defaults, templates, scripts), the tests' playbooks.
READERS = [p for p in [ANSIBLE / "site.yml", ANSIBLE / "upgrade.yml", *(ANSIBLE / "roles").rglob("*"),
                       *(ANSIBLE / "tests").glob("*.yml")]
           if p.is_file() and p.suffix in (".yml", ".j2", ".py", ".sh")]
# The process of the dataplane unit, as the stand-in redis-cli reports it in the heartbeat.
MAIN_PID = 4242


def localhost_play(tasks: list[dict], **play: object) -> list[dict]:
    """One play of `tasks` on the control node, without facts."""
    return [{"name": "Test", "hosts": "localhost", "connection": "local", "gather_facts": False,
             **play, "tasks": tasks}]


def write_redis_conf(playbook: Run, path: Path, password: str) -> None:
    """What role redis writes to its redis.conf when the vault's Redis password is `password` (its template), at
    `path`: the file the upgrade's password checks read on the controller host."""
    write = localhost_play([{"name": "Write", "ansible.builtin.template": {
        "src": str(ANSIBLE / "roles/redis/templates/redis.conf.j2"), "dest": str(path), "mode": "0600"}}],
        vars={"redis_password": password, "redis_sta_agent_password": "", "redis_bind_addresses": ["127.0.0.1"],
              "redis_port": 6379, "redis_unixsocket": "/run/redis/redis-server.sock", "redis_dir": "/var/lib/redis",
              "redis_maxmemory_mb": 1024, "redis_appendfsync": "everysec"})
    assert playbook(write).returncode == 0


# The schema's check of the configuration document, run on the control node for each appliance.
VALIDATION = "Validate the configuration document on the control node"


def runs_with_backend(task: dict, backend: str) -> bool:
    """Whether a compiled task (play_tasks) runs on an appliance of `backend`, as far as its conditions on the backend
    say."""
    return all(eval(c, {}, {"adwiser_backend": backend})  # noqa: S307 (the playbooks' own conditions)
               for c in task["when"] if isinstance(c, str) and "adwiser_backend" in c)


def checks_on_the_appliance(task: dict) -> bool:
    """Whether a compiled task is adwiser-dp's check of a file on the appliance (a `validate`, or --check-config)."""
    return "validate" in task["args"] or (task["action"] == "ansible.builtin.command"
                                          and "--check-config" in json.dumps(task["args"]))


def refuses_the_appliance(task: dict, roles: tuple[str, ...]) -> bool:
    """Whether a compiled task of one of `roles` refuses what the inventory asks of the appliance: an assert, the
    schema's check on the control node, or adwiser-dp's on the appliance."""
    return task["role"] in roles and (task["action"] == "ansible.builtin.assert" or task["name"] == VALIDATION
                                      or checks_on_the_appliance(task))


def recap(stdout: str, host: str = "localhost") -> dict[str, int]:
    """The PLAY RECAP counts of `host`."""
    line = re.search(rf"^{re.escape(host)}\s+:(.*)$", stdout, re.M)
    assert line, stdout
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line.group(1))}


def upgrade_task(name: str) -> dict:
    """The task of upgrade.yml called `name`, wherever it is (play tasks, post_tasks, blocks)."""
    def walk(tasks: list[dict]) -> Iterator[dict]:
        for t in tasks:
            yield t
            for key in ("block", "rescue", "always"):
                yield from walk(t.get(key) or [])
    plays = yaml.safe_load((ANSIBLE / "upgrade.yml").read_text())
    found = [t for play in plays for key in ("pre_tasks", "tasks", "post_tasks")
             for t in walk(play.get(key) or []) if t.get("name") == name]
    assert len(found) == 1, name
    # Fewer and quicker retries than a rollout waits: the outcome, not the patience, is under test.
    return {**copy.deepcopy(found[0]), "retries": 2, "delay": 0}


def play_tasks(book: str) -> dict[str, list[dict]]:
    """The tasks of each play of `book` (by play name) in the order ansible runs them, as ansible compiles them
    (tests/play_tasks.py, run by the interpreter of ansible-playbook: the tests' Python need not have ansible)."""
    program = shutil.which("ansible-playbook")
    assert program, "ansible-playbook not found"
    with open(program, encoding="utf-8") as f:
        interpreter = f.readline().removeprefix("#!").split()
    listed = subprocess.run([*interpreter, str(ANSIBLE / "tests" / "play_tasks.py"), book], cwd=ANSIBLE,
                            env={**os.environ, "ANSIBLE_CONFIG": str(ANSIBLE / "ansible.cfg")},
                            capture_output=True, text=True, timeout=120, check=True)
    return {play["name"]: play["tasks"] for play in json.loads(listed.stdout)}


@pytest.fixture
def playbook(tmp_path: Path) -> Run:
    """Writes `plays` to a playbook in a scratch folder and runs it; extra arguments go to ansible-playbook,
    `env` adds to its environment. Scratch files of the roles (TMPDIR) go to tmp_path/tmp."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()

    def run(plays: list[dict], *args: str, inventory: str = "localhost,",
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        book = tmp_path / "playbook.yml"
        book.write_text(yaml.safe_dump(plays, sort_keys=False))
        environ = {**os.environ, "ANSIBLE_CONFIG": str(ANSIBLE / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1",
                   "ANSIBLE_LOCAL_TEMP": str(tmp_path / "ansible-local"), "TMPDIR": str(scratch), **(env or {})}
        return subprocess.run(["ansible-playbook", "-i", inventory, str(book), *args], cwd=ANSIBLE, env=environ,
                              capture_output=True, text=True, timeout=300)

    return run


@pytest.fixture
def redis_cli(tmp_path: Path) -> dict[str, str]:
    """The environment of a playbook whose redis-cli is a stand-in, first on PATH: it prints the heartbeat of
    process MAIN_PID and records in tmp_path/redis-cli.log its arguments, its stdin and the command lines of its
    ancestors up to ansible-playbook (what any user of the host can read in /proc)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "redis-cli"
    stub.write_text(f"""#!/bin/sh
{{
    printf 'argv: %s\\n' "$*"
    printf 'stdin: '; cat; echo
    pid=$PPID
    while [ "$pid" -gt 1 ]; do
        cmdline=$(tr '\\0' ' ' < /proc/$pid/cmdline)
        printf 'ancestor: %s\\n' "$cmdline"
        case "$cmdline" in *ansible-playbook*) break ;; esac
        pid=$(sed 's/.*) //' /proc/$pid/stat | cut -d' ' -f2)
    done
}} > '{tmp_path / "redis-cli.log"}'
echo '{{"pid": {MAIN_PID}, "ts": 1}}'
""")
    stub.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
