"""The upgrade's health check asks the controller where it listens, as nginx does (role webui's upstream): a
wildcard listen address is reached on the loopback and an IPv6 one in brackets, so the play does not wait out its
retries on a URL that cannot be reached (http://:::8080/) and fail a healthy upgrade."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run
from roles_rendered import rendered


def _health_url_template() -> str:
    plays = yaml.safe_load((ANSIBLE / "upgrade.yml").read_text())
    urls = [t["ansible.builtin.uri"]["url"] for play in plays for t in play.get("post_tasks", [])
            if t.get("name") == "Wait for the controller to answer"]
    assert len(urls) == 1, urls
    return urls[0]


@pytest.mark.parametrize(("host", "url"), [("127.0.0.1", "http://127.0.0.1:9090/api/v1/health"),
                                           ("::1", "http://[::1]:9090/api/v1/health"),
                                           ("::", "http://[::1]:9090/api/v1/health"),
                                           ("0.0.0.0", "http://127.0.0.1:9090/api/v1/health")])
def test_the_health_check_url_is_the_controllers_reachable_address(host: str, url: str, playbook: Run,
                                                                   tmp_path: Path) -> None:
    template = tmp_path / "url.j2"
    template.write_text(_health_url_template())
    out = rendered(playbook, tmp_path, ["controller", "webui"],
                   {"controller_listen_host": host, "controller_listen_port": 9090}, templates={"url": str(template)})
    assert out["url"].strip() == url
