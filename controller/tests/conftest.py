"""Session fixtures: one real redis-server (AOF, temp dir, free loopback port) and one real
controller process for the whole run, an admin made by the CLI, and API tokens per role."""

from __future__ import annotations

import itertools
import os
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))
# The controller is run from its source tree (it is not installed in the venv): every `python -m
# adwiser_controller...` these tests start finds it wherever pytest was started from.
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH")) if p)

from api_accounts import ADMIN, PASSWORDS, login  # noqa: E402
from lab_document import lab_doc  # noqa: E402
from servers import ControllerServer, RedisServer, cli  # noqa: E402

_ids = itertools.count(1)


def _sigterm_as_interrupt(signum: int, frame: object) -> None:
    # A second SIGTERM must not cut the fixtures' teardown short (SIGKILL still ends pytest).
    signal.signal(signal.SIGTERM, lambda *_: None)
    raise KeyboardInterrupt(f"signal {signum} (SIGTERM)")


def pytest_configure(config: pytest.Config) -> None:
    """SIGTERM (a CI timeout, `timeout`, systemd) stops pytest as Ctrl-C does: the running test is
    interrupted and every fixture's finally runs (namespaces, processes, OVS, redis-server).
    Python's default would end pytest at once and leave all of them behind."""
    signal.signal(signal.SIGTERM, _sigterm_as_interrupt)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture(scope="session")
def rdb(redis_server: RedisServer) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_server.url, decode_responses=True)
    yield client
    client.close()


@pytest.fixture(scope="session")
def controller(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControllerServer]:
    res = cli(redis_server.url, "create-admin", "--username", ADMIN[0], "--password-stdin", stdin=ADMIN[1] + "\n")
    assert res.returncode == 0, res.stderr
    server = ControllerServer(redis_server.url, tmp_path_factory.mktemp("controller")).start()
    try:
        yield server
    finally:
        server.stop()



@pytest.fixture(scope="session")
def tokens(controller: ControllerServer) -> dict[str, str]:
    """A bearer token per role (admin from the CLI-made admin; operator and viewer users created by it)."""
    admin, csrf = login(controller.url, *ADMIN)
    out = {}
    for role in ("operator", "viewer"):
        res = admin.post("/api/v1/auth/users", headers={"X-CSRF-Token": csrf},
                         json={"username": role + "1", "password": PASSWORDS[role], "role": role})
        assert res.status_code == 201, res.text
    for username, role in ((ADMIN[0], "admin"), ("operator1", "operator"), ("viewer1", "viewer")):
        client, csrf_u = login(controller.url, username, PASSWORDS[role])
        res = client.post("/api/v1/auth/tokens", headers={"X-CSRF-Token": csrf_u}, json={"name": "tests"})
        assert res.status_code == 201, res.text
        out[role] = res.json()["token"]
        client.close()
    admin.close()
    return out


@pytest.fixture(scope="session")
def api(controller: ControllerServer, tokens: dict[str, str]) -> Callable[[str | None], httpx.Client]:
    clients: dict[str | None, httpx.Client] = {}

    def for_role(role: str | None) -> httpx.Client:
        if role not in clients:
            headers = {"Authorization": f"Bearer {tokens[role]}"} if role else {}
            clients[role] = httpx.Client(base_url=controller.url, headers=headers, timeout=15)
        return clients[role]

    return for_role



@pytest.fixture
def appliance(api: Callable[[str | None], httpx.Client], request: pytest.FixtureRequest) -> tuple[str, int]:
    """A fresh appliance for this test, with the lab document stored as its first version."""
    aid = f"t{next(_ids)}-{request.node.name[:30].replace('[', '-').replace(']', '')}".replace("_", "-")[:60]
    res = api("operator").post("/api/v1/versions", json={"doc": lab_doc(aid), "comment": "lab"})
    assert res.status_code == 201, res.text
    return aid, res.json()["version"]
