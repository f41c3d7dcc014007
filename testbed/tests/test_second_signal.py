"""A second Ctrl-C, or a SIGTERM after a Ctrl-C (or the other way round), while
an entry point is stopping what it started must not cut that teardown short.
An experiment given Ctrl-C twice left its six namespaces, wlan-emu, both iperf3
clients and the DPDK runtime directory behind: the second KeyboardInterrupt
came out of the 10 s wait for adwiser-dp in its `finally`."""
from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TESTBED = Path(__file__).resolve().parents[1]

# An entry point in miniature: it installs the runner's handlers, runs until
# interrupted, and its `finally` takes 1.5 s (stopping processes, deleting
# namespaces) and then says it finished.
ENTRY_POINT = """
import sys, time
sys.path.insert(0, sys.argv[1])
from runner import signals
signals.exit_on_signals()
try:
    print("running", flush=True)
    time.sleep(60)
finally:
    print("stopping", flush=True)
    time.sleep(1.5)
    print("stopped", flush=True)
"""


def _read_line(child: subprocess.Popen[str], expected: str) -> None:
    assert child.stdout is not None
    line = child.stdout.readline().strip()
    assert line == expected, f"expected {expected!r} from the entry point, got {line!r}"


@pytest.mark.parametrize("first,second", [(signal.SIGINT, signal.SIGINT), (signal.SIGINT, signal.SIGTERM),
                                          (signal.SIGTERM, signal.SIGINT), (signal.SIGTERM, signal.SIGTERM)],
                         ids=["int-int", "int-term", "term-int", "term-term"])
def test_a_second_signal_during_the_teardown_lets_it_finish(first: signal.Signals, second: signal.Signals,
                                                          default_sigint) -> None:
    child = subprocess.Popen([sys.executable, "-c", ENTRY_POINT, str(TESTBED)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    try:
        _read_line(child, "running")
        child.send_signal(first)
        _read_line(child, "stopping")
        time.sleep(0.3)
        child.send_signal(second)
        out, err = child.communicate(timeout=20)
        assert out.strip() == "stopped", f"the teardown was cut short:\n{err}"
        # KeyboardInterrupt ends Python by SIGINT once the teardown is done; SIGTERM by SystemExit(143)
        assert child.returncode == (-signal.SIGINT if first == signal.SIGINT else 128 + signal.SIGTERM)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
