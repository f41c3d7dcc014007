"""Behind nginx (ansible role webui) every request comes from the address nginx connects from: the loopback, or
the host's own address the controller listens on. The failed-login limit and the audit's `client` count the
address nginx forwards in X-Forwarded-For, trusted from the proxies `serve --forwarded-allow-ips` names (default
the loopback addresses 127.0.0.1 and ::1), and from no one else. uvicorn alone trusted 127.0.0.1 only: behind
nginx on ::1 or the host's address every user was one client, and 30 wrong passwords from anyone locked
everyone out."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from api_accounts import ADMIN
from servers import ControllerServer, RedisServer, cli

PER_CLIENT = 30   # Settings.login_failures_per_client


@contextmanager
def _controller(tmp_path: Path, host: str, *args: str) -> Iterator[ControllerServer]:
    store = RedisServer(tmp_path / "redis").start()
    server = None
    try:
        assert cli(store.url, "create-admin", "--username", ADMIN[0], "--password-stdin",
                   stdin=ADMIN[1] + "\n").returncode == 0
        server = ControllerServer(store.url, tmp_path / "controller", host=host, args=args).start()
        yield server
    finally:
        if server:
            server.stop()
        store.stop()


def _client(source: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=30)


def _fail(c: httpx.Client, server: ControllerServer, name: str, forwarded_for: str) -> int:
    return c.post(server.url + "/api/v1/auth/login", json={"username": name, "password": "wrong password"},
                  headers={"X-Forwarded-For": forwarded_for}).status_code


def _lock_out_one_client(c: httpx.Client, server: ControllerServer, forwarded_for: str) -> None:
    # other names each time: only the address's limit is reached
    assert [_fail(c, server, f"guess{i}", forwarded_for) for i in range(PER_CLIENT)] == [401] * PER_CLIENT
    assert _fail(c, server, "guess-last", forwarded_for) == 429


def _audited_client_of_a_login(c: httpx.Client, server: ControllerServer, forwarded_for: str) -> str:
    res = c.post(server.url + "/api/v1/auth/login", json={"username": ADMIN[0], "password": ADMIN[1]},
                 headers={"X-Forwarded-For": forwarded_for})
    assert res.status_code == 200, res.text
    newest = c.get(server.url + "/api/v1/audit", params={"count": 1}, headers={"X-Forwarded-For": forwarded_for})
    assert newest.status_code == 200, newest.text
    assert newest.json()[0]["action"] == "auth.login"
    return newest.json()[0]["client"]


@pytest.mark.parametrize(("host", "args"), [("::1", ()), ("127.0.0.1", ()),
                                            ("127.0.0.2", ("--forwarded-allow-ips", "127.0.0.2"))],
                         ids=["ipv6-loopback", "ipv4-loopback", "told-address"])
def test_clients_forwarded_by_the_proxy_are_counted_and_audited_each_on_its_own(tmp_path: Path, host: str,
                                                                               args: tuple[str, ...]) -> None:
    # nginx connects from the address it connects to (the loopback, or the host's own address)
    with _controller(tmp_path, host, *args) as server, _client(host) as nginx:
        _lock_out_one_client(nginx, server, "192.0.2.1")
        assert _fail(nginx, server, "guess0", "192.0.2.2") == 401   # before: 429, one client for everyone
        # nginx appends the address it got the request from to what the client sent: that last one is the client
        assert _audited_client_of_a_login(nginx, server, "203.0.113.9, 192.0.2.3") == "192.0.2.3"


def test_x_forwarded_for_from_an_address_not_named_is_not_believed(tmp_path: Path) -> None:
    with _controller(tmp_path, "127.0.0.1", "--forwarded-allow-ips", "127.0.0.2") as server, \
            _client("127.0.0.1") as other:
        assert _audited_client_of_a_login(other, server, "192.0.2.3") == "127.0.0.1"
        for i in range(PER_CLIENT):
            assert _fail(other, server, f"guess{i}", f"192.0.2.{i}") == 401
        assert _fail(other, server, "guess-last", "192.0.2.200") == 429


def test_x_forwarded_for_from_a_client_that_is_no_proxy_is_not_believed(tmp_path: Path) -> None:
    with _controller(tmp_path, "127.0.0.1") as server, _client("127.0.0.5") as other:
        assert _audited_client_of_a_login(other, server, "192.0.2.3") == "127.0.0.5"
        _lock_out_one_client(other, server, "192.0.2.1")
        assert _fail(other, server, "guess0", "192.0.2.2") == 429


@pytest.mark.parametrize("bad", ["*", "localhost", "127.0.0.1,*", ""])
def test_serve_refuses_a_proxy_that_is_no_address(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    from adwiser_controller import cli as controller_cli

    with pytest.raises(SystemExit) as info:
        controller_cli.build_parser().parse_args(["serve", "--forwarded-allow-ips", bad])
    assert info.value.code == 2
    assert "--forwarded-allow-ips: expected IP addresses or networks" in capsys.readouterr().err
