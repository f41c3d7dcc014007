"""The CLI's Redis commands end with one line naming the Redis address and the reason, and exit 3, when Redis
cannot be used: nothing listens there, it wants a password (or another one), or it never answers."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from servers import CONTROLLER_DIR, RedisServer, cli, free_port

LAB = str(CONTROLLER_DIR.parent / "configs" / "lab-2ap-2sta.yaml")
EXIT_REDIS = 3
PASSWORD = "right-secret-1"
COMMANDS = {
    "seed": (("seed", LAB), None),
    "seed --apply": (("seed", LAB, "--apply"), None),
    "apply": (("apply", "1"), None),
    "create-admin": (("create-admin", "--username", "admin2", "--password-stdin"), "a-long-password\n"),
}


@pytest.fixture(scope="module")
def locked_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    with RedisServer(tmp_path_factory.mktemp("redis-requirepass"), password=PASSWORD) as server:
        yield server


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS)
def test_cli_command_names_the_address_and_the_reason_when_nothing_listens(command: str) -> None:
    args, stdin = COMMANDS[command]
    port = free_port()  # bound and closed again: nothing listens on it
    res = cli(f"redis://127.0.0.1:{port}/0", *args, stdin=stdin)
    line = _one_line(res.stderr)
    assert res.returncode == EXIT_REDIS, res.stderr
    assert line.startswith(f"redis redis://127.0.0.1:{port}/0: ") and "refused" in line.lower(), line


@pytest.mark.parametrize("command", COMMANDS)
def test_cli_command_names_the_address_and_the_reason_when_the_password_is_wrong(
        command: str, locked_redis: RedisServer) -> None:
    args, stdin = COMMANDS[command]
    res = cli(f"redis://:wrong-secret-2@127.0.0.1:{locked_redis.port}/0", *args, stdin=stdin)
    line = _one_line(res.stderr)
    assert res.returncode == EXIT_REDIS, res.stderr
    # The address without its credentials: a password must not end up in a log.
    assert line.startswith(f"redis redis://127.0.0.1:{locked_redis.port}/0: ") and "password" in line, line
    assert "wrong-secret-2" not in res.stderr + res.stdout


def test_cli_apply_names_the_missing_password(locked_redis: RedisServer) -> None:
    res = cli(locked_redis.url, "apply", "1")
    line = _one_line(res.stderr)
    assert res.returncode == EXIT_REDIS, res.stderr
    assert line.startswith(f"redis {locked_redis.url}: ") and "authentication required" in line.lower(), line


def test_cli_apply_gives_up_on_a_server_that_never_answers() -> None:
    # A listening socket nobody accepts from: the connection opens (the kernel's backlog) and no reply ever comes.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        t0 = time.monotonic()
        res = cli(f"redis://127.0.0.1:{port}/0", "apply", "1")
        took = time.monotonic() - t0
    line = _one_line(res.stderr)
    assert res.returncode == EXIT_REDIS and took < 30, (took, res.stderr)
    assert line.startswith(f"redis redis://127.0.0.1:{port}/0: ") and "timeout" in line.lower(), line


def test_cli_apply_names_a_malformed_redis_address() -> None:
    res = cli("127.0.0.1:6379", "apply", "1")
    line = _one_line(res.stderr)
    assert res.returncode == EXIT_REDIS, res.stderr
    assert line.startswith("redis 127.0.0.1:6379: "), line
