"""Every answer of the controller, the web UI it serves at / and the API alike, tells the browser not to
guess content types, not to let another site frame it, and to run only the scripts of its own origin.

Without them a page of another host of the campus (same site, so the SameSite=Strict cookie goes along)
could frame the dashboard and have the logged-in operator click "apply" through it (clickjacking), and a
response a browser sniffed as HTML could run as the dashboard's origin."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from servers import ControllerServer


@pytest.fixture(scope="module")
def with_webui(redis_server, tmp_path_factory: pytest.TempPathFactory):
    dist = tmp_path_factory.mktemp("dist")
    (dist / "index.html").write_text("<!doctype html><title>ADWISER</title><div id=app></div>")
    server = ControllerServer(redis_server.url, tmp_path_factory.mktemp("controller-webui"), webui_dist=dist).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("path", ["/", "/index.html", "/no-such-file", "/api/v1/health", "/api/v1/auth/me"])
def test_every_answer_forbids_framing_sniffing_and_foreign_scripts(with_webui: ControllerServer, path: str) -> None:
    res = httpx.get(with_webui.url + path)
    assert res.headers.get("x-content-type-options") == "nosniff", (res.status_code, res.headers)
    assert res.headers.get("x-frame-options") == "DENY", res.headers
    csp = [d.strip() for d in res.headers.get("content-security-policy", "").split(";")]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "object-src 'none'" in csp, csp


def test_a_refused_oversized_body_carries_them_too(with_webui: ControllerServer) -> None:
    res = httpx.post(with_webui.url + "/api/v1/auth/login", content=b"x" * (5 * 2**20),
                     headers={"content-type": "application/json"})
    assert res.status_code == 413
    assert res.headers.get("x-content-type-options") == "nosniff", res.headers


def test_the_api_pages_still_load_swagger_ui_but_are_not_framed(with_webui: ControllerServer) -> None:
    res = httpx.get(with_webui.url + "/docs")
    assert res.status_code == 200 and "<script>" in res.text
    assert res.headers.get("content-security-policy") == "frame-ancestors 'none'"
