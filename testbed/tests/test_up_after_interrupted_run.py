"""`up` on a testbed that is already up, after a run that was killed before its
`finally` ran (SIGKILL, an OOM kill): the README promises the next `up` cleans
what that run left. The namespaces are stood in for (no root tools are run):
only what `up` does with the run directory and the modes is looked at."""
from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner import processes, topology

KilledRun = tuple[topology.Testbed, list[dict[str, str | None]], subprocess.Popen[bytes]]


@pytest.fixture
def killed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[KilledRun]:
    """A testbed whose state file and namespaces exist, with a process of the killed run still running
    (named by the pid file `processes.start` wrote for it); yields the testbed, the set_modes calls and
    the process."""
    monkeypatch.setenv("TESTBED_RUN_ROOT", str(tmp_path / "run"))
    tb = topology.Testbed("tup")
    tb.run_dir.mkdir(parents=True)
    tb.state_file.write_text(json.dumps({"prefix": tb.prefix, "modes": {"wan": "emu", "appl": "ports",
                                                                        "wlan": "emu"}}) + "\n")
    modes: list[dict[str, str | None]] = []
    monkeypatch.setattr(topology, "existing_namespaces", lambda: set(tb.namespaces))
    monkeypatch.setattr(topology, "set_modes", lambda _tb, **kw: modes.append(kw))
    monkeypatch.setattr(topology, "set_congestion_control", lambda _tb, _cc: None)
    left = processes.start(tb.run_dir, "wlan-emu", None, ["sleep", "600"])
    try:
        yield tb, modes, left.popen
    finally:
        if left.popen.poll() is None:
            left.popen.kill()
        left.popen.wait()


def test_up_on_an_existing_testbed_stops_the_processes_a_killed_run_left(killed_run: KilledRun) -> None:
    tb, _, left = killed_run
    topology.up(tb)
    assert left.poll() is not None, "up left the killed run's process running beside the new run's"
    assert not (tb.run_dir / "wlan-emu.pid").exists()


def test_up_on_an_existing_testbed_puts_straight_forwarding_back_everywhere(killed_run: KilledRun) -> None:
    tb, modes, _ = killed_run
    topology.up(tb, appl="ports")
    final: dict[str, str | None] = {}
    for call in modes:
        final.update({k: v for k, v in call.items() if v is not None})
    assert final == {"wan": "bridge", "appl": "ports", "wlan": "bridge"}


def test_up_on_an_existing_testbed_stops_the_ovs_daemons_a_killed_fabric_demo_left(killed_run: KilledRun) -> None:
    """`make demo FABRIC=ovs` keeps ovsdb-server's and ovs-vswitchd's pid files in <run dir>/ovs (ovs-start.sh);
    after the demo was killed, `up` looked only at the run directory's own pid files and left both daemons
    running in <P>appl, the bridge's ports on up0/ap1/ap2 beside the next run's forwarding."""
    tb, _, _ = killed_run
    (tb.run_dir / "ovs").mkdir()
    daemon = subprocess.Popen(["sleep", "600"])
    (tb.run_dir / "ovs" / "ovs-vswitchd.pid").write_text(f"{daemon.pid}\n")   # written by the daemon itself
    try:
        topology.up(tb)
        assert daemon.poll() is not None, "up left the killed demo's ovs-vswitchd running"
        assert not (tb.run_dir / "ovs" / "ovs-vswitchd.pid").exists()
    finally:
        if daemon.poll() is None:
            daemon.kill()
        daemon.wait()
