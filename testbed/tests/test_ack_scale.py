"""The ACK-burst estimate's scale per number of receiving STAs (runner/ack_scale.py; issue 9, 001 §4.2):
the dataplane's telemetry and the emulator's PPDUs matched per Δ slot, the fit per STA count, the table the
dataplane loads, and which results it is fitted on. No network."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from runner import ack_scale

T0_NS = 1_700_000_000_000_000_000  # the emulator's t0, unix ns (a slot boundary: 0.5 s divides it)


def _frame(unix: float, pair: str, bursts: int, raw: float, stas: int, scale: float) -> tuple[float, dict[str, str]]:
    return unix, {"pair": pair, "agg_bursts": str(bursts), "agg_raw": str(raw), "agg_stas": str(stas),
                  "agg_est": str(raw * scale)}


def _ppdus(pair: str, start_s: float, n: int, mpdus: int) -> list[dict[str, object]]:
    return [{"pair": pair, "start_us": int((start_s + i * 0.01) * 1e6), "mpdus": mpdus} for i in range(n)]


def test_a_slot_pairs_the_raw_estimate_weighted_by_bursts_with_the_mean_ampdu_of_the_same_half_second():
    t = T0_NS / 1e9
    entries = [_frame(t + 0.05, "ap1/sta1", 10, 40.0, 1, 0.5), _frame(t + 0.30, "ap1/sta1", 30, 20.0, 1, 0.5),
               _frame(t + 0.70, "ap1/sta1", 12, 30.0, 1, 0.5)]
    ppdus = _ppdus("ap1/sta1", 0.0, 20, 12) + _ppdus("ap1/sta1", 0.5, 20, 16)
    rows = ack_scale.slot_rows(entries, ppdus, T0_NS)
    assert [(r["raw"], r["est"], r["truth"], r["bursts"], r["ppdus"]) for r in rows] == [
        (25.0, 12.5, 12.0, 40, 20), (30.0, 15.0, 16.0, 12, 20)]


def test_a_slot_with_too_few_bursts_or_ppdus_is_left_out():
    t = T0_NS / 1e9
    entries = [_frame(t + 0.1, "ap1/sta1", 9, 40.0, 1, 1.0), _frame(t + 0.6, "ap1/sta1", 20, 40.0, 1, 1.0)]
    ppdus = _ppdus("ap1/sta1", 0.0, 20, 12) + _ppdus("ap1/sta1", 0.5, 9, 12)
    assert ack_scale.slot_rows(entries, ppdus, T0_NS) == []


def test_the_slots_sta_count_is_the_one_most_of_its_bursts_were_reported_with():
    t = T0_NS / 1e9
    entries = [_frame(t + 0.1, "ap1/sta1", 5, 10.0, 1, 1.0), _frame(t + 0.2, "ap1/sta1", 20, 10.0, 3, 1.0)]
    rows = ack_scale.slot_rows(entries, _ppdus("ap1/sta1", 0.0, 20, 10), T0_NS)
    assert [r["stas"] for r in rows] == [3]


def test_fit_is_the_geometric_mean_of_truth_over_raw_per_sta_count():
    rows = [{"stas": 1, "raw": 40.0, "truth": 20.0, "run": "a"}, {"stas": 1, "raw": 10.0, "truth": 8.0, "run": "b"},
            {"stas": 5, "raw": 20.0, "truth": 21.0, "run": "c"}]
    fitted = ack_scale.fit(rows, min_slots=1)
    assert fitted[1]["scale"] == pytest.approx(math.sqrt(0.5 * 0.8))
    assert fitted[1]["runs"] == ["a", "b"]
    assert fitted[5]["scale"] == pytest.approx(1.05)
    assert list(ack_scale.fit(rows, min_slots=2)) == [1]  # 5 STAs in one slot only: left to the interpolation


def test_table_interpolates_the_sta_counts_without_slots_of_their_own():
    fitted = {1: {"scale": 0.5}, 2: {"scale": 0.8}, 5: {"scale": 1.1}}
    assert ack_scale.table(fitted) == [0.5, 0.8, 0.9, 1.0, 1.1]
    with pytest.raises(ValueError):
        ack_scale.table({})


def _result(path: Path, scenario: str, mu_source: str, slots: list[dict[str, object]]) -> None:
    doc = {"scenario": scenario, "mu_source": mu_source,
           "runs": {"aggtarget": {"pairs": [{"ap": "ap1", "sta": "sta1", "ack_slots": slots}]}}}
    path.write_text(json.dumps(doc))


def test_the_fit_takes_the_ground_truth_runs_and_leaves_the_ack_runs_to_test_it(tmp_path: Path):
    slot = {"pair": "ap1/sta1", "slot": 1, "stas": 1, "raw": 40.0, "truth": 20.0}
    _result(tmp_path / "aggtarget-1sta.json", "aggtarget-1sta", "sta", [slot])
    _result(tmp_path / "aggtarget-1sta-ack.json", "aggtarget-1sta-ack", "ack", [dict(slot, truth=40.0)])
    rows, used = ack_scale.training_rows(tmp_path)
    assert used == ["aggtarget-1sta"]
    assert [r["truth"] for r in rows] == [20.0]


def test_fit_writes_the_table_into_the_model_and_keeps_its_coefficients(tmp_path: Path):
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"version": 4, "m": 1, "intercept": -2.0, "coef": [0.001, 0.0], "scale": 0.56}))
    _result(tmp_path / "aggtarget-2sta.json", "aggtarget-2sta", "sta",
            [{"pair": "ap1/sta1", "slot": i, "stas": 2, "raw": 20.0, "truth": 16.0}
             for i in range(ack_scale.MIN_SLOTS)])
    assert ack_scale.main(["fit", "--results", str(tmp_path), "--model", str(model)]) == 0
    m = json.loads(model.read_text())
    assert m["scale_by_stas"] == [0.8, 0.8]  # one STA has no slots: it takes the nearest fitted count
    assert m["version"] == ack_scale.MODEL_VERSION and m["coef"] == [0.001, 0.0] and m["scale"] == 0.56
    assert m["model"] == ack_scale.MODEL_KIND  # written before the member existed: labelled as what it was fitted as
    assert m["scale_by_stas_training"]["per_stas"]["2"]["slots"] == ack_scale.MIN_SLOTS


def test_the_report_names_the_ratio_per_pair_and_whether_the_loop_ran_on_the_estimate():
    from runner import report_aggtarget

    pair = {"sta": "sta1", "ack_estimate": {"slots": 30, "stas": [5], "truth_over_estimate": 1.04,
                                            "truth_over_raw": 1.08}}
    idle = {"sta": "sta2", "ack_estimate": {"slots": 0}}
    doc = {"mu_source": "ack", "runs": {"aggtarget": {"pairs": [pair, idle], "ack_model": {"version": 5}}}}
    line = report_aggtarget.ack_estimate_line(doc)
    assert line is not None and "the loop ran on it, model v5; true / estimated" in line
    assert "sta1 1.04 (5 STAs, 30 slots)" in line and "sta2" not in line
    on_truth = report_aggtarget.ack_estimate_line({"mu_source": "sta", "runs": {"aggtarget": {"pairs": [pair]}}})
    assert on_truth is not None and "true / raw" in on_truth and "sta1 1.08" in on_truth
    assert report_aggtarget.ack_estimate_line({"runs": {"cubic": {"pairs": [pair]}}}) is None


def test_the_estimator_section_lists_the_shipped_scale_per_sta_count(tmp_path: Path):
    from runner import report_ack_burst

    model = tmp_path / "model.json"
    model.write_text(json.dumps({"version": 5, "scale_by_stas": [0.55, 0.75, 0.9],
                                 "scale_by_stas_training": {"scenarios": ["aggtarget-1sta"],
                                                            "per_stas": {"1": {"slots": 40}, "3": {"slots": 50}}}}))
    line = " ".join(report_ack_burst.scale_table_lines(model))
    assert "version 5" in line and "1 STA 0.55 (40 slots)" in line and "2 STAs 0.75 (interpolated)" in line
    model.write_text(json.dumps({"version": 6, "scale_by_stas": [0.55, 0.9], "gap_by_stas_us": [0, 1500]}))
    line = " ".join(report_ack_burst.scale_table_lines(model))
    assert "least gap" in line and "2 STAs 0.9 (interpolated) at 1500 µs" in line
    model.write_text(json.dumps({"version": 4, "scale": 0.56}))
    assert report_ack_burst.scale_table_lines(model) == []


def test_fit_refuses_a_model_whose_scale_belongs_to_its_least_gaps(tmp_path: Path):
    model = tmp_path / "model.json"
    model.write_text(json.dumps({"version": 6, "scale_by_stas": [0.5, 0.8], "gap_by_stas_us": [0, 1500]}))
    _result(tmp_path / "aggtarget-2sta.json", "aggtarget-2sta", "sta",
            [{"pair": "ap1/sta1", "slot": i, "stas": 2, "raw": 20.0, "truth": 16.0}
             for i in range(ack_scale.MIN_SLOTS)])
    assert ack_scale.main(["fit", "--results", str(tmp_path), "--model", str(model)]) == 1
    assert json.loads(model.read_text())["scale_by_stas"] == [0.5, 0.8]


def test_fit_refuses_the_sta_frame_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    # the same format as the ACK-burst model: only its "model" member says it is the STA agent's classifier
    model = tmp_path / "model.json"
    text = json.dumps({"model": "adwiser-sta-frame-classifier", "version": 1, "m": 1, "intercept": -2.0,
                       "coef": [0.001, 0.0], "scale": 1.0})
    model.write_text(text)
    _result(tmp_path / "aggtarget-2sta.json", "aggtarget-2sta", "sta",
            [{"pair": "ap1/sta1", "slot": i, "stas": 2, "raw": 20.0, "truth": 16.0}
             for i in range(ack_scale.MIN_SLOTS)])
    assert ack_scale.main(["fit", "--results", str(tmp_path), "--model", str(model)]) == 1
    assert model.read_text() == text
    err = capsys.readouterr().err
    assert "model: expected 'adwiser-ack-burst-classifier', got 'adwiser-sta-frame-classifier'" in err


def test_the_shipped_model_says_it_is_the_ack_burst_model():
    # adwiser-dp --ack-model refuses a file of another kind (dataplane/dp/ack_model_json.c checks the same names)
    assert json.loads(ack_scale.MODEL.read_text())["model"] == ack_scale.MODEL_KIND == "adwiser-ack-burst-classifier"
