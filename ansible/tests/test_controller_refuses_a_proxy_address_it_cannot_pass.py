"""Role controller's checks refuse, before anything is installed, proxy addresses the controller's serve would refuse
at its start (names, `*`): controller_forwarded_allow_ips follows controller_listen_host, so a host name there
(`localhost`, which the controller's --host takes) left a unit whose every start failed, after Redis had changed."""

from __future__ import annotations

import json

import pytest

from conftest import ANSIBLE, Run, localhost_play, recap

CHECKS = ANSIBLE / "roles" / "controller" / "tasks" / "checks.yml"
DEFAULTS = ANSIBLE / "roles" / "controller" / "defaults" / "main.yml"
VALID_ADMIN = {"controller_first_admin_password": "a-long-enough-password", "controller_first_admin_user": "admin"}


def _run_checks(playbook: Run, **variables: str):
    # The role's defaults, then the inventory's values as extra vars (above vars_files, as an inventory's are above a
    # role's defaults).
    play = localhost_play([{"name": "Controller checks", "ansible.builtin.include_tasks": str(CHECKS)}],
                          vars_files=[str(DEFAULTS)])
    return playbook(play, "-e", json.dumps({**VALID_ADMIN, **variables}))


@pytest.mark.parametrize("listen_host", ["127.0.0.1", "::", "0.0.0.0", "10.20.0.10", "::1"])
def test_an_address_to_listen_on_passes(playbook: Run, listen_host: str) -> None:
    res = _run_checks(playbook, controller_listen_host=listen_host)
    assert res.returncode == 0, res.stdout


@pytest.mark.parametrize("variables", [{"controller_listen_host": "localhost"},
                                       {"controller_forwarded_allow_ips": "127.0.0.1, nginx.campus.example"},
                                       {"controller_forwarded_allow_ips": "*"}])
def test_a_name_for_the_proxy_is_refused_naming_the_variable(playbook: Run, variables: dict[str, str]) -> None:
    res = _run_checks(playbook, **variables)
    assert res.returncode != 0 and recap(res.stdout)["failed"] == 1, res.stdout
    assert "controller_forwarded_allow_ips" in res.stdout, res.stdout
