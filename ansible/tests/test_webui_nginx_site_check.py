"""The webui role's nginx site is checked by nginx before it replaces the installed one (the template's `validate`):
a site nginx refuses never lands, so the reload it notified does not fail on it and the next run checks again
instead of finding it already in place. The role's task runs as it is, against a file in a scratch folder and a
stand-in check; the check itself (files/check_nginx_site.sh) runs with the real nginx where one is installed."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run, localhost_play

WEBUI = ANSIBLE / "roles" / "webui"
CHECKER = WEBUI / "files" / "check_nginx_site.sh"
SBIN_PATH = f"{os.environ['PATH']}{os.pathsep}/usr/sbin{os.pathsep}/sbin"
NGINX = shutil.which("nginx", path=SBIN_PATH)


def _site_task(dest: Path) -> dict:
    """The role's "Write the nginx site" as it is, but for its destination, the template's path (the play runs no
    role), the owner (no root) and the handler (none in the play)."""
    found = [t for t in yaml.safe_load((WEBUI / "tasks" / "main.yml").read_text()) if t["name"] == "Write the nginx site"]
    assert len(found) == 1
    task = dict(found[0])
    module = dict(task.pop("ansible.builtin.template"))
    module.update(src=str(WEBUI / "templates" / module["src"]), dest=str(dest))
    for key in ("owner", "group"):
        module.pop(key)
    task.pop("notify")
    return {**task, "ansible.builtin.template": module}


def _stand_in_check(tmp_path: Path, status: int) -> str:
    """A check that keeps what it was given in tmp_path/checked and answers `status`, as nginx would."""
    check = tmp_path / f"check-{status}"
    check.write_text(f"#!/bin/sh\ncp \"$1\" '{tmp_path / 'checked'}'\n"
                     f"[ {status} -eq 0 ] || echo 'nginx: [emerg] stand-in refuses the site' >&2\nexit {status}\n")
    check.chmod(0o755)
    return f"{check} %s"


def _write_site(tmp_path: Path, dest: Path, status: int) -> list[dict]:
    return localhost_play([_site_task(dest)], vars={
        "webui_check_site_command": _stand_in_check(tmp_path, status), "webui_server_name": "adwiser.example",
        "webui_controller_upstream": "127.0.0.1:8080", "webui_tls_dir": "/etc/adwiser/tls",
        "webui_root": "/opt/adwiser/webui/dist"})


def test_a_site_nginx_refuses_is_not_installed(playbook: Run, tmp_path: Path) -> None:
    dest = tmp_path / "adwiser"
    dest.write_text("# the installed site\n")
    refused = playbook(_write_site(tmp_path, dest, 1))
    assert refused.returncode != 0, refused.stdout
    assert "stand-in refuses the site" in refused.stdout
    assert "upstream adwiser_controller" in (tmp_path / "checked").read_text()
    assert dest.read_text() == "# the installed site\n"

    accepted = playbook(_write_site(tmp_path, dest, 0))
    assert accepted.returncode == 0, accepted.stdout
    assert dest.read_text() == (tmp_path / "checked").read_text()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server(upstream: str, extra: str = "") -> str:
    return (f"upstream {upstream} {{ server 127.0.0.1:9; }}\n"
            f"server {{ listen 127.0.0.1:{_free_port()}; location / {{ proxy_pass http://{upstream}; }} {extra}}}\n")


@pytest.fixture
def nginx_conf(tmp_path: Path) -> dict[str, str]:
    """A nginx.conf of the Debian shape in tmp_path, whose enabled sites are an installed ADWISER site and another
    site (upstream `other`); the environment that points the check at it."""
    available, enabled = tmp_path / "sites-available", tmp_path / "sites-enabled"
    available.mkdir()
    enabled.mkdir()
    for name, upstream in (("adwiser", "adwiser_controller"), ("other", "other")):
        (available / name).write_text(_server(upstream))
        (enabled / name).symlink_to(available / name)
    conf = tmp_path / "nginx.conf"
    conf.write_text(f"error_log stderr;\npid {tmp_path}/nginx.pid;\nevents {{}}\n"
                    f"http {{\n\taccess_log off;\n\tinclude {enabled}/*;\n}}\n")
    return {"PATH": SBIN_PATH, "ADWISER_NGINX_CONF": str(conf), "ADWISER_NGINX_SITES": str(enabled)}


def _check(candidate: str, tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    site = tmp_path / "candidate"
    site.write_text(candidate)
    return subprocess.run(["sh", str(CHECKER), str(site)], env={**os.environ, **env}, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
def test_the_check_puts_the_candidate_in_place_of_the_installed_site(tmp_path: Path, nginx_conf: dict) -> None:
    # The same upstream as the installed site: accepted only if the installed one is left out.
    accepted = _check(_server("adwiser_controller"), tmp_path, nginx_conf)
    assert accepted.returncode == 0, accepted.stderr


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
def test_the_check_refuses_a_site_nginx_refuses(tmp_path: Path, nginx_conf: dict) -> None:
    broken = _check(_server("adwiser_controller", "proxy_nonsense on; "), tmp_path, nginx_conf)
    assert broken.returncode != 0
    assert "proxy_nonsense" in broken.stderr
    # The other enabled sites are part of the check: a second upstream `other` is refused.
    clashing = _check(_server("other"), tmp_path, nginx_conf)
    assert clashing.returncode != 0
    assert "duplicate upstream" in clashing.stderr


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
def test_the_check_refuses_a_nginx_conf_that_does_not_include_the_sites(tmp_path: Path, nginx_conf: dict) -> None:
    conf = Path(nginx_conf["ADWISER_NGINX_CONF"])
    conf.write_text(conf.read_text().replace("include", "# include"))
    refused = _check(_server("adwiser_controller"), tmp_path, nginx_conf)
    assert refused.returncode != 0
    assert "does not include" in refused.stderr
