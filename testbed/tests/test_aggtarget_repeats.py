"""The goals of an aggregation-target scenario over several controlled runs (runner/aggtarget_repeats.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from runner import aggtarget, aggtarget_repeats


def _goals(queue_ms: float, frac: float, within: bool, recovery: float | None) -> dict:
    return {"ap1/sta1": {"delay_goal_applies": True, "second_half_ap_queue_delay_ms": queue_ms,
                         "second_half_ap_queue_delay_within_20pct": within, "throughput_frac_of_straight": frac,
                         "ap_queue_recovery_s": recovery},
            "total": {"throughput_frac_of_straight": frac, "throughput_ge_85pct": frac >= 0.85},
            "airtime_aggtarget": {"shares": [1.0], "second_half_max_rel_dev": 0.0}}


def test_each_goal_is_summarised_by_median_and_range_and_yes_no_goals_by_runs_met():
    s = aggtarget_repeats.summarize([_goals(4.5, 0.92, True, 1.2), _goals(8.0, 0.94, False, None),
                                     _goals(5.5, 0.80, True, 2.0)])
    pair = s["ap1/sta1"]
    assert pair["second_half_ap_queue_delay_ms"] == {"median": 5.5, "min": 4.5, "max": 8.0, "n": 3}
    assert pair["second_half_ap_queue_delay_within_20pct"] == {"met": 2, "n": 3}
    # a run that never recovered has no recovery time: the figure is over the two that did
    assert pair["ap_queue_recovery_s"] == {"median": 1.6, "min": 1.2, "max": 2.0, "n": 2}
    assert s["total"]["throughput_ge_85pct"] == {"met": 2, "n": 3}
    assert "shares" not in s["airtime_aggtarget"]


def test_the_report_line_gives_the_spread_and_says_how_many_runs_met_the_goal():
    runs = [_goals(4.5, 0.92, True, 1.2), _goals(8.0, 0.94, False, None)]
    doc = {"repeats": [{"goals": g} for g in runs], "goals_over_repeats": aggtarget_repeats.summarize(runs)}
    line = aggtarget_repeats.report_line(doc)
    assert "over 2 controlled runs" in line
    assert "AP queue 2nd half 6.25 [4.50-8.00] ms" in line
    assert "within 20 % of T̄ in 1 of 2" in line and "recovered in 1 of 2" in line
    assert "total throughput 0.930 [0.920-0.940] of straight (>= 85 % in 2 of 2)" in line
    assert "over 2 controlled runs against one straight run," in line
    assert aggtarget_repeats.report_line({"goals": runs[0]}) is None


def test_the_report_line_shows_a_fraction_just_under_85_percent_to_the_digits_that_say_so():
    runs = [_goals(4.5, 0.8499, True, 1.2), _goals(5.0, 0.90, True, 1.0), _goals(5.5, 0.92, True, 1.1)]
    doc = {"repeats": [{"goals": g} for g in runs], "goals_over_repeats": aggtarget_repeats.summarize(runs)}
    line = aggtarget_repeats.report_line(doc)
    # to three digits the least would read 0.850, and ">= 85 % in 2 of 3" would not be what the range says
    assert "total throughput 0.9000 [0.8499-0.9200] of straight (>= 85 % in 2 of 3)" in line
    assert "throughput 0.9000 [0.8499-0.9200] of straight," in line


def test_the_report_line_says_each_run_had_its_own_straight_run_and_their_spread():
    runs = [_goals(4.5, 0.92, True, 1.2), _goals(8.0, 0.94, False, None)]
    doc = {"repeats": [{"goals": g, "straight_started_unix": t, "straight_mbps": m}
                       for g, t, m in zip(runs, (1.0, 3.0), (252.0, 270.0))],
           "goals_over_repeats": aggtarget_repeats.summarize(runs)}
    line = aggtarget_repeats.report_line(doc)
    assert "over 2 controlled runs, each against the straight run just before it (261.0 [252.0-270.0] Mbit/s)," in line


def test_the_delay_goal_is_counted_over_the_runs_it_applies_to():
    # N-bar bound in the third run (delay_goal_applies False): its AP queue within 20 % of T-bar is no goal met,
    # and the run is not one the goal was judged in (aggtarget-5sta-mixed-mcs-5ms: it applied in 2 of 3 runs).
    runs = [_goals(1.6, 0.92, True, None), _goals(2.5, 0.94, False, None), _goals(1.5, 0.90, True, None)]
    runs[2]["ap1/sta1"]["delay_goal_applies"] = False
    doc = {"repeats": [{"goals": g} for g in runs], "goals_over_repeats": aggtarget_repeats.summarize(runs)}
    line = aggtarget_repeats.report_line(doc)
    assert "within 20 % of T̄ in 1 of the 2 runs it applies to" in line
    assert "in 2 of 3" not in line


def test_a_step_runs_line_judges_the_delay_on_the_ap_queue_settled_after_the_step():
    runs = [_goals(6.1, 0.87, False, 1.3), _goals(4.8, 0.90, False, 1.8)]
    for g, settled in zip(runs, (1.54, 1.9)):
        g["ap1/sta1"].update(ap_queue_settled_ms=settled, ap_queue_settled_within_20pct=settled <= 1.8,
                             ap_queue_recovered_within_3s=g["ap1/sta1"]["ap_queue_recovery_s"] <= 3.0)
    runs[1]["ap1/sta1"].update(ap_queue_recovery_s=3.2, ap_queue_recovered_within_3s=False)
    doc = {"repeats": [{"goals": g} for g in runs], "goals_over_repeats": aggtarget_repeats.summarize(runs)}
    line = aggtarget_repeats.report_line(doc)
    assert "AP queue from 3 s after the step 1.72 [1.54-1.90] ms" in line
    assert "AP queue 2nd half 5.45 [4.80-6.10] ms (the step's transient included)" in line
    assert "settled within 20 % of T̄ in 1 of 2" in line
    assert "AP queue recovery 2.2 [1.3-3.2] s (recovered in 2 of 2, within 3 s in 1)" in line


def test_a_run_that_never_recovered_counts_as_the_slowest_in_the_recovery_median():
    # aggtarget-hidden-step: 0.3 and 3.2 s, and one run whose AP queue never came back: the median is 3.2 s, not
    # the 1.8 s of the two that recovered.
    runs = [_goals(3.5, 0.96, False, r) for r in (0.3, None, 3.2)]
    for g in runs:
        t = g["ap1/sta1"]["ap_queue_recovery_s"]
        g["ap1/sta1"]["ap_queue_recovered_within_3s"] = t is not None and t <= 3.0
    doc = {"repeats": [{"goals": g} for g in runs], "goals_over_repeats": aggtarget_repeats.summarize(runs)}
    line = aggtarget_repeats.report_line(doc)
    assert ("AP queue recovery 3.2 [0.3-∞] s (recovered in 2 of 3, within 3 s in 1, a run that never recovered "
            "counted as ∞)") in line


def test_repeats_out_of_range_are_refused_before_anything_runs(tmp_path):
    with pytest.raises(ValueError, match="repeats 0"):
        aggtarget.run("aggtarget-1sta", 20.0, repeats=0, results_dir=tmp_path)
    assert not (tmp_path / "runs").exists()


class NoLab:
    """The testbed run() would bring up: these tests replace one_run, so nothing is brought up."""

    def __init__(self, *a):
        pass

    def close(self):
        pass


def _fake_runs(monkeypatch, straight_mbps):
    """one_run replaced: the straight runs give straight_mbps in turn, the controlled ones 150 + their index in
    the batch; returns the list of (mode, ceilings) one_run was called with."""
    calls = []
    straight = iter(straight_mbps)

    def fake_run(sc, mode, duration_s, lab, out, ceilings=None, capture_acks=False, capture_sta=False):
        calls.append((mode, ceilings))
        rate = next(straight) if mode == "cubic" else 150.0 + len(calls)
        return {"mode": mode, "started_unix": float(len(calls)),
                "pairs": [{"ap": "ap1", "sta": "sta1", "throughput_mbps": rate, "mean_delay_ms": 5.0}]}

    monkeypatch.setattr(aggtarget, "one_run", fake_run)
    monkeypatch.setattr(aggtarget, "_PairLab", NoLab)
    monkeypatch.setattr(aggtarget.topology, "Testbed", lambda prefix: None)
    monkeypatch.setattr(aggtarget, "scenario_air", lambda sc, out: aggtarget.VHT_AIR)
    monkeypatch.setattr(aggtarget, "scenario_ceilings", lambda sc, straight: {"from": straight.get("started_unix")})
    return calls


def test_each_controlled_run_is_judged_against_the_straight_run_made_just_before_it(tmp_path, monkeypatch):
    calls = _fake_runs(monkeypatch, [180.0, 200.0, 160.0])
    doc = aggtarget.run("aggtarget-1sta", 20.0, ("cubic", "aggtarget"), results_dir=tmp_path, repeats=3)
    assert [m for m, _ in calls] == ["cubic", "aggtarget"] * 3
    assert [r["started_unix"] for r in doc["repeats"]] == [2.0, 4.0, 6.0]
    assert [r["straight_started_unix"] for r in doc["repeats"]] == [1.0, 3.0, 5.0]
    assert [r["straight_mbps"] for r in doc["repeats"]] == [180.0, 200.0, 160.0]
    # 152/180, 154/200, 156/160: one verdict per pair of runs, not three against one straight sample
    per_run = [r["goals"]["total"]["throughput_frac_of_straight"] for r in doc["repeats"]]
    assert per_run == [152 / 180, 154 / 200, 156 / 160]
    assert doc["goals_over_repeats"]["total"]["throughput_ge_85pct"] == {"met": 1, "n": 3}
    assert doc["runs"]["aggtarget"]["started_unix"] == 6.0     # the last runs, not chosen ones
    assert doc["runs"]["cubic"]["started_unix"] == 5.0


def test_every_controlled_run_of_a_batch_gets_the_ceilings_of_its_first_straight_run(tmp_path, monkeypatch):
    calls = _fake_runs(monkeypatch, [180.0, 200.0])
    aggtarget.run("aggtarget-1sta", 20.0, ("cubic", "aggtarget"), results_dir=tmp_path, repeats=2)
    assert [c for m, c in calls if m == "aggtarget"] == [{"from": 1.0}, {"from": 1.0}]


def test_controlled_runs_alone_are_judged_against_the_kept_straight_run(tmp_path, monkeypatch):
    calls = _fake_runs(monkeypatch, [180.0])
    aggtarget.run("aggtarget-1sta", 20.0, ("cubic", "aggtarget"), results_dir=tmp_path, repeats=1)
    calls.clear()
    doc = aggtarget.run("aggtarget-1sta", 20.0, ("aggtarget",), results_dir=tmp_path, repeats=2)
    assert [m for m, _ in calls] == ["aggtarget", "aggtarget"]
    assert [r["straight_started_unix"] for r in doc["repeats"]] == [1.0, 1.0]
    assert [r["goals"]["total"]["throughput_frac_of_straight"] for r in doc["repeats"]] == [151 / 180, 152 / 180]


def test_a_run_with_its_own_air_config_writes_its_result_to_a_relative_results_directory(tmp_path, monkeypatch):
    # aggtarget-2sta-mixed-mcs writes its air config into its run directory; naming it relative to the repository
    # raised ValueError for a --results directory given as a relative path, after the runs had been made.
    def fake_run(sc, mode, duration_s, lab, out, ceilings=None, capture_acks=False, capture_sta=False):
        return {"mode": mode, "started_unix": 1.0,
                "pairs": [{"ap": "ap1", "sta": s, "throughput_mbps": 50.0, "mean_delay_ms": 5.0}
                          for s in ("sta1", "sta2")]}

    monkeypatch.setattr(aggtarget, "one_run", fake_run)
    monkeypatch.setattr(aggtarget, "_MultiLab", NoLab)
    monkeypatch.chdir(tmp_path)
    doc = aggtarget.run("aggtarget-2sta-mixed-mcs", 20.0, ("cubic", "aggtarget"), results_dir=Path("fit"))
    assert doc["air"] == str(tmp_path / "fit" / "runs" / "aggtarget-2sta-mixed-mcs" / "air.json")
    assert (tmp_path / "fit" / "aggtarget-2sta-mixed-mcs.json").exists()
