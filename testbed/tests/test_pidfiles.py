"""Stale pid files: a pid file outlives its process when a run is cut short
or a program never removes it, and its PID may since belong to an unrelated
process. Cleanup signals only the process a pid file was written for, and the
programs and the runner remove the pid files they wrote."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner import backend, processes, topology, wlan
from runner.scenarios import Scenario


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture
def unrelated() -> Iterator[subprocess.Popen[bytes]]:
    """A process the testbed did not start (here: ours, so the test can stop it)."""
    p = subprocess.Popen(["sleep", "600"])
    try:
        yield p
    finally:
        p.kill()
        p.wait()


def _stale(path: Path, pid: int, age_s: float = 60.0) -> None:
    """A pid file written age_s ago (by a run that ended), naming pid."""
    path.write_text(f"{pid}\n")
    then = time.time() - age_s
    os.utime(path, (then, then))


def test_down_leaves_a_process_that_reused_a_stale_pid_alone(prefix: str, tmp_path: Path,
                                                              unrelated: subprocess.Popen[bytes]) -> None:
    os.environ["TESTBED_RUN_ROOT"] = str(tmp_path / "run")
    tb = topology.Testbed(prefix)
    tb.run_dir.mkdir(parents=True)
    # The pid files the reviewer found left behind: the programs' own and a probe's the runner reaped.
    for name in ("wlan-emu.own.pid", "adwiser-dp.own.pid", "probe-sta1.pid", "wlan-emu.pid"):
        _stale(tb.run_dir / name, unrelated.pid)
    topology.down(tb)
    assert unrelated.poll() is None, "topology.down killed a process that only reused a stale PID"
    assert not tb.run_dir.exists()


def test_stop_pidfiles_still_stops_the_processes_the_files_were_written_for(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    started = processes.start(run_dir, "sleeper", None, ["sleep", "600"])
    own = run_dir / "self.own.pid"
    selfwritten = subprocess.Popen(["sh", "-c", f'echo $$ > "{own}"; exec sleep 600'])
    try:
        for _ in range(100):
            if own.exists() and own.read_text().strip():
                break
            time.sleep(0.02)
        time.sleep(1.5)   # the files are older than the slack; the processes older still
        assert sorted(processes.stop_pidfiles(run_dir)) == sorted([started.pid, selfwritten.pid])
        assert not _alive(started.pid) and not _alive(selfwritten.pid)
        assert list(run_dir.glob("*.pid")) == []
    finally:
        for p in (started.popen, selfwritten):
            if p.poll() is None:
                p.kill()
            p.wait()


def test_named_by_tells_the_writer_from_a_later_process(tmp_path: Path,
                                                         unrelated: subprocess.Popen[bytes]) -> None:
    f = tmp_path / "x.pid"
    _stale(f, unrelated.pid)
    assert not processes.named_by(f, unrelated.pid)
    f.write_text(f"{unrelated.pid}\n")   # written now, after the process started: it is the writer's
    assert processes.named_by(f, unrelated.pid)
    assert not processes.named_by(tmp_path / "absent.pid", unrelated.pid)


def test_a_reaped_process_leaves_no_pid_file(tmp_path: Path) -> None:
    p = processes.start(tmp_path, "quick", None, ["true"])
    p.popen.wait(timeout=10)
    processes.stop(p)
    assert not p.pidfile.exists()


@pytest.mark.skipif(not wlan.available(), reason="testbed/emu/wlan-emu is not built (make -C testbed build)")
def test_wlan_emu_removes_its_own_pid_file_at_exit(testbed: topology.Testbed, tmp_path: Path) -> None:
    emu = wlan.start(testbed, tmp_path / "out")
    assert emu is not None
    own = testbed.run_dir / "wlan-emu.own.pid"
    assert own.read_text().strip() == str(emu.proc.pid)
    wlan.stop(testbed, emu)
    assert not own.exists()


DP_SCENARIO = Scenario("pidfile-dp", "downlink", slice_ms=20, backend="dpdk")


@pytest.mark.skipif(not backend.dp_binary().exists(), reason="adwiser-dp is not built (make -C dataplane build)")
def test_adwiser_dp_leaves_no_pid_file_and_no_dpdk_runtime_dir(testbed: topology.Testbed) -> None:
    topology.set_modes(testbed, appl="ports")
    be = backend.start(testbed, DP_SCENARIO)
    own = testbed.run_dir / "adwiser-dp.own.pid"
    try:
        for _ in range(100):
            if own.exists():
                break
            time.sleep(0.05)
        assert own.read_text().strip() == str(be.proc.pid)
        runtime_dir = Path(f"/var/run/dpdk/adw-{testbed.prefix}")
        assert be.proc.dpdk_dir == runtime_dir and runtime_dir.is_dir()
    finally:
        backend.stop(testbed, be)
    assert be.proc.popen.returncode == 0
    assert not own.exists()
    assert not runtime_dir.exists()   # rte_eal_cleanup leaves it; the starter removes it


def test_dpdk_runtime_dir_is_that_of_an_explicit_file_prefix_only() -> None:
    base = Path("/var/run/dpdk") if os.geteuid() == 0 else None
    assert processes.dpdk_runtime_dir(["dp", "--no-huge", "--file-prefix", "adw-x", "--", "--file-prefix", "y"]) \
        == (base / "adw-x" if base else processes.dpdk_runtime_dir(["dp", "--file-prefix=adw-x"]))
    assert processes.dpdk_runtime_dir(["dp", "--file-prefix=adw-x"]) == processes.dpdk_runtime_dir(
        ["dp", "--file-prefix", "adw-x"])
    for argv in (["dp", "--no-huge"], ["dp", "--", "--file-prefix", "y"], ["dp", "--file-prefix", "../etc"],
                 ["dp", "--file-prefix", ".."], ["dp", "--file-prefix="]):
        assert processes.dpdk_runtime_dir(argv) is None, argv


@pytest.mark.skipif(not backend.dp_binary().exists(), reason="adwiser-dp is not built (make -C dataplane build)")
def test_down_after_a_killed_run_removes_its_dpdk_runtime_dir(testbed: topology.Testbed) -> None:
    """The runner SIGKILLed with adwiser-dp running: `down` finds the process by its pid file only, and
    left /var/run/dpdk/adw-<P> behind (rte_eal_cleanup does not remove it; only `stop` did)."""
    topology.set_modes(testbed, appl="ports")
    be = backend.start(testbed, DP_SCENARIO)   # the killed runner's handle: never stopped through it
    runtime_dir = Path(f"/var/run/dpdk/adw-{testbed.prefix}")
    try:
        assert runtime_dir.is_dir()
        topology.down(testbed)
        assert be.proc.popen.wait(timeout=15) is not None
        left = runtime_dir.exists()
    finally:
        if be.proc.running():
            be.proc.popen.kill()
            be.proc.popen.wait()
        shutil.rmtree(runtime_dir, ignore_errors=True)   # the old code's leftover, not this test's to keep
    assert not left, f"down left {runtime_dir}"
