"""The controller role's units (the API, the aggregation loop, the first admin's creation) reach Redis with the
password in their environment file only: systemd puts what an Exec line names (${ADWISER_REDIS_URL}) into the
process's arguments, which every user of the controller host reads in /proc/<pid>/cmdline and `ps`. The controller
takes the URL from ADWISER_REDIS_URL itself."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ANSIBLE, REPO, Run, localhost_play

ROLE = ANSIBLE / "roles" / "controller"
UNITS = ("adwiser-controller.service", "adwiser-aggregation-loop.service", "adwiser-first-admin.service")
PASSWORD = "controller-unit-password-5b1e"
PYTHON = REPO / ".venv" / "bin" / "python"


def _rendered(playbook: Run, tmp_path: Path) -> dict[str, str]:
    out = tmp_path / "rendered.json"
    files = {name: str(ROLE / "templates" / f"{name}.j2") for name in (*UNITS, "controller.env")}
    content = "{{ {" + ", ".join(f"'{n}': lookup('ansible.builtin.template', '{p}')" for n, p in files.items()) + "} | to_json }}"
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps({"adwiser_redis_password": PASSWORD, "adwiser_redis_port": 6379}))
    run = playbook(localhost_play([{"name": "Render", "ansible.builtin.copy": {"dest": str(out), "mode": "0600",
                                                                               "content": content}}],
                                  vars_files=[str(ROLE / "defaults" / "main.yml")]), "-e", f"@{inputs}")
    assert run.returncode == 0, run.stdout
    return json.loads(out.read_text())


def _environment(env_file: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in env_file.splitlines() if line and not line.startswith("#"))


def test_no_controller_unit_puts_the_redis_password_in_a_command_line(playbook: Run, tmp_path: Path) -> None:
    rendered = _rendered(playbook, tmp_path)
    env = _environment(rendered["controller.env"])
    assert PASSWORD in env["ADWISER_REDIS_URL"]
    for unit in UNITS:
        for line in rendered[unit].splitlines():
            if not re.match(r"Exec\w*=", line):
                continue
            # What systemd hands the process: ${NAME} and $NAME replaced by the environment file's values.
            argv = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: env.get(m.group(1) or m.group(2), ""), line)
            assert PASSWORD not in argv, (unit, line)


@pytest.mark.parametrize("command", ["serve", "aggregation-loop", "create-admin --username netops"])
def test_the_controller_takes_the_redis_url_from_its_environment(command: str) -> None:
    url = f"redis://:{PASSWORD}@127.0.0.1:6379/0"
    code = ("import sys; from adwiser_controller import cli; "
            "print(cli.build_parser().parse_args(sys.argv[1:]).redis_url)")
    seen = subprocess.run([str(PYTHON), "-c", code, *command.split()], cwd=REPO / "controller",
                          env={**os.environ, "ADWISER_REDIS_URL": url}, capture_output=True, text=True, check=True)
    assert seen.stdout.strip() == url
