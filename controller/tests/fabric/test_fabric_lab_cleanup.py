"""The lab's own cleanup: close() stops the OVS daemons ovs-start.sh detached even when the script then
failed. ovs-start.sh detaches ovsdb-server and ovs-vswitchd before the steps that can fail (ovs-vsctl init,
the wait for vswitchd); the lab marked OVS started only after a successful script, so close() skipped
ovs-stop.sh, deleted the namespace and the pid files and left both daemons running."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

import fabric_lab
from fabric_lab import Lab

REAL_SCRIPTS = fabric_lab.OVS_SCRIPTS


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_close_stops_the_ovs_daemons_of_a_failed_ovs_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces, Open vSwitch)")
    missing = [t for t in ("ip", "ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "redis-server")
               if shutil.which(t) is None]
    if missing:
        pytest.skip(f"missing tools: {', '.join(missing)} (make deps)")
    scripts = tmp_path / "ovs"
    scripts.mkdir()
    # The real script, then a failure after both daemons are detached (as when vswitchd never answers).
    (scripts / "ovs-start.sh").write_text(f'#!/bin/sh\n"{REAL_SCRIPTS}/ovs-start.sh" "$@" || exit\n'
                                          'echo "injected failure after the daemons started" >&2\nexit 1\n')
    (scripts / "ovs-start.sh").chmod(0o755)
    (scripts / "ovs-stop.sh").symlink_to(REAL_SCRIPTS / "ovs-stop.sh")
    monkeypatch.setattr(fabric_lab, "OVS_SCRIPTS", scripts)
    lab = Lab("ovs-start-fails", prefix=f"adwfabc{os.getpid()}")
    pids: list[int] = []
    try:
        with pytest.raises(subprocess.CalledProcessError):
            lab.create()
        pids = [int((lab.ovs_dir / f"{d}.pid").read_text()) for d in ("ovsdb-server", "ovs-vswitchd")]
        assert all(_alive(p) for p in pids)
    finally:
        lab.close()
        left = [p for p in pids if _alive(p)]
        for p in left:   # the old code's leftovers: stopped here so the failure leaves nothing behind
            os.kill(p, signal.SIGKILL)
    assert left == []
    assert not lab.dir.exists()
