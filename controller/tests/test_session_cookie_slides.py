"""The session cookie slides with the session: API.md gives it 12 h, sliding. Redis extends the
session on every request made with it; the browser must keep the cookie as long, or it drops the
cookie 12 h after the login, however busy the user, while the server would still take it."""

from __future__ import annotations

import time
from contextlib import closing

from api_accounts import ADMIN, login

from adwiser_controller import keys
from adwiser_controller.auth import digest


def _cookie_expires(client) -> int:
    (cookie,) = [c for c in client.cookies.jar if c.name == "adwiser_session"]
    return cookie.expires


def test_a_request_with_the_session_extends_the_cookie_as_it_extends_the_session(controller, rdb):
    client, csrf = login(controller.url, *ADMIN)
    with closing(client):
        secret = client.cookies["adwiser_session"]
        token_id = client.post("/api/v1/auth/tokens", headers={"X-CSRF-Token": csrf},
                               json={"name": "sliding"}).json()["info"]["id"]
        time.sleep(2.5)   # the user keeps working: a write answered 204, then a read
        for request in (lambda: client.delete(f"/api/v1/auth/tokens/{token_id}", headers={"X-CSRF-Token": csrf}),
                        lambda: client.get("/api/v1/auth/me")):
            res = request()
            assert res.is_success, res.text
            session_ends = time.time() + rdb.ttl(keys.session(digest(secret)))
            assert _cookie_expires(client) >= session_ends - 1, (res.request.method, _cookie_expires(client),
                                                                 session_ends)
        assert client.cookies["adwiser_session"] == secret


def test_logout_still_leaves_the_browser_without_the_cookie(controller):
    client, csrf = login(controller.url, *ADMIN)
    with closing(client):
        assert client.post("/api/v1/auth/logout", headers={"X-CSRF-Token": csrf}).status_code == 204
        assert "adwiser_session" not in client.cookies
