"""What the ansible playbooks assume of the controller, against the controller itself: the upgrade's
health probe answers without a login, the first admin's name is one the controller accepts, and nginx sends the
files it serves itself with the controller's own security headers. And of the dataplane's program: that the role runs a start's checks with it before it restarts the unit."""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from adwiser_controller import auth, security_headers

ANSIBLE = Path(__file__).resolve().parents[2] / "ansible"
# The controller role's refusals, run before role redis by site.yml and by the role itself for upgrade.yml.
CONTROLLER_CHECKS = ANSIBLE / "roles" / "controller" / "tasks" / "checks.yml"


def _play_tasks(path: Path) -> list[dict]:
    """The tasks of every play of a playbook."""
    return [t for play in yaml.safe_load(path.read_text()) for key in ("pre_tasks", "tasks", "post_tasks")
            for t in play.get(key) or []]


def _role_tasks(role: str, tasks_file: str = "main.yml") -> list[dict]:
    """A role's tasks in the order they run: its main.yml with the task files it imports inlined, at any depth."""
    tasks_dir = ANSIBLE / "roles" / role / "tasks"
    return [t for top in yaml.safe_load((tasks_dir / tasks_file).read_text())
            for t in (_role_tasks(role, top["ansible.builtin.import_tasks"])
                      if "ansible.builtin.import_tasks" in top else [top])]


def test_the_dataplane_role_runs_the_starts_checks_on_what_it_installs_on_every_run():
    # The document's and the ACK model's `validate` run only when those files change: a new adwiser-dp whose
    # checks are stricter, with both unchanged, would be restarted on files nothing checked against it. The role
    # stages the three (prepare.yml), checks them together with the start's checks on every run, and installs them
    # byte for byte only after that (start.yml); tests/test_dataplane_checks_match_the_start.py in ansible pins
    # that the staged check gives the options the unit's ExecStartPre gives.
    role = ANSIBLE / "roles" / "dataplane"
    unit = (role / "templates" / "adwiser-dataplane.service.j2").read_text()
    assert re.search(r"^ExecStartPre=(.*)$", unit, re.M).group(1) == "{{ dataplane_start_check_command }}"
    tasks = _role_tasks("dataplane")
    checks = [i for i, t in enumerate(tasks)
              if (t.get("ansible.builtin.command") or {}).get("cmd") == "{{ dataplane_staged_check_command }}"]
    assert len(checks) == 1, "no task runs the start's checks on the staged files"
    check = tasks[checks[0]]
    written = {dest: (i, t.get(module) or {}) for i, t in enumerate(tasks)
               for module in ("ansible.builtin.copy", "ansible.builtin.template")
               if (dest := (t.get(module) or {}).get("dest")) is not None}
    for staged, installed in (("{{ dataplane_staged_bin }}", "{{ dataplane_bin }}"),
                              ("{{ dataplane_staged_config_file }}", "{{ dataplane_config_file }}"),
                              ("{{ dataplane_staged_ack_model_file }}", "{{ dataplane_ack_model_file }}")):
        assert written[staged][0] < checks[0], f"the check runs before {staged} is staged"
        at, install = written[installed]
        assert at > checks[0], f"{installed} is installed before the check"
        assert install.get("src") == staged and install.get("remote_src") is True, f"{installed} is not what was checked"
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


def test_nginx_serves_the_web_ui_files_with_the_controllers_security_headers():
    # The site's location / repeats them (an add_header there drops the server's), so the two copies are compared.
    site = (ANSIBLE / "roles" / "webui" / "templates" / "adwiser-nginx.conf.j2").read_text()
    sent = dict(re.findall(r'add_header ([A-Za-z-]+) "([^"]*)" always;', site.split("location / {", 1)[1].split("}", 1)[0]))
    for name, value in security_headers.HEADERS.items():
        assert sent.get(name) == value, f"nginx sends {name}: {sent.get(name)!r}, the controller {value!r}"
