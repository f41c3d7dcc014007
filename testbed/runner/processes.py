"""Processes the testbed starts: each one by PID, with a pid file in the run
directory, and stopped by that PID (SIGTERM, then SIGKILL after a grace time).

`ip netns exec` execs the program in place, so the PID we get from Popen is the
program's own and a pid file left by a crashed run still names it.

A pid file left behind can outlive its process, and the kernel may since have
given that PID to an unrelated process. `stop_pidfiles` therefore signals a
PID only if that process started no later than the pid file was written (a
reused PID belongs to a process started after the file's writer had died):
its start time (/proc/<pid>/stat field 22, clock ticks since boot, against
/proc/uptime) is compared with the file's mtime. This holds for the files
`start` writes (right after the fork) and for those the programs write
themselves (wlan-emu.own.pid, adwiser-dp.own.pid), with no format change. The
runner removes the pid file of every process it stops or reaps (`stop`), and
wlan-emu, wan-emu and adwiser-dp remove their own at exit.

A DPDK program's runtime directory outlives it. `start` notes it in
<name>.dpdk-dir beside the pid file, so that `stop_pidfiles` removes it too
when the runner that started the program was killed before it could.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .shell import ns_argv


@dataclass
class ManagedProcess:
    name: str                       # short label, also the pid/log file stem
    pid: int                        # process id
    pidfile: Path                   # <run_dir>/<name>.pid
    log: Path                       # <run_dir>/<name>.log (stdout+stderr)
    popen: subprocess.Popen[bytes]  # handle, to reap the child
    dpdk_dir: Path | None = None    # DPDK runtime directory of its --file-prefix, removed once it exited

    def running(self) -> bool:
        return self.popen.poll() is None

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def start(run_dir: Path, name: str, ns: str | None, argv: Sequence[str],
          env: Mapping[str, str] | None = None) -> ManagedProcess:
    """Starts argv in namespace ns, stdout/stderr to <run_dir>/<name>.log."""
    run_dir.mkdir(parents=True, exist_ok=True)
    log = run_dir / f"{name}.log"
    with open(log, "wb") as out:
        popen = subprocess.Popen(ns_argv(ns, argv), stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True,
                                 env=dict(os.environ, **(env or {})))
    pidfile = run_dir / f"{name}.pid"
    pidfile.write_text(f"{popen.pid}\n")
    dpdk_dir = dpdk_runtime_dir(argv)
    if dpdk_dir is not None:
        pidfile.with_suffix(DPDK_NOTE).write_text(f"{dpdk_dir}\n")
    return ManagedProcess(name, popen.pid, pidfile, log, popen, dpdk_dir)


def dpdk_runtime_dir(argv: Sequence[str]) -> Path | None:
    """The runtime directory a DPDK program with this command line creates:
    <base>/dpdk/<--file-prefix>, base /var/run for root, else $XDG_RUNTIME_DIR
    or /tmp (DPDK 22.11 eal_create_runtime_dir). None without an explicit
    --file-prefix among the EAL arguments (before "--"): the default prefix
    "rte" may be shared with programs we did not start. rte_eal_cleanup does
    not remove the directory (config, hugepage_info, mp_socket stay), so the
    starter removes it after the program exited."""
    prefix = None
    for i, a in enumerate(argv):
        if a == "--":
            break
        if a == "--file-prefix" and i + 1 < len(argv):
            prefix = argv[i + 1]
        elif a.startswith("--file-prefix="):
            prefix = a.split("=", 1)[1]
    if not prefix or "/" in prefix or prefix in (".", ".."):
        return None
    return _dpdk_base() / prefix


def _dpdk_base() -> Path:
    base = Path("/var/run") if os.geteuid() == 0 else Path(os.environ.get("XDG_RUNTIME_DIR") or "/tmp")
    return base / "dpdk"


DPDK_NOTE = ".dpdk-dir"   # <name>.dpdk-dir: the runtime directory of the program of <name>.pid


def remove_dpdk_runtime_dir(path: Path | None) -> None:
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


def _remove_noted_dpdk_dir(note: Path) -> None:
    """Removes the runtime directory `note` names (only one directly under the DPDK base), then the note."""
    try:
        path = Path(note.read_text().strip())
    except OSError:
        path = None
    if path is not None and path.parent == _dpdk_base() and path.name not in ("", ".", ".."):
        remove_dpdk_runtime_dir(path)
    note.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def kill_pid(pid: int, grace_s: float = 5.0) -> None:
    """SIGTERM pid, wait up to grace_s for it to exit, then SIGKILL."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done == pid:
                return
        except ChildProcessError:
            if not _alive(pid):
                return
        time.sleep(0.02)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def stop(proc: ManagedProcess, grace_s: float = 5.0) -> int | None:
    """Stops proc by its PID; returns its exit status (None if it had to be killed)."""
    if proc.popen.poll() is None:
        proc.popen.send_signal(signal.SIGTERM)
        try:
            proc.popen.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            proc.popen.kill()
            proc.popen.wait()
    proc.pidfile.unlink(missing_ok=True)
    remove_dpdk_runtime_dir(proc.dpdk_dir)   # it has exited: nothing uses the directory now
    proc.pidfile.with_suffix(DPDK_NOTE).unlink(missing_ok=True)
    return proc.popen.returncode


# Clock granularity (ticks, /proc/uptime, coarse file times) is ~10 ms; a PID
# is not reused within a second of its previous owner's start.
_START_SLACK_S = 1.0


def _started_ago_s(pid: int) -> float | None:
    """How long ago process pid started (None if there is no such process)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError):
        return None
    # Fields after the command name "(comm)", which may itself hold spaces or ')': starttime is field 22.
    start_ticks = int(stat.rsplit(")", 1)[1].split()[19])
    return uptime - start_ticks / os.sysconf("SC_CLK_TCK")


def named_by(pidfile: Path, pid: int) -> bool:
    """Whether pid is still the process that pidfile was written for: it
    started no later than the file was written (module docstring)."""
    try:
        written_ago = time.time() - pidfile.stat().st_mtime
    except OSError:
        return False
    started_ago = _started_ago_s(pid)
    return started_ago is not None and started_ago + _START_SLACK_S >= written_ago


def stop_pidfiles(run_dir: Path) -> list[int]:
    """Stops every process named by a pid file in or below run_dir (left by an earlier,
    interrupted run) that is still the process the file was written for
    (`named_by`); a PID reused since by another process is left alone. Removes
    the pid files, then the DPDK runtime directories noted beside them (their
    programs are stopped or dead now); returns the PIDs signalled."""
    stopped: list[int] = []
    if not run_dir.is_dir():
        return stopped
    # Also below it: ovs-start.sh keeps the OVS daemons' pid files in <run dir>/ovs.
    for pidfile in sorted(run_dir.rglob("*.pid")):
        try:
            pid = int(pidfile.read_text().strip())
        except (OSError, ValueError):
            pidfile.unlink(missing_ok=True)
            continue
        if pid > 1 and pid != os.getpid() and _alive(pid) and named_by(pidfile, pid):
            kill_pid(pid)
            stopped.append(pid)
        pidfile.unlink(missing_ok=True)
    for note in sorted(run_dir.glob(f"*{DPDK_NOTE}")):
        _remove_noted_dpdk_dir(note)
    return stopped
