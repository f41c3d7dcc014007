"""A change to one of the controller role's units restarts only the service it is the unit of: the three units were
installed by one looped task notifying both restart handlers, so a change to the first admin's unit alone restarted
the API and the aggregation loop (whose pacing rates stay frozen while it is down), and one to the API's unit the
loop too. The first admin's unit is a one-shot the API's start pulls in (Wants=): rewritten, it needs only systemd's
reload, which the role's start tasks do."""

from __future__ import annotations

from pathlib import Path

import yaml

TASKS = Path(__file__).resolve().parents[1] / "roles" / "controller" / "tasks" / "main.yml"
RESTARTS = {"adwiser-controller.service": {"Restart the controller"},
            "adwiser-aggregation-loop.service": {"Restart the aggregation loop"},
            "adwiser-first-admin.service": set()}


def _installs() -> dict[str, set[str]]:
    """Unit name -> the handlers a change to it notifies."""
    out: dict[str, set[str]] = {}
    for task in yaml.safe_load(TASKS.read_text()):
        template = task.get("ansible.builtin.template")
        if not template or not str(template.get("dest", "")).startswith("/etc/systemd/system/"):
            continue
        notify = task.get("notify") or []
        notified = {notify} if isinstance(notify, str) else set(notify)
        units = task.get("loop") or [Path(template["dest"]).name]
        for unit in units:
            out[unit] = notified
    return out


def test_a_change_to_a_controller_unit_restarts_only_its_own_service():
    assert _installs() == RESTARTS
