"""Failed logins are limited per user name and per client address (Settings: 10 and 30 a minute): past
either, a login is refused with 429 and Retry-After, the right password too, and a name that is no user
is answered as one that is. Logins that succeed do not count."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
import redis

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


def _login(server: ControllerServer, username: str, password: str) -> httpx.Response:
    return httpx.post(server.url + "/api/v1/auth/login", json={"username": username, "password": password},
                      timeout=30)


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
