"""Failed logins are limited per user name and address, per address and per user name from every address
(Settings: 10, 30 and 100 a minute): past any, a login is refused with 429 and Retry-After, the right
password too, and a name that is no user is answered as one that is. Logins that succeed do not count. Wrong
passwords from one address lock a name out for that address only."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import httpx
import pytest
import redis
import redis.asyncio as aioredis

from adwiser_controller.login_limit import LoginLimit
from servers import ControllerServer, cli

DB = 5            # a controller of its own: the shared one's logins from this address must not be limited
PASSWORD = "limit admin password"


@pytest.fixture
def own_controller(redis_server, tmp_path) -> Iterator[ControllerServer]:
    url = redis_server.url.rsplit("/", 1)[0] + f"/{DB}"
    store = redis.Redis.from_url(url)
    store.flushdb()
    assert cli(url, "create-admin", "--username", "boss", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    server = ControllerServer(url, tmp_path).start()
    try:
        yield server
    finally:
        server.stop()
        store.flushdb()
        store.close()


def _login(server: ControllerServer, username: str, password: str, source: str = "127.0.0.1") -> httpx.Response:
    """A login sent from address `source` (any of 127/8 reaches the server's 127.0.0.1 on lo)."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=30) as c:
        return c.post(server.url + "/api/v1/auth/login", json={"username": username, "password": password})


def _refusal(res: httpx.Response) -> tuple[int, str, str]:
    assert 1 <= int(res.headers["Retry-After"]) <= 60
    return res.status_code, res.json()["field"], re.sub(r"\d+", "N", res.json()["detail"])


def test_failed_logins_past_the_limit_get_429_for_users_and_non_users_alike(own_controller):
    for _ in range(12):
        assert _login(own_controller, "boss", PASSWORD).status_code == 200
    for name in ("boss", "ghost"):
        for _ in range(10):
            assert _login(own_controller, name, "wrong password").status_code == 401
    refusals = {_refusal(_login(own_controller, "boss", "wrong password")),
                _refusal(_login(own_controller, "boss", PASSWORD)),
                _refusal(_login(own_controller, "ghost", "wrong password"))}
    assert len(refusals) == 1 and next(iter(refusals))[:2] == (429, "username"), refusals

    # other names from the same address: the address's limit
    statuses = [_login(own_controller, f"guess{i}", "wrong password").status_code for i in range(11)]
    assert 429 in statuses and set(statuses) == {401, 429}, statuses


def test_wrong_passwords_from_one_address_do_not_lock_the_user_out_elsewhere(own_controller):
    for _ in range(10):
        assert _login(own_controller, "boss", "wrong password", "127.0.0.7").status_code == 401
    assert _login(own_controller, "boss", PASSWORD, "127.0.0.7").status_code == 429
    assert _login(own_controller, "boss", PASSWORD, "127.0.0.8").status_code == 200


def _attempts(url: str, sends: list[tuple[str, str]]) -> list[int | None]:
    async def go() -> list[int | None]:
        r = aioredis.from_url(url, decode_responses=True)
        try:
            limit = LoginLimit(r, per_user_client=10, per_client=30, per_user=100, window_s=60)
            return [await limit.attempt(name, client) for name, client in sends]
        finally:
            await r.aclose()
    return asyncio.run(go())


def test_a_name_is_locked_everywhere_only_by_failures_from_several_addresses(redis_server):
    url = redis_server.url.rsplit("/", 1)[0] + f"/{DB + 1}"
    redis.Redis.from_url(url).flushdb()
    # 10 addresses x 10 failures: each address reaches its own limit for the name, the name its limit of 100
    waits = _attempts(url, [("boss", f"198.18.1.{a}") for a in range(10) for _ in range(10)])
    assert waits == [None] * 100
    assert _attempts(url, [("boss", "198.18.1.99")])[0] is not None     # a new address: the name's own limit
    assert _attempts(url, [("other", "198.18.1.98")]) == [None]         # other names are not limited by it
    redis.Redis.from_url(url).flushdb()


def test_wrong_current_passwords_of_a_password_change_are_limited_as_failed_logins(own_controller):
    # Unlimited, a viewer-role token of an admin (or a session left open) could guess the user's password
    # at the server's hashing speed through PUT /auth/me/password, and then log in with the user's full role.
    source = "127.0.0.9"
    with httpx.Client(base_url=own_controller.url, transport=httpx.HTTPTransport(local_address=source),
                      timeout=30) as c:
        res = c.post("/api/v1/auth/login", json={"username": "boss", "password": PASSWORD})
        made = c.post("/api/v1/auth/tokens", headers={"X-CSRF-Token": res.json()["csrf_token"]},
                      json={"name": "dashboard", "role": "viewer"})
        assert made.status_code == 201, made.text
        c.cookies.clear()
        c.headers["Authorization"] = f"Bearer {made.json()['token']}"
        guess = {"current_password": "wrong password", "new_password": "a new password 1"}
        for _ in range(10):
            assert c.put("/api/v1/auth/me/password", json=guess).status_code == 403
        refused = [c.put("/api/v1/auth/me/password", json=guess),
                   c.put("/api/v1/auth/me/password", json={**guess, "current_password": PASSWORD})]
        assert [r.status_code for r in refused] == [429, 429], [r.text for r in refused]
        assert [r.json()["field"] for r in refused] == ["current_password"] * 2
        assert all(1 <= int(r.headers["Retry-After"]) <= 60 for r in refused)
    # the password was not changed, and the guesses count as the name's failed logins from that address
    assert _login(own_controller, "boss", PASSWORD, source).status_code == 429
    assert _login(own_controller, "boss", PASSWORD, "127.0.0.10").status_code == 200
