"""The report's "same run" column (overflow breakdown, batch starts) says whether the figures were derived from
the run that results/<scenario>.json reports now, not only at the time they were derived: a scenario re-run
since (new JSON, breakdown not redone) must read "no"."""
from __future__ import annotations

import json
from pathlib import Path

from runner import batch_starts, report_batch_starts, report_overflow

PPDU = {"src": "ap1", "dst": "sta1", "start_us": 1000, "duration_us": 300, "mpdus": 1, "enq_us": [1000],
        "bytes": 1500, "phy_mbps": 130.0}


def _scenario_json(results: Path, name: str, t0: int) -> None:
    (results / f"{name}.json").write_text(json.dumps({
        "scenario": name, "slice_ms": 20, "utility_bound": 7.6, "wlan_emu": {"t0_unix_ns": t0},
        "pairs": [{"ap": "ap1", "sta": "sta1", "direction": "downlink", "throughput_mbps": 40.0}]}))


def _overflow_doc(results: Path, t0: int) -> None:
    (results / "overflow-breakdown.json").write_text(json.dumps({"downlink-20ms": {
        "t0_unix_ns": t0, "matches_committed_json": True, "pairs": {"ap1/sta1": {"overflow": 0.01}}}}))


def test_overflow_breakdown_of_an_older_run_is_not_the_same_run(tmp_path: Path) -> None:
    _overflow_doc(tmp_path, t0=5)
    _scenario_json(tmp_path, "downlink-20ms", t0=5)
    assert "| downlink-20ms | ap1/sta1 | 1.0 |" in "\n".join(report_overflow.section_lines(tmp_path))
    assert "| yes |" in "\n".join(report_overflow.section_lines(tmp_path))
    _scenario_json(tmp_path, "downlink-20ms", t0=9)  # re-run after the breakdown was made
    rows = [ln for ln in report_overflow.section_lines(tmp_path) if ln.startswith("| downlink-20ms | ap1/sta1 | 1.0")]
    assert rows and rows[0].endswith("| no |")


def test_batch_starts_of_an_older_run_is_not_the_same_run(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "downlink-20ms"
    run.mkdir(parents=True)
    (run / "groundtruth.jsonl").write_text(json.dumps(PPDU) + "\n")
    (run / "wlan-emu.stats.json").write_text(json.dumps({"t0_unix_ns": 5}))
    _scenario_json(tmp_path, "downlink-20ms", t0=5)
    assert batch_starts.main(["--results", str(tmp_path), "--scenarios", "downlink-20ms"]) == 0
    assert report_batch_starts.section_lines(tmp_path)[-2].endswith("| yes |")
    _scenario_json(tmp_path, "downlink-20ms", t0=9)  # re-run after batch-starts.json was written
    assert report_batch_starts.section_lines(tmp_path)[-2].endswith("| no |")
