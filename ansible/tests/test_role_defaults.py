"""Every variable a role sets as a default is read by a playbook, a role (its own or another) or another default:
a default nothing reads is a setting an operator can change to no effect. Comments of YAML files do not count as
reads (a default's own comment names it)."""

from __future__ import annotations

import re

import yaml

from conftest import ANSIBLE, READERS


def _code(text: str, yaml_file: bool) -> str:
    return "\n".join(line for line in text.splitlines() if not (yaml_file and line.lstrip().startswith("#")))


def test_every_role_default_is_read() -> None:
    readers = "\n".join(_code(p.read_text(), p.suffix == ".yml") for p in READERS)
    defined: dict[str, list[str]] = {}
    for defaults in sorted((ANSIBLE / "roles").glob("*/defaults/main.yml")):
        for name in yaml.safe_load(defaults.read_text()) or {}:
            defined.setdefault(name, []).append(defaults.parent.parent.name)
    assert defined, "no role defaults found"
    unread = {name: roles for name, roles in defined.items()
              if len(re.findall(rf"\b{name}\b", readers)) <= len(roles)}
    assert unread == {}, f"role defaults read by nothing (name: roles): {unread}"
