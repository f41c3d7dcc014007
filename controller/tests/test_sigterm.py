"""SIGTERM to pytest stops it as Ctrl-C does, so the fixtures' finally blocks run (conftest.py): the
session's redis-server here, and the fabric lab's namespaces, OVS and dataplane (tests/fabric). With
Python's default the interpreter ended at once and left all of them running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from servers import RedisServer

PROBE_ENV = "ADWISER_SIGTERM_PROBE"   # set: the probe test runs (inside the pytest the test below starts)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(PROBE_ENV not in os.environ, reason="runs only inside the test below")
def test_probe_holds_redis_until_terminated(redis_server: RedisServer) -> None:
    assert redis_server.proc is not None
    Path(os.environ[PROBE_ENV]).write_text(f"{redis_server.proc.pid}\n")
    time.sleep(600)


def test_sigterm_to_pytest_runs_the_session_fixtures_teardown(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    child = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              f"tests/{Path(__file__).name}::test_probe_holds_redis_until_terminated"],
                             cwd=Path(__file__).parents[1], env=dict(os.environ, **{PROBE_ENV: str(ready)}),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid = 0
    try:
        end = time.monotonic() + 60
        while not ready.exists() and child.poll() is None and time.monotonic() < end:
            time.sleep(0.1)
        assert ready.exists(), "the probe pytest did not start its redis-server"
        pid = int(ready.read_text())
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=30)
        end = time.monotonic() + 5
        while _alive(pid) and time.monotonic() < end:
            time.sleep(0.05)
        assert not _alive(pid), f"redis-server {pid} outlived pytest's SIGTERM"
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if pid and _alive(pid):
            os.kill(pid, signal.SIGKILL)
