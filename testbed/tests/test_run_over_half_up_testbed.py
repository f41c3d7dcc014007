"""An experiment takes down the testbed it brought up, also when it found one
half up and rebuilt it. With the state file there but `<P>sta2` deleted,
`runner run together` decided it had not created the testbed (the state file
existed), `up` rebuilt all six namespaces, and the run left them up; the
aggregation-target runs' 2AP-2STA lab decided the same way. Over a complete
testbed that was up before (`up`), the run leaves it up as before."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from runner import aggtarget, experiment, scenarios, topology
from runner.shell import run

needs_iperf3 = pytest.mark.skipif(not shutil.which("iperf3"), reason="needs iperf3")


def _ours(tb: topology.Testbed) -> set[str]:
    return {n for n in topology.existing_namespaces() if n.startswith(tb.prefix)}


@needs_iperf3
def test_a_run_that_rebuilt_a_half_up_testbed_takes_it_down(testbed: topology.Testbed, tmp_path: Path) -> None:
    tb = testbed
    run(["ip", "netns", "del", tb.ns("sta2")])
    experiment.run(scenarios.get("together"), 1.0, prefix=tb.prefix, results_dir=tmp_path / "results")
    assert _ours(tb) == set(), "the run left up the testbed it rebuilt"
    assert not tb.state_file.exists()


@needs_iperf3
def test_a_run_over_a_testbed_that_was_up_leaves_it_up(testbed: topology.Testbed, tmp_path: Path) -> None:
    tb = testbed
    experiment.run(scenarios.get("together"), 1.0, prefix=tb.prefix, results_dir=tmp_path / "results")
    assert _ours(tb) == set(tb.namespaces)
    assert tb.state_file.exists()


def test_the_aggtarget_lab_takes_down_a_half_up_testbed_it_rebuilt(testbed: topology.Testbed) -> None:
    tb = testbed
    run(["ip", "netns", "del", tb.ns("sta2")])
    lab = aggtarget._PairLab(tb)
    topology.up(tb)   # what its prepare() does first
    lab.close()
    assert _ours(tb) == set(), "the lab left up the testbed it rebuilt"
