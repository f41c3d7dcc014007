"""The first Ctrl-C or SIGTERM arriving while a run that was finishing normally
is already cleaning up (`timeout` firing then) must not cut that cleanup short.
`runner run together` given SIGTERM while its `finally` stopped leftover
processes exited 143 there and left all six namespaces; `runner.topology down`
given SIGTERM while it stopped the run directory's processes left them too;
the demo (`make demo`), given SIGTERM in its teardown after the traffic had
ended, left the controller, redis-server and the namespaces (it ignored only
Ctrl-C there).
The signal is held until the cleanup has finished and then ends the entry point
as interrupted, so a following round or scenario does not start.

The signal is sent by the process to itself from inside the cleanup, so it
arrives there every time (Python runs the handler right after os.kill)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from runner import backend, topology, wlan

TESTBED = Path(__file__).resolve().parents[1]

# An entry point in miniature: two rounds, each cleaning up what it started in
# a `stopping()` block, during which the first round gets two signals.
ROUNDS = """
import os, signal, sys, time
sys.path.insert(0, sys.argv[1])
from runner import signals
first, second = int(sys.argv[2]), int(sys.argv[3])
signals.exit_on_signals()
for n in range(2):
    try:
        print(f"running {n}", flush=True)
    finally:
        with signals.stopping():
            print(f"stopping {n}", flush=True)
            if n == 0:
                os.kill(os.getpid(), first)
                time.sleep(0.2)
                os.kill(os.getpid(), second)
            time.sleep(0.5)
            print(f"stopped {n}", flush=True)
"""


def _exit_status(signum: int) -> int:
    # KeyboardInterrupt ends Python by SIGINT once it reaches the top; SIGTERM by SystemExit(143)
    return -signal.SIGINT if signum == signal.SIGINT else 128 + signal.SIGTERM


@pytest.mark.parametrize("first,second", [(signal.SIGINT, signal.SIGTERM), (signal.SIGTERM, signal.SIGINT),
                                          (signal.SIGTERM, signal.SIGTERM)], ids=["int-term", "term-int", "term-term"])
def test_a_signal_during_a_cleanup_is_held_until_it_has_finished(first: int, second: int, default_sigint) -> None:
    child = subprocess.run([sys.executable, "-c", ROUNDS, str(TESTBED), str(int(first)), str(int(second))],
                           capture_output=True, text=True, timeout=30, preexec_fn=default_sigint)
    assert child.stdout.split("\n")[:-1] == ["running 0", "stopping 0", "stopped 0"], child.stderr
    assert child.returncode == _exit_status(first)


# The real entry point, its first SIGTERM arriving in the cleanup step that
# stops leftover processes by their pid files, after the transfers finished.
RUN_WITH_SIGTERM_IN_CLEANUP = """
import functools, os, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from runner import __main__ as runner_main, experiment, processes
results = Path(sys.argv[2])
transfers_done = []
run_transfers, stop_pidfiles = experiment._run_transfers, processes.stop_pidfiles

def finished_transfers(*args, **kwargs):
    reports = run_transfers(*args, **kwargs)
    transfers_done.append(True)
    return reports

def stop_pidfiles_with_sigterm(run_dir):
    if transfers_done and len(transfers_done) < 2:
        transfers_done.append(True)
        os.kill(os.getpid(), signal.SIGTERM)
    return stop_pidfiles(run_dir)

experiment._run_transfers = finished_transfers
processes.stop_pidfiles = stop_pidfiles_with_sigterm
experiment.run = functools.partial(experiment.run, results_dir=results)
sys.exit(runner_main.main(["run", "together", "--duration", "1"]))
"""

# `runner.topology down`, its first SIGTERM arriving as it stops the run directory's processes.
DOWN_WITH_SIGTERM = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from runner import processes, topology
stop_pidfiles = processes.stop_pidfiles

def stop_pidfiles_with_sigterm(run_dir):
    os.kill(os.getpid(), signal.SIGTERM)
    return stop_pidfiles(run_dir)

processes.stop_pidfiles = stop_pidfiles_with_sigterm
sys.exit(topology.main(["--prefix", sys.argv[2], "down"]))
"""

# `make demo` (runner.appliance_demo), its first SIGTERM arriving in the
# teardown after the traffic ran to its end, as it stops wlan-emu.
DEMO_WITH_SIGTERM_IN_TEARDOWN = """
import functools, os, signal, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from runner import appliance_demo, wlan
out, dist = Path(sys.argv[2]), Path(sys.argv[3])
stop_emu = wlan.stop

def stop_emu_with_sigterm(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    return stop_emu(*args, **kwargs)

wlan.stop = stop_emu_with_sigterm
appliance_demo.run = functools.partial(appliance_demo.run, out=out, webui_dist=dist)
sys.exit(appliance_demo.main(["--duration", "3", "--port", "0"]))
"""


def _left(prefix: str) -> set[str]:
    """The namespaces of this prefix still there; all of it is removed before the assertion reports them."""
    left = {n for n in topology.existing_namespaces() if n.startswith(prefix)}
    topology.down(topology.Testbed(prefix))
    return left


@pytest.mark.skipif(not shutil.which("iperf3"), reason="needs iperf3")
def test_sigterm_while_a_finished_experiment_cleans_up_lets_it_take_the_testbed_down(
        prefix: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESTBED_RUN_ROOT", str(tmp_path / "run"))
    monkeypatch.setenv("TESTBED_PREFIX", prefix)
    try:
        child = subprocess.run([sys.executable, "-c", RUN_WITH_SIGTERM_IN_CLEANUP, str(TESTBED),
                                str(tmp_path / "results")], capture_output=True, text=True, timeout=120)
    finally:
        left = _left(prefix)
    assert left == set(), f"the cleanup was cut short:\n{child.stderr}"
    assert not topology.Testbed(prefix).run_dir.exists()
    assert child.returncode == 128 + signal.SIGTERM, child.stderr


@pytest.mark.skipif(not os.access(backend.dp_binary(), os.X_OK) or not wlan.available(),
                    reason="needs dataplane/build/adwiser-dp and testbed/emu/wlan-emu")
def test_sigterm_during_the_demos_teardown_lets_it_finish(prefix: str, tmp_path: Path,
                                                          demo_env: tuple[Path, Path]) -> None:
    _, dist = demo_env
    run_dir = topology.Testbed(prefix).run_dir
    try:
        child = subprocess.run([sys.executable, "-c", DEMO_WITH_SIGTERM_IN_TEARDOWN, str(TESTBED),
                                str(tmp_path / "out"), str(dist)], capture_output=True, text=True, timeout=180)
        pidfiles = sorted(p.name for p in run_dir.rglob("*.pid")) if run_dir.exists() else []
    finally:
        left = _left(prefix)
    assert (left, pidfiles) == (set(), []), f"the teardown was cut short:\n{child.stderr}"
    assert child.returncode == 128 + signal.SIGTERM, child.stderr


def test_sigterm_during_topology_down_lets_it_finish(testbed: topology.Testbed) -> None:
    child = subprocess.run([sys.executable, "-c", DOWN_WITH_SIGTERM, str(TESTBED), testbed.prefix],
                           capture_output=True, text=True, timeout=60)
    assert _left(testbed.prefix) == set(), f"down was cut short:\n{child.stderr}"
    assert child.returncode == 128 + signal.SIGTERM, child.stderr
