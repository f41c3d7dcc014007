"""The dataplane role's checks (the document's validate, the ACK model's validate, the unit's ExecStartPre and the
task that runs it on every run) give adwiser-dp the backend and the options the unit's start gives it: adwiser-dp
checks per backend (NFQUEUE interface names, an AP on the uplink's port) and refuses an option the backend never
reads (--burst with NFQUEUE), so a check without them passes what the start then refuses."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run, localhost_play

ROLE = ANSIBLE / "roles" / "dataplane"
# What a start reads that a check has no use for: the document it is given as --check-config, where to report.
START_ONLY = {"--config", "--redis", "--pid-file"}
INPUTS = {
    "dpdk": {"adwiser_backend": "dpdk", "adwiser_uplink_port": "0000:00:04.0", "dataplane_total_num_mbufs": 8192,
             "dataplane_extra_args": ["--burst", "64"]},
    "nfqueue": {"adwiser_backend": "nfqueue", "adwiser_uplink_port": "uplink0", "dataplane_nfqueue_num": 7,
                "dataplane_extra_args": ["--rt-priority", "10"]},
}


def _task_arg(tasks_file: str, name: str, module: str, arg: str) -> str:
    task = next(t for t in yaml.safe_load((ROLE / "tasks" / tasks_file).read_text()) if t["name"] == name)
    return task[module][arg]


def _options(command: str) -> dict[str, str | None]:
    """The long options of an adwiser-dp command line after its EAL arguments, each with its value."""
    words = shlex.split(command)
    words = words[words.index("--") + 1:] if "--" in words else words[1:]
    options: dict[str, str | None] = {}
    for i, word in enumerate(words):
        if word.startswith("--"):
            value = words[i + 1] if i + 1 < len(words) and not words[i + 1].startswith("--") else None
            options[word] = value
    return options


@pytest.mark.parametrize("backend", sorted(INPUTS))
def test_the_dataplane_checks_get_the_backend_and_options_of_the_start(
        backend: str, playbook: Run, tmp_path: Path) -> None:
    checks = {
        "document validate": _task_arg("config.yml", "Stage the configuration document", "ansible.builtin.template",
                                       "validate"),
        "ACK model validate": _task_arg("prepare.yml", "Stage the ACK-burst classifier's coefficients",
                                        "ansible.builtin.copy", "validate"),
        "start check task": _task_arg("prepare.yml", "Check the staged program, document and ACK model together",
                                      "ansible.builtin.command", "cmd"),
    }
    rendered = tmp_path / "rendered.json"
    unit = f"lookup('ansible.builtin.template', '{ROLE / 'templates' / 'adwiser-dataplane.service.j2'}')"
    play = localhost_play([{"name": "Render", "ansible.builtin.copy": {
        "dest": str(rendered), "mode": "0600",
        "content": "{{ {'unit': " + unit + ", " + ", ".join(
            f"'{name}': ({expr.strip().removeprefix('{{').removesuffix('}}')})" for name, expr in checks.items())
        + "} | to_json }}"}}], vars_files=[str(ROLE / "defaults" / "main.yml")])
    inputs = tmp_path / "inputs.json"
    inputs.write_text(json.dumps({**INPUTS[backend], "adwiser_appliance_id": "lab", "adwiser_redis_host": "10.0.0.1",
                                  "adwiser_redis_port": 6379, "adwiser_topology": {"aps": []}}))
    run = playbook(play, "-e", f"@{inputs}")
    assert run.returncode == 0, run.stdout
    out = json.loads(rendered.read_text())
    lines = out.pop("unit").splitlines()
    start = _options(next(x for x in lines if x.startswith("ExecStart=")).removeprefix("ExecStart="))
    out["unit's ExecStartPre"] = next(x for x in lines if x.startswith("ExecStartPre=")).removeprefix("ExecStartPre=")
    assert (start.get("--backend") or "dpdk") == backend, start
    wanted = {k: v for k, v in start.items() if k not in START_ONLY}
    for name, command in out.items():
        given = _options(command)
        # The document is installed before the ACK model (which is then checked with it): its check has no model;
        # the model's check is given the new file.
        expected = {k: v for k, v in wanted.items() if not (name == "document validate" and k == "--ack-model")}
        if name == "ACK model validate":
            expected["--ack-model"] = "%s"
        # The role's checks run on the staged files (tasks/prepare.yml), which the start's files are copies of.
        if name == "start check task" and "--ack-model" in expected:
            expected["--ack-model"] = "/var/lib/adwiser-dataplane/ack_burst_model.json"
        assert (given.get("--backend") or "dpdk") == backend, (name, command)
        assert {k: given.get(k) for k in expected} == expected, (name, command)
