"""Every variable an inventory sets (the example campus, the converge test's) is read by a playbook, a role or
another of the inventory's values: a setting an operator changes must change something."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, READERS


def _host_vars(groups: dict) -> Iterator[str]:
    for group in groups.values():
        for host in ((group or {}).get("hosts") or {}).values():
            yield from host or {}
        yield from _host_vars((group or {}).get("children") or {})


def _set_by(inventory: Path) -> dict[str, int]:
    """The variables `inventory` sets, each with how many times it sets it."""
    counts: dict[str, int] = {}
    files = [*(inventory / "group_vars").rglob("*.yml"), *(inventory / "host_vars").rglob("*.yml")]
    names = [n for f in files for n in yaml.safe_load(f.read_text()) or {}]
    names += list(_host_vars(yaml.safe_load((inventory / "hosts.yml").read_text())["all"].get("children") or {}))
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    return counts


@pytest.mark.parametrize("inventory", [ANSIBLE / "inventories" / "campus", ANSIBLE / "tests" / "inventory"],
                         ids=["campus", "converge"])
def test_every_variable_the_inventory_sets_is_read(inventory: Path) -> None:
    readers = "\n".join(p.read_text() for p in READERS)
    own = "\n".join(p.read_text() for p in inventory.rglob("*.yml"))
    unread = [name for name, times in _set_by(inventory).items()
              if not name.startswith("ansible_") and not re.search(rf"\b{name}\b", readers)
              and len(re.findall(rf"\b{name}\b", own)) <= times]
    assert unread == [], f"set by {inventory.relative_to(ANSIBLE)}, read by nothing: {unread}"
