"""What the ansible playbooks assume of the controller, against the controller itself: the upgrade's
health probe answers without a login, and the first admin's name is one the controller accepts. And of the
dataplane's program: that the role runs a start's checks with it before it restarts the unit."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from adwiser_controller import auth

ANSIBLE = Path(__file__).resolve().parents[2] / "ansible"
# The controller role's refusals, run before role redis by site.yml and by the role itself for upgrade.yml.
CONTROLLER_CHECKS = ANSIBLE / "roles" / "controller" / "tasks" / "checks.yml"


def _play_tasks(path: Path) -> list[dict]:
    """The tasks of every play of a playbook."""
    return [t for play in yaml.safe_load(path.read_text()) for key in ("pre_tasks", "tasks", "post_tasks")
            for t in play.get(key) or []]


def _role_tasks(role: str) -> list[dict]:
    """A role's tasks in the order they run: its main.yml with the task files it imports inlined."""
    tasks_dir = ANSIBLE / "roles" / role / "tasks"
    return [t for top in yaml.safe_load((tasks_dir / "main.yml").read_text())
            for t in (yaml.safe_load((tasks_dir / top["ansible.builtin.import_tasks"]).read_text())
                      if "ansible.builtin.import_tasks" in top else [top])]


def test_the_dataplane_role_runs_the_starts_checks_after_every_install_on_every_run():
    # The document's and the ACK model's `validate` run only when those files change: a new adwiser-dp whose
    # checks are stricter, with both unchanged, would be restarted on files nothing checked against it.
    role = ANSIBLE / "roles" / "dataplane"
    unit = (role / "templates" / "adwiser-dataplane.service.j2").read_text()
    start_check = re.search(r"^ExecStartPre=(.*)$", unit, re.M).group(1)
    tasks = _role_tasks("dataplane")
    checks = [i for i, t in enumerate(tasks) if (t.get("ansible.builtin.command") or {}).get("cmd") == start_check]
    assert len(checks) == 1, "no task runs the unit's ExecStartPre"
    check = tasks[checks[0]]
    installs = {dest: i for i, t in enumerate(tasks) for module in ("ansible.builtin.copy", "ansible.builtin.template")
                if (dest := (t.get(module) or {}).get("dest")) is not None}
    for dest in ("{{ dataplane_bin }}", "{{ dataplane_config_file }}", "{{ dataplane_ack_model_file }}"):
        assert installs[dest] < checks[0], f"the check runs before {dest} is installed"
    # Whether anything changed this run is no condition: a run after one that failed the check checks again.
    assert check.get("when") == "dataplane_installs_program | bool"
    assert check.get("changed_when") is False  # a second converge changes nothing


def test_the_upgrades_controller_probe_answers_without_a_login(api):
    probes = [t["ansible.builtin.uri"]["url"] for t in _play_tasks(ANSIBLE / "upgrade.yml") if "ansible.builtin.uri" in t]
    assert probes, "upgrade.yml has no controller probe"
    for url in probes:
        path = urlsplit(url.replace("{{", "").replace("}}", "")).path
        assert api(None).get(path).status_code == 200, f"upgrade.yml probes {path}, which needs a login"


def test_the_first_admin_name_the_play_accepts_is_one_the_controller_accepts():
    role_tasks = yaml.safe_load(CONTROLLER_CHECKS.read_text())
    conds = [c for t in role_tasks
             if "ansible.builtin.assert" in t for c in t["ansible.builtin.assert"]["that"]
             if "controller_first_admin_user is match" in c]
    assert len(conds) == 1
    pattern = re.search(r"match\('(.*)'\)", conds[0]).group(1)
    assert pattern == auth.USERNAME_PATTERN


def test_the_first_admin_password_the_play_accepts_reaches_create_admin_whole():
    # The password is written to a file that create-admin --password-stdin reads one line of: a line break in it
    # (a block scalar's or encrypt_string's trailing newline) cut it there, after the play had counted the rest.
    role_tasks = yaml.safe_load(CONTROLLER_CHECKS.read_text())
    conds = [c for t in role_tasks
             if "ansible.builtin.assert" in t for c in t["ansible.builtin.assert"]["that"]
             if "controller_first_admin_password is not search" in c]
    assert len(conds) == 1, "the play does not refuse a first admin's password with a line break"
    refused = re.compile(re.search(r"search\('(.*)'\)", conds[0]).group(1).replace("\\\\", "\\"))
    for broken in ("a-password-12\n", "first-line-of\nit", "carriage\r-return!"):
        assert refused.search(broken), repr(broken)
    assert not refused.search("a pass phrase with 'quotes' \\ and spaces")
