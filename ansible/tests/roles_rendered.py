"""Renders role templates and variables the way a play of site.yml sees them: the roles' defaults (in the order the
play runs the roles, a later role's over an earlier's) under what the inventory sets for the host."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from conftest import ANSIBLE, Run, localhost_play

ROLES = ANSIBLE / "roles"


def rendered(playbook: Run, tmp_path: Path, roles: list[str], host_vars: dict,
             templates: dict[str, str] | None = None, values: list[str] | None = None) -> dict:
    """`templates` ({key: 'role/templates/file'}) rendered and `values` (variable names) templated, by key and
    name. The defaults are the inventory's group `all` here, below the host's variables as role defaults are
    below the inventory (play vars_files would be above it)."""
    defaults: dict = {}
    for role in roles:
        defaults.update(yaml.safe_load((ROLES / role / "defaults" / "main.yml").read_text()) or {})
    hosts = tmp_path / "hosts.yml"
    hosts.write_text(json.dumps({"all": {"vars": defaults, "hosts": {
        "localhost": {"ansible_connection": "local", **host_vars}}}}))
    parts = [f"'{key}': lookup('ansible.builtin.template', '{ROLES / path}')"
             for key, path in (templates or {}).items()]
    parts += [f"'{name}': {name}" for name in values or []]
    out = tmp_path / "rendered.json"
    play = localhost_play([{"name": "Render", "ansible.builtin.copy": {
        "dest": str(out), "mode": "0600", "content": "{{ {" + ", ".join(parts) + "} | to_json }}"}}])
    run = playbook(play, inventory=str(hosts))
    assert run.returncode == 0, run.stdout
    return json.loads(out.read_text())
