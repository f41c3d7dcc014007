"""A Redis and a controller of the test's own, so that the test may stop the store under it, with the first admin
logged in on an HTTP client (CSRF header set)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from api_accounts import ADMIN
from servers import ControllerServer, RedisServer, cli


@contextmanager
def own_controller(tmp_path: Path, timeout_s: float = 10) -> Iterator[tuple[RedisServer, ControllerServer, httpx.Client]]:
    store = RedisServer(tmp_path / "redis").start()
    server = None
    try:
        assert cli(store.url, "create-admin", "--username", ADMIN[0], "--password-stdin",
                   stdin=ADMIN[1] + "\n").returncode == 0
        server = ControllerServer(store.url, tmp_path / "controller").start()
        with httpx.Client(base_url=server.url, timeout=timeout_s) as c:
            csrf = c.post("/api/v1/auth/login", json={"username": ADMIN[0], "password": ADMIN[1]}).json()["csrf_token"]
            c.headers["X-CSRF-Token"] = csrf
            yield store, server, c
    finally:
        if server:
            server.stop()
        store.stop()
