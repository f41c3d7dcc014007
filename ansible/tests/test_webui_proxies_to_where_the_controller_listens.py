"""nginx (role webui) proxies the API to the address the controller's unit (role controller) listens on: an
inventory that moves the controller to another address or port moves nginx's upstream with it. The controller
believes the X-Forwarded-For of that address (nginx connects from the address it connects to) and of no other:
believing only uvicorn's default 127.0.0.1, it saw every user behind nginx on ::1 or the host's address as one
client, and its failed-login limit locked them all out at once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import Run
from roles_rendered import rendered


@pytest.mark.parametrize(("host", "upstream"), [("127.0.0.1", "127.0.0.1:9090"), ("10.20.0.10", "10.20.0.10:9090"),
                                                ("::1", "[::1]:9090"), ("0.0.0.0", "127.0.0.1:9090"),
                                                ("::", "[::1]:9090")])
def test_the_upstream_is_the_controllers_listen_address(host: str, upstream: str, playbook: Run,
                                                       tmp_path: Path) -> None:
    out = rendered(playbook, tmp_path, ["controller", "webui"],
                   {"controller_listen_host": host, "controller_listen_port": 9090},
                   templates={"unit": "controller/templates/adwiser-controller.service.j2",
                              "site": "webui/templates/adwiser-nginx.conf.j2"})
    serve = re.search(r"--host (\S+) --port (\d+)", out["unit"])
    assert serve and serve.groups() == (host, "9090"), out["unit"]
    assert re.search(r"upstream adwiser_controller \{\s*server (\S+);", out["site"]).group(1) == upstream
    proxies = re.search(r"--forwarded-allow-ips (\S+)", out["unit"])
    assert proxies and proxies.group(1) == upstream.rsplit(":", 1)[0].strip("[]"), out["unit"]
