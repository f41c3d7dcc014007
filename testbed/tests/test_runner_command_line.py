"""`python -m runner`'s command line: a bad value is refused naming its option before anything is brought up,
and what the user asked for reaches the run. No namespace is made here: bringing the testbed up or running a
scenario fails the test."""
from __future__ import annotations

from typing import Any

import pytest

from runner import __main__ as runner_main
from runner import aggtarget, experiment, scenarios, signals, topology


@pytest.fixture(autouse=True)
def nothing_brought_up(monkeypatch: pytest.MonkeyPatch) -> None:
    def brought_up(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the testbed was brought up")

    monkeypatch.setattr(signals, "exit_on_signals", lambda: None)   # pytest's own handlers stay
    monkeypatch.setattr(topology, "up", brought_up)
    monkeypatch.setattr(topology, "is_up", brought_up)
    monkeypatch.setattr(topology, "down", lambda tb: [])


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as e:
        runner_main.main(argv)
    assert e.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("argv,option", [
    (["demo", "--duration", "-1"], "--duration"),
    (["demo", "--duration", "nan"], "--duration"),
    (["run", "together", "--duration", "0"], "--duration"),
    (["run", "together", "--duration", "nan"], "--duration"),
    (["run", "together", "--duration", "7200"], "--duration"),
    (["run", "together", "--repeats", "0"], "--repeats"),
    (["run", "together", "--repeats", "21"], "--repeats"),
])
def test_bad_value_is_refused_naming_the_option_before_anything_is_brought_up(
        argv: list[str], option: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert option in _refused(argv, capsys)


def test_a_nan_duration_is_refused_before_the_testbed_is_touched(tmp_path: Any) -> None:
    # nan <= 0 and nan > 3600 are both false: a NaN passed the range check, and iperf3 got `-t nan`
    with pytest.raises(ValueError, match="duration nan"):
        experiment.run(scenarios.get("together"), float("nan"), prefix="tnan", results_dir=tmp_path)


def test_repeats_reach_an_aggregation_target_run(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: dict[str, Any] = {}

    def run(name: str, duration_s: float, modes: Any = None, **kwargs: Any) -> dict[str, Any]:
        asked.update(kwargs, name=name, duration_s=duration_s)
        raise SystemExit(0)   # nothing to summarise: the run is not made

    monkeypatch.setattr(aggtarget, "run", run)
    with pytest.raises(SystemExit):
        runner_main.main(["run", "aggtarget-1sta", "--duration", "5", "--repeats", "3"])
    assert asked["repeats"] == 3 and asked["duration_s"] == 5.0


def test_a_dataplane_command_an_aggregation_target_run_cannot_use_is_refused_naming_the_option(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(aggtarget, "run", lambda *a, **k: pytest.fail("the aggregation-target run was started"))
    assert "--backend-cmd" in _refused(["run", "aggtarget-1sta", "--backend-cmd", "{dp} --x"], capsys)
