"""A result document (results/<scenario>.json) is written whole or not at all: a run interrupted while it writes
the document leaves the previous one as it was, and no half-written file beside it. The testbed and the runs are
replaced here, so nothing is brought up."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from runner import aggtarget, experiment, processes, scenarios, topology, wlan

PREVIOUS = {"scenario": "previous", "pairs": [{"ap": "ap1", "sta": "sta1", "throughput_mbps": 1.0}]}


def _interrupted_while_writing(monkeypatch: pytest.MonkeyPatch, results_dir: Path) -> None:
    """Ctrl-C halfway through writing any file directly in results_dir."""
    write_text = Path.write_text

    def half_then_interrupt(self: Path, data: str, *args: Any, **kwargs: Any) -> int:
        if self.parent != results_dir:
            return write_text(self, data, *args, **kwargs)
        write_text(self, data[: len(data) // 2], *args, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_text", half_then_interrupt)


def _fake_transfers(tb: Any, s: Any, duration_s: float, cc: str) -> dict[str, dict[str, Any]]:
    return {f"{ap}-{sta}": {"end": {"sum_received": {"bits_per_second": 50e6}}, "intervals": []}
            for ap, sta in scenarios.PAIRS}


def _no_testbed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TESTBED_RUN_ROOT", str(tmp_path / "run"))
    monkeypatch.setattr(topology, "is_up", lambda tb: True)
    monkeypatch.setattr(topology, "up", lambda tb, **kw: {})
    monkeypatch.setattr(topology, "set_congestion_control", lambda tb, cc: None)
    monkeypatch.setattr(topology, "set_modes", lambda tb, **kw: None)
    monkeypatch.setattr(wlan, "start", lambda tb, out: None)
    monkeypatch.setattr(processes, "stop_pidfiles", lambda run_dir: [])
    monkeypatch.setattr(experiment, "_run_transfers", _fake_transfers)
    monkeypatch.setattr(experiment, "build_commit", lambda: "test")


def _left_as_it_was(results_dir: Path, name: str) -> None:
    assert json.loads((results_dir / f"{name}.json").read_text()) == PREVIOUS
    assert sorted(p.name for p in results_dir.iterdir() if p.is_file()) == [f"{name}.json"]


def test_an_experiment_interrupted_while_writing_its_result_leaves_the_previous_one_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    (results_dir / "together.json").write_text(json.dumps(PREVIOUS))
    _no_testbed(monkeypatch, tmp_path)
    assert experiment.run(scenarios.get("together"), 1.0, prefix="tw", results_dir=results_dir)["pairs"]
    _interrupted_while_writing(monkeypatch, results_dir)
    (results_dir / "together.json").write_bytes(json.dumps(PREVIOUS).encode())
    with pytest.raises(KeyboardInterrupt):
        experiment.run(scenarios.get("together"), 1.0, prefix="tw", results_dir=results_dir)
    _left_as_it_was(results_dir, "together")


def test_an_aggregation_target_run_interrupted_while_writing_its_result_leaves_the_previous_one_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    (results_dir / "aggtarget-1sta.json").write_text(json.dumps(PREVIOUS))

    class NoLab:
        def __init__(self, *a: Any) -> None:
            pass

        def close(self) -> None:
            pass

    def one_run(sc: Any, mode: str, *a: Any, **kw: Any) -> dict[str, Any]:
        return {"mode": mode, "started_unix": 1.0,
                "pairs": [{"ap": "ap1", "sta": "sta1", "throughput_mbps": 100.0, "mean_delay_ms": 5.0}]}

    monkeypatch.setattr(aggtarget, "one_run", one_run)
    monkeypatch.setattr(aggtarget, "_PairLab", NoLab)
    monkeypatch.setattr(aggtarget.topology, "Testbed", lambda prefix: None)
    monkeypatch.setattr(aggtarget, "scenario_air", lambda sc, out: aggtarget.VHT_AIR)
    monkeypatch.setattr(aggtarget, "scenario_ceilings", lambda sc, straight: {})
    _interrupted_while_writing(monkeypatch, results_dir)
    with pytest.raises(KeyboardInterrupt):
        aggtarget.run("aggtarget-1sta", 1.0, ("cubic",), results_dir=results_dir)
    _left_as_it_was(results_dir, "aggtarget-1sta")
