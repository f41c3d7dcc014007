"""The figures drawn from kept run logs (like 004 Figs 8, 10 and 11) are of the run the scenario's JSON reports:
logs of another run (the scenario re-run, or its logs replaced, since) give no figure beside tables of this one."""
from __future__ import annotations

import json
from pathlib import Path

from runner import report


def _scenario(results: Path, name: str, json_t0: int, logs_t0: int) -> dict:
    run = results / "runs" / name
    run.mkdir(parents=True)
    (run / "wlan-emu.stats.json").write_text(json.dumps({"t0_unix_ns": logs_t0}))
    (run / "groundtruth.jsonl").write_text("".join(
        json.dumps({"src": ap, "dst": sta, "mpdus": 18, "phy_mbps": 130.0}) + "\n"
        for ap, sta in (("ap1", "sta1"), ("ap2", "sta2")) for _ in range(5)))
    (run / "adwiser-dp.telemetry.jsonl").write_text("".join(
        json.dumps({"type": "pair", "ts_ns": k * 40_000_000, "pair": pair, "released_pkts": 60, "tput_mbps": 40.0})
        + "\n" for k in range(20) for pair in ("ap1/sta1", "ap2/sta2")))
    doc = {"scenario": name, "wlan_emu": {"t0_unix_ns": json_t0},
           "pairs": [{"ap": f"ap{i}", "sta": f"sta{i}", "direction": "downlink", "throughput_mbps": 40.0}
                     for i in (1, 2)]}
    (results / f"{name}.json").write_text(json.dumps(doc))
    return doc


def test_cdfs_and_fig11_are_drawn_from_the_logs_of_the_run_in_the_json(tmp_path: Path) -> None:
    docs = {"downlink-20ms": _scenario(tmp_path, "downlink-20ms", json_t0=5, logs_t0=5)}
    assert report.plot_cdfs(docs, ["downlink-20ms"], tmp_path, tmp_path / "cdf.png") is not None
    assert report.plot_slicing_timeseries(tmp_path, "downlink-20ms", tmp_path / "fig11.png") is not None


def test_logs_of_another_run_give_no_figure(tmp_path: Path) -> None:
    docs = {"downlink-20ms": _scenario(tmp_path, "downlink-20ms", json_t0=5, logs_t0=9)}
    assert report.plot_cdfs(docs, ["downlink-20ms"], tmp_path, tmp_path / "cdf.png") is None
    assert report.plot_slicing_timeseries(tmp_path, "downlink-20ms", tmp_path / "fig11.png") is None
