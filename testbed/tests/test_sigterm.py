"""SIGTERM to a runner entry point or to pytest stops what it started: the
namespaces, the processes and their pid files. Python's default for SIGTERM
ends the interpreter without running any `finally`, which left a whole lab
(namespaces, wlan-emu, tcpdumps, iperf3) behind."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from runner import topology, wlan

TESTBED = Path(__file__).resolve().parents[1]
PROBE_ENV = "ADWISER_SIGTERM_PROBE"   # set: the probe test below runs (inside the pytest this file starts)


def _wait(cond: Callable[[], object], timeout_s: float, what: str) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def _alive(pid: int) -> bool:
    """Running (a zombie is not: it only waits for its parent to reap it)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _ours(prefix: str) -> set[str]:
    return {n for n in topology.existing_namespaces() if n.startswith(prefix)}


def _pids(run_dir: Path) -> dict[str, int]:
    out = {}
    for f in run_dir.glob("*.pid"):
        try:
            out[f.name] = int(f.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return out


def _terminate_and_check(child: subprocess.Popen[bytes], prefix: str, run_dir: Path) -> None:
    pids = _pids(run_dir)
    assert pids, f"no pid files in {run_dir}"
    child.send_signal(signal.SIGTERM)
    try:
        child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        raise
    left = {name: pid for name, pid in pids.items() if _alive(pid)}
    namespaces = _ours(prefix)
    pidfiles = sorted(p.name for p in run_dir.glob("*.pid")) if run_dir.is_dir() else []
    # On failure, clean up what the child left before the assertion reports it.
    for pid in left.values():
        os.kill(pid, signal.SIGKILL)
    if namespaces:
        topology.down(topology.Testbed(prefix))
    assert (left, namespaces, pidfiles) == ({}, set(), [])


@pytest.mark.skipif(not wlan.available() or not shutil.which("tcpdump") or not shutil.which("iperf3"),
                    reason="needs testbed/emu/wlan-emu (make -C testbed build), tcpdump and iperf3")
def test_sigterm_to_a_runner_entry_point_mid_transfer_leaves_nothing(prefix: str, tmp_path: Path) -> None:
    run_root = tmp_path / "run"
    run_dir = run_root / prefix
    child = subprocess.Popen(
        [sys.executable, "-m", "runner.ack_capture", "--rates", "20", "--duration", "30",
         "--out", str(tmp_path / "out"), "--prefix", prefix],
        cwd=TESTBED, env=dict(os.environ, TESTBED_RUN_ROOT=str(run_root)),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # Mid-transfer: tcpdump, wlan-emu and both iperf3 are running in the namespaces.
        _wait(lambda: (run_dir / "iperf3-cli-ackb.pid").exists() or child.poll() is not None, 60,
              "ack_capture's iperf3 client")
        assert child.poll() is None, "ack_capture ended before the transfer"
        time.sleep(1.0)
        assert _ours(prefix) == set(topology.Testbed(prefix).namespaces)
        _terminate_and_check(child, prefix, run_dir)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if _ours(prefix):
            topology.down(topology.Testbed(prefix))


@pytest.mark.skipif(PROBE_ENV not in os.environ, reason="runs only inside the test below")
def test_probe_holds_a_testbed_until_terminated(testbed: topology.Testbed) -> None:
    from runner import processes
    processes.start(testbed.run_dir, "sleeper", testbed.ns("server"), ["sleep", "600"])
    Path(os.environ[PROBE_ENV]).write_text(f"{testbed.prefix} {testbed.run_dir}\n")
    time.sleep(600)


def test_sigterm_to_pytest_runs_the_testbed_fixtures_teardown(tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    child = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         f"{Path(__file__).name}::test_probe_holds_a_testbed_until_terminated"],
        cwd=Path(__file__).parent, env=dict(os.environ, **{PROBE_ENV: str(ready)}),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    prefix = None
    try:
        _wait(lambda: ready.exists() or child.poll() is not None, 60, "the probe's testbed")
        assert child.poll() is None, "the probe pytest ended before its testbed was up"
        prefix, run_dir = ready.read_text().split()
        assert _ours(prefix)
        _terminate_and_check(child, prefix, Path(run_dir))
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if prefix and _ours(prefix):
            topology.down(topology.Testbed(prefix))
