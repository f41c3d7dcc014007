"""Fixtures for the namespace tests: every test run uses its own namespace
prefix (PID + counter) so concurrent runs on this machine never collide, and
the topology is removed in a finally even when the test fails."""
from __future__ import annotations

import itertools
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

TESTBED = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTBED))

from runner import topology  # noqa: E402

_counter = itertools.count()


def _sigterm_as_interrupt(signum: int, frame: object) -> None:
    # A second SIGTERM must not cut the fixtures' teardown short (SIGKILL still ends pytest).
    signal.signal(signal.SIGTERM, lambda *_: None)
    raise KeyboardInterrupt(f"signal {signum} (SIGTERM)")


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def default_sigint():
    """A preexec_fn for a child the test sends SIGINT: a shell starts its background jobs (`nohup ... &`, some
    CI runners) with SIGINT ignored, the child inherits that, and runner.signals keeps an ignored SIGINT ignored
    (a background job's Ctrl-C is not its own), so the child would never see the test's SIGINT."""
    return _default_sigint


def pytest_configure(config: pytest.Config) -> None:
    """SIGTERM (a CI timeout, `timeout`, systemd) stops pytest as Ctrl-C does: the running test is
    interrupted and every fixture's finally runs (namespaces, processes, OVS, redis-server).
    Python's default would end pytest at once and leave all of them behind."""
    signal.signal(signal.SIGTERM, _sigterm_as_interrupt)


@pytest.fixture(autouse=True, scope="session")
def _need_root() -> None:
    if os.geteuid() != 0:
        pytest.fail("the testbed tests create network namespaces: run them as root")


@pytest.fixture
def prefix() -> str:
    return f"t{os.getpid() % 100000}x{next(_counter)}"


@pytest.fixture
def testbed(prefix: str, tmp_path: Path) -> Iterator[topology.Testbed]:
    os.environ["TESTBED_RUN_ROOT"] = str(tmp_path / "run")
    tb = topology.Testbed(prefix)
    try:
        topology.up(tb)
        yield tb
    finally:
        topology.down(tb)


@pytest.fixture
def demo_env(prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """(run root, dashboard dist) for a demo run inside a test: a short run root under /tmp (the unix sockets
    of redis and OVS live below it), the test's prefix, no testbed lock (the suite runs under it as a whole),
    and a stand-in for the built dashboard. The run root is removed after the test."""
    run_root = Path(tempfile.mkdtemp(prefix="adwd", dir="/tmp"))
    monkeypatch.setenv("TESTBED_PREFIX", prefix)
    monkeypatch.setenv("TESTBED_RUN_ROOT", str(run_root))
    monkeypatch.setenv("TESTBED_LOCK", "0")
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "index.html").write_text("<!doctype html><title>stand-in</title>")
    try:
        yield run_root, dist
    finally:
        shutil.rmtree(run_root, ignore_errors=True)
