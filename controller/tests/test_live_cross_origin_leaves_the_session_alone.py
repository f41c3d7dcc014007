"""A live socket opened with the session cookie from another origin is refused (4403) before the cookie is
looked at: it neither extends the session's sliding lifetime (a page of another host of the same site, which
the SameSite=Strict cookie reaches, could otherwise keep an operator's session open for good by opening a
socket every few hours) nor tells that page whether its visitor is logged in (401 against 403)."""

from __future__ import annotations

import json
from contextlib import closing

from api_accounts import PASSWORDS, login
from websockets.sync.client import connect

from adwiser_controller import keys
from adwiser_controller.auth import digest


def _cross_origin(controller, aid: str, cookie: str) -> dict:
    url = controller.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live"
    with connect(url, origin="http://evil.example", additional_headers={"Cookie": f"adwiser_session={cookie}"},
                 open_timeout=5) as ws:
        return json.loads(ws.recv(timeout=5))


def test_a_cross_origin_socket_does_not_extend_the_session(controller, rdb, appliance):
    aid, _ = appliance
    client, _csrf = login(controller.url, "viewer1", PASSWORDS["viewer"])
    with closing(client):
        key = keys.session(digest(client.cookies["adwiser_session"]))
        rdb.expire(key, 100)
        msg = _cross_origin(controller, aid, client.cookies["adwiser_session"])
        assert msg["status"] == 403 and msg["field"] == "origin", msg
        assert 0 < rdb.ttl(key) <= 100


def test_a_cross_origin_socket_with_an_ended_session_is_refused_as_cross_origin(controller, appliance):
    aid, _ = appliance
    msg = _cross_origin(controller, aid, "no-such-session")
    assert msg["status"] == 403 and msg["field"] == "origin", msg
