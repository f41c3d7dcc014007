"""Fixtures of the playbook tests that need no root: small playbooks run by ansible-playbook on the control
node itself (connection local), with this folder's ansible.cfg and roles."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

ANSIBLE = Path(__file__).resolve().parents[1]
REPO = ANSIBLE.parent

Run = Callable[..., subprocess.CompletedProcess]


def localhost_play(tasks: list[dict], **play: object) -> list[dict]:
    """One play of `tasks` on the control node, without facts."""
    return [{"name": "Test", "hosts": "localhost", "connection": "local", "gather_facts": False,
             **play, "tasks": tasks}]


def recap(stdout: str, host: str = "localhost") -> dict[str, int]:
    """The PLAY RECAP counts of `host`."""
    line = re.search(rf"^{re.escape(host)}\s+:(.*)$", stdout, re.M)
    assert line, stdout
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", line.group(1))}


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
