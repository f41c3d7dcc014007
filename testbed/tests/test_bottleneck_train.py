"""The bottleneck classifier's offline side (issue 9; 001 §5) on synthetic loop histories: the labels by
which link is the narrower, the per-step rule for the start-up ramp, and a fit whose file the controller
loads and which separates the two cases. No network."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from runner import bottleneck_train as bt

sys.path.insert(0, str(bt.REPO / "controller"))
from adwiser_controller.aggregation import bottleneck as bn  # noqa: E402


def _run(label: str, backhaul: float | None, ratio: float, rate_bps: float, n: int = 30, seed: int = 0,
         ramp: int = 0) -> dict[str, Any]:
    """A run's loop history: `ramp` steps paced at a tenth of rate_bps first, then paced at rate_bps."""
    rng = np.random.default_rng(seed)
    loop = []
    for k in range(n):
        pace = rate_bps * (0.1 if k < ramp else 1.0)
        carried = min(pace, backhaul * 1e6) if backhaul else pace
        loop.append({"ts": float(k) / 2, "pace_bps": pace, "delivered_bps": carried,
                     "agg_ratio": max(ratio + float(rng.normal(0, 0.05)), 0.01), "loss": 0.0,
                     "p_backhaul": None})
    return {"label": label, "backhaul_mbit": backhaul, "t_bar_ms": 5.0, "throughput_mbps": 150.0 if not backhaul
            else min(backhaul * 0.93, 150.0), "loop": loop}


def test_run_class_follows_the_narrower_link() -> None:
    assert bt.run_class({"backhaul_mbit": None}, 150.0, 178.0) == "wlan"
    assert bt.run_class({"backhaul_mbit": 300.0}, 150.0, 178.0) == "wlan"
    assert bt.run_class({"backhaul_mbit": 100.0}, 150.0, 178.0) == "backhaul"
    assert bt.run_class({"backhaul_mbit": 150.0}, 150.0, 178.0) == "ambiguous"


def test_ramp_steps_paced_below_the_backhaul_are_not_backhaul() -> None:
    steps = bt.steps(_run("r", 100.0, 0.15, 140e6, n=10, ramp=4), "backhaul")
    # row k measures the slot paced at row k-1's rate: row 0 has none (left out), rows 1-4 measure slots
    # paced at 14 Mbit/s (the pacer is the narrower link), rows 5-9 slots at 140 Mbit/s > 1.1 x 100
    assert [s["y"] for s in steps] == [0, 0, 0, 0, 1, 1, 1, 1, 1]
    assert all(s["pacer_limited"] for s in steps[:4]) and not any(s["pacer_limited"] for s in steps[5:])


def test_fit_writes_a_model_the_controller_loads_and_that_separates_the_cases(tmp_path: Path) -> None:
    runs = [_run("none-a", None, 1.0, 150e6, seed=1), _run("none-b", None, 0.9, 150e6, seed=2),
            _run("100-a", 100.0, 0.15, 140e6, seed=3), _run("60-a", 60.0, 0.1, 140e6, seed=4)]
    model_path, result_path = tmp_path / "model.json", tmp_path / "result.json"
    doc = bt.train(runs, model_path, result_path)
    m = bn.load_model(model_path)
    assert m.version == bt.MODEL_VERSION and m.coef_agg_ratio < 0
    assert bn.p_backhaul(0.12, 0.0, m) > 0.5 > bn.p_backhaul(1.0, 0.0, m)
    assert doc["overall"]["model"]["accuracy"] > 0.9
    assert set(doc["by_backhaul_mbit"]) == {"none", "100.0", "60.0"}
    assert json.loads(result_path.read_text())["model_version"] == bt.MODEL_VERSION


def test_report_section_tables_the_held_out_figures_by_backhaul_rate(tmp_path: Path) -> None:
    from runner import report_bottleneck

    runs = [_run("none-a", None, 1.0, 150e6, seed=1), _run("none-b", None, 0.9, 150e6, seed=2),
            _run("100-a", 100.0, 0.15, 140e6, seed=3), _run("60-a", 60.0, 0.1, 140e6, seed=4)]
    bt.train(runs, tmp_path / "model.json", tmp_path / "bottleneck-classifier.json")
    text = "\n".join(report_bottleneck.section_lines(tmp_path))
    assert "| 60.0 |" in text and "| 100.0 |" in text and "| none |" in text
    assert (tmp_path / "bottleneck_classifier.png").stat().st_size > 0
    assert "not measured yet" in "\n".join(report_bottleneck.section_lines(tmp_path / "absent"))
