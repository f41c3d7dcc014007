"""What the ansible playbooks assume of the controller, against the controller itself: the upgrade's
health probe answers without a login, and the first admin's name is one the controller accepts."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from adwiser_controller import auth

ANSIBLE = Path(__file__).resolve().parents[2] / "ansible"


def _play_tasks(path: Path) -> list[dict]:
    """The tasks of every play of a playbook."""
    return [t for play in yaml.safe_load(path.read_text()) for key in ("pre_tasks", "tasks", "post_tasks")
            for t in play.get(key) or []]


def test_the_upgrades_controller_probe_answers_without_a_login(api):
    probes = [t["ansible.builtin.uri"]["url"] for t in _play_tasks(ANSIBLE / "upgrade.yml") if "ansible.builtin.uri" in t]
    assert probes, "upgrade.yml has no controller probe"
    for url in probes:
        path = urlsplit(url.replace("{{", "").replace("}}", "")).path
        assert api(None).get(path).status_code == 200, f"upgrade.yml probes {path}, which needs a login"


def test_the_first_admin_name_the_play_accepts_is_one_the_controller_accepts():
    role_tasks = yaml.safe_load((ANSIBLE / "roles" / "controller" / "tasks" / "main.yml").read_text())
    conds = [c for t in role_tasks
             if "ansible.builtin.assert" in t for c in t["ansible.builtin.assert"]["that"]
             if "controller_first_admin_user is match" in c]
    assert len(conds) == 1
    pattern = re.search(r"match\('(.*)'\)", conds[0]).group(1)
    assert pattern == auth.USERNAME_PATTERN
