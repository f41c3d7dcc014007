"""The experiment runner: a short `together` run through the real topology
writes the issue's JSON; the figures of merit; the scenario registry; a
scenario whose dataplane is not built is skipped before anything starts."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from runner import backend, experiment, groundtruth, report, scenarios, topology, wlan

PAIR_KEYS = {"ap", "sta", "direction", "throughput_mbps", "mean_ampdu", "mean_phy_mbps", "mean_drain_ms"}


@pytest.mark.parametrize("name,direction,reference", [("together", "downlink", "isolated"),
                                                      ("together-uplink", "uplink", "isolated-uplink")])
def test_short_together_run_writes_the_result_document(prefix: str, tmp_path: Path, name: str,
                                                       direction: str, reference: str) -> None:
    import os
    os.environ["TESTBED_RUN_ROOT"] = str(tmp_path / "run")
    results = tmp_path / "results"
    results.mkdir()
    (results / f"{reference}.json").write_text(json.dumps(
        {"scenario": reference, "pairs": [{"throughput_mbps": 80.0}, {"throughput_mbps": 100.0}]}))
    doc = experiment.run(scenarios.get(name), 3.0, prefix=prefix, results_dir=results)

    written = json.loads((results / f"{name}.json").read_text())
    assert written == json.loads(json.dumps(doc))
    assert doc["scenario"] == name and doc["duration_s"] == 3.0 and doc["slice_ms"] is None
    assert [(p["ap"], p["sta"]) for p in doc["pairs"]] == [("ap1", "sta1"), ("ap2", "sta2")]
    for p in doc["pairs"]:
        assert set(p) == PAIR_KEYS
        assert p["direction"] == direction
        assert p["throughput_mbps"] > 0.0
        assert p["mean_drain_ms"] is None  # no dataplane ran
        if wlan.available():  # the air model's figures come from the emulator's stats
            assert p["mean_ampdu"] >= 1.0 and p["mean_phy_mbps"] > 6.0
            assert doc["emulator"] == "testbed/emu/wlan-emu"
        else:
            assert p["mean_ampdu"] is None and doc["emulator"] is None
    thr = [p["throughput_mbps"] for p in doc["pairs"]]
    assert doc["utility"] == pytest.approx(math.log(thr[0]) + math.log(thr[1]), abs=1e-3)
    assert doc["utility_bound"] == pytest.approx(math.log(40.0) + math.log(50.0), abs=1e-3)
    assert all(len(s) >= 4 for s in doc["timeseries"].values())
    # The run brought the topology up itself, so it took it down again.
    assert not any(n.startswith(prefix) for n in topology.existing_namespaces())


def test_utility_is_sum_of_logs_and_bound_uses_half_the_isolated() -> None:
    assert experiment.utility([79.6 / 2, 103.5 / 2]) == pytest.approx(7.63, abs=0.005)
    assert experiment.utility_bound([79.6, 103.5], 2) == pytest.approx(7.63, abs=0.005)
    assert experiment.utility([21.7, 25.7]) == pytest.approx(6.32, abs=0.005)
    assert experiment.utility([0.0, 10.0]) is None
    assert experiment.utility_bound([80.0], 2) is None


def test_uplink_scenarios_take_their_bound_from_isolated_uplink() -> None:
    assert scenarios.get("uplink-20ms").isolated_reference == "isolated-uplink"
    assert scenarios.get("downlink-wan-20ms").isolated_reference == "isolated"


def test_registry_refuses_inconsistent_scenarios() -> None:
    with pytest.raises(ValueError, match="time-slice needs a backend"):
        scenarios.Scenario("x", "downlink", slice_ms=20)
    with pytest.raises(ValueError, match="direction 'sideways'"):
        scenarios.Scenario("y", "sideways")
    with pytest.raises(KeyError, match="unknown scenario 'nope'"):
        scenarios.get("nope")


def test_missing_dataplane_skips_before_touching_the_testbed(prefix: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADWISER_DP", str(tmp_path / "no-such-adwiser-dp"))
    monkeypatch.delenv("ADWISER_DP_CMD", raising=False)
    with pytest.raises(backend.BackendUnavailable, match="no-such-adwiser-dp is not built"):
        experiment.run(scenarios.get("downlink-20ms"), 3.0, prefix=prefix, results_dir=tmp_path)
    assert not any(n.startswith(prefix) for n in topology.existing_namespaces())
    assert not (tmp_path / "downlink-20ms.json").exists()


def test_backend_config_sets_every_slice_to_the_scenario_length(tmp_path: Path) -> None:
    cfg = json.loads(backend.write_config(scenarios.get("downlink-100ms"), tmp_path / "c.json").read_text())
    assert [s["duration_ms"] for s in cfg["slice_map"]["slices"]] == [100, 100]
    assert cfg["topology"]["stas"][0]["mac"] == "02:ad:00:00:01:01"


def test_mean_drain_reads_per_pair_v_and_ignores_other_lines(tmp_path: Path) -> None:
    tel = tmp_path / "t.jsonl"
    tel.write_text('{"pair":"ap1/sta1","v_ms":19.0}\nnot json\n{"pair":"ap1/sta1","v_ms":21.0}\n'
                   '{"frame":1}\n{"pair":"ap2/sta2","v_ms":18.5}\n')
    assert backend.mean_drain_ms(tel) == {"ap1/sta1": 20.0, "ap2/sta2": 18.5}


def test_mean_drain_counts_every_drain_when_the_lines_carry_them(tmp_path: Path) -> None:
    tel = tmp_path / "t.jsonl"
    # frame 0: no drain ended (v_ms repeats an older one); frame 1: two ended, 25 and 15 ms
    tel.write_text('{"pair":"ap2/sta2","v_ms":17.0,"drains":0,"v_sum_ms":0.0}\n'
                   '{"pair":"ap2/sta2","v_ms":15.0,"drains":2,"v_sum_ms":40.0}\n'
                   '{"pair":"ap1/sta1","v_ms":19.0}\n')
    assert backend.mean_drain_ms(tel) == {"ap1/sta1": 19.0, "ap2/sta2": 20.0}


def test_mean_drain_of_the_redis_stream_counts_every_drain_as_the_experiments_do() -> None:
    # the demo reads tm:pair from Redis, whose values are text; it took the mean of each frame's v_ms
    # (17.0 and 15.0 here: 16.0), not the two drains' 40 ms over 2
    records = [{"pair": "ap2/sta2", "v_ms": "17.0", "drains": "0", "v_sum_ms": "0.0"},
               {"pair": "ap2/sta2", "v_ms": "15.0", "drains": "2", "v_sum_ms": "40.0"},
               {"pair": "ap2/sta2", "v_ms": "", "drains": "0", "v_sum_ms": "0"}]
    assert backend.drain_means_ms(records) == {"ap2/sta2": 20.0}


def test_groundtruth_reads_json_lines_and_csv_and_maps_mcs_to_rate(tmp_path: Path) -> None:
    jl = tmp_path / "g.jsonl"
    jl.write_text('{"src":"ap1","dst":"sta1","mpdus":19,"mcs":14,"start_us":0,"duration_us":2000}\n'
                  '{"src":"sta1","dst":"ap1","mpdus":0,"mcs":0}\n')
    frames = groundtruth.read(jl)
    assert len(frames) == 1 and frames[0].phy_mbps == 117.0 and frames[0].mpdus == 19
    csvf = tmp_path / "g.csv"
    csvf.write_text("src,dst,mpdus,phy_mbps,collided\nap2,sta2,7,52.0,1\n")
    assert groundtruth.read(csvf)[0].collided


def test_report_puts_our_rows_beside_the_papers(tmp_path: Path) -> None:
    for name, thr in (("isolated", (80.0, 100.0)), ("together", (20.0, 25.0))):
        pairs = [{"ap": f"ap{i}", "sta": f"sta{i}", "direction": "downlink", "throughput_mbps": t,
                  "mean_ampdu": None, "mean_phy_mbps": None, "mean_drain_ms": None}
                 for i, t in enumerate(thr, 1)]
        (tmp_path / f"{name}.json").write_text(json.dumps(
            {"scenario": name, "duration_s": 1, "slice_ms": None, "pairs": pairs,
             "utility": experiment.utility(list(thr)), "utility_bound": 7.6,
             "timeseries": {"ap1/sta1": [[0.5, 10.0], [1.0, 12.0]]}}))
    out = report.write_report(tmp_path)
    text = out.read_text()
    assert "| Together (together) | 20.0 | 21.7 |" in text
    assert "(no uplink results yet)" in text
    assert (tmp_path / "isolated_vs_together.png").stat().st_size > 1000
    assert (tmp_path / "throughput_timeseries.png").exists()


def test_report_says_what_the_plus_minus_beside_a_throughput_is(tmp_path: Path) -> None:
    pairs = [{"ap": f"ap{i}", "sta": f"sta{i}", "direction": "downlink", "throughput_mbps": t, "mean_ampdu": None,
              "mean_phy_mbps": None, "mean_drain_ms": None} for i, t in ((1, 80.8), (2, 100.8))]
    (tmp_path / "isolated.json").write_text(json.dumps(
        {"scenario": "isolated", "duration_s": 1, "slice_ms": None, "pairs": pairs, "utility": 9.0,
         "utility_bound": 7.6, "throughput_ci95_mbps": {"ap1/sta1": 1.2, "ap2/sta2": 0.1}}))
    text = report.write_report(tmp_path).read_text()
    assert "| 80.8 ± 1.2 |" in text
    assert "θ ± x is that mean ± the half-width of its 95 % confidence interval (Student t over the repeats" in text


def test_report_shows_a_wlan_emu_timing_quantile_past_the_histogram_as_at_least(tmp_path: Path) -> None:
    # wlan-emu writes a quantile that fell among errors of 20 ms or more, other than the largest, as ">=20000"
    pairs = [{"ap": f"ap{i}", "sta": f"sta{i}", "direction": "downlink", "throughput_mbps": 20.0, "mean_ampdu": None,
              "mean_phy_mbps": None, "mean_drain_ms": None} for i in (1, 2)]
    timing = {"n": 100, "p50": 10, "p99": ">=20000", "max": 50000}
    (tmp_path / "together.json").write_text(json.dumps(
        {"scenario": "together", "duration_s": 1, "slice_ms": None, "pairs": pairs,
         "utility": experiment.utility([20.0, 20.0]), "utility_bound": 7.6,
         "wlan_emu": {"cpu_percent": 30.0, "timing_error_us": timing}}))
    text = report.write_report(tmp_path).read_text()
    assert "delivery timing error p50 10 µs, p99 ≥ 20000 µs, max 50000 µs" in text


def test_report_lists_the_fail_open_interruptions_and_the_apply_time(tmp_path: Path) -> None:
    fig = {"interruption_ms": 97.6, "baseline_gap_ms": 31.0, "lost_probes": 63, "switch_ms": 92.6,
           "switch_to": "bypass", "tcp_completed": True, "tcp_mbps": 932.2}
    (tmp_path / "failopen.json").write_text(json.dumps(
        {"target_ms": 1000, "probe_rate_hz": 100, "probe_path": "p", "updated_at": "t",
         "runs": {"adwiser-dp": {"sigkill": fig, "redis_restart": {**fig, "switch_ms": None, "interruption_ms": 14.0}}}}))
    text = report.write_report(tmp_path).read_text()
    assert "| dataplane SIGKILL | adwiser-dp | 97.6 | 31.0 | 92.6 (bypass) | 63 | yes | 932.2 |" in text
    assert "| Redis restarted | adwiser-dp | 14.0 | 31.0 | – |" in text
    assert "(not measured yet" in text
    (tmp_path / "apply-under-traffic.json").write_text(json.dumps(
        {"measured_at": "t", "what": "w", "apply_to_active_ms": [31.5, 12.0], "frame_ms_before": 40,
         "frame_ms_after": 60, "probes_sent": 500, "probes_received": 500, "dataplane_drops": 0, "tcp_mbps": 20.0}))
    assert "apply -> active (2 applies): 31.5, 12 ms" in report.write_report(tmp_path).read_text()


def test_report_draws_fig11_from_dataplane_telemetry(tmp_path: Path) -> None:
    run = tmp_path / "runs" / "downlink-20ms"
    run.mkdir(parents=True)
    lines = []
    for k in range(50):
        for pair, tput in (("ap1/sta1", 38.0), ("ap2/sta2", 50.0)):
            lines.append(json.dumps({"type": "pair", "ts_ns": k * 40_000_000, "pair": pair,
                                     "released_pkts": 60 + k % 3, "tput_mbps": tput, "v_ms": 19.5}))
    (run / "adwiser-dp.telemetry.jsonl").write_text("\n".join(lines) + "\n")
    (run / "wlan-emu.stats.json").write_text(json.dumps({"t0_unix_ns": 7}))
    (tmp_path / "downlink-20ms.json").write_text(json.dumps({"scenario": "downlink-20ms", "wlan_emu": {"t0_unix_ns": 7},
                                                             "pairs": [{"ap": "ap1", "sta": "sta1"}]}))
    out = report.plot_slicing_timeseries(tmp_path, "downlink-20ms", tmp_path / "fig11.png")
    assert out is not None and out.stat().st_size > 1000
    assert report.plot_slicing_timeseries(tmp_path, "uplink-20ms", tmp_path / "none.png") is None


def test_backend_that_dies_at_start_fails_the_run_and_leaves_nothing(prefix: str, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESTBED_RUN_ROOT", str(tmp_path / "run"))
    with pytest.raises(RuntimeError, match="adwiser-dp exited at start"):
        experiment.run(scenarios.get("downlink-20ms"), 3.0, prefix=prefix, results_dir=tmp_path,
                       backend_cmd="sh -c 'echo refusing to start; exit 3'")
    assert not any(n.startswith(prefix) for n in topology.existing_namespaces())
    assert "refusing to start" in (tmp_path / "runs" / "downlink-20ms" / "adwiser-dp.log").read_text()
    assert not (tmp_path / "downlink-20ms.json").exists()


def test_ci95_uses_student_t_for_few_runs() -> None:
    assert experiment.ci95([10.0]) is None
    # n = 3, sd = 1: t(2) = 4.303 -> 4.303 / sqrt(3)
    assert experiment.ci95([9.0, 10.0, 11.0]) == pytest.approx(4.303 / math.sqrt(3), rel=1e-3)


def test_ci95_uses_student_t_up_to_the_twenty_runs_a_scenario_may_repeat() -> None:
    # n = 11, sd = 1: t(10) = 2.228, not the normal 1.96 (12 % narrower)
    runs = [9.0] * 5 + [10.0] + [11.0] * 5
    sd = math.sqrt(10.0 / 10)
    assert experiment.ci95(runs) == pytest.approx(2.228 * sd / math.sqrt(11), rel=1e-3)
    # n = 20 (repeats=20, the most run() accepts): t(19) = 2.093
    runs20 = [9.0] * 10 + [11.0] * 10
    sd20 = math.sqrt(20.0 / 19)
    assert experiment.ci95(runs20) == pytest.approx(2.093 * sd20 / math.sqrt(20), rel=1e-3)


def test_cleanup_runs_every_step_even_after_a_failure() -> None:
    done: list[str] = []

    def fail() -> None:
        raise RuntimeError("wan-emu exited with 1")

    errors = experiment._stop_all([("a", fail), ("b", lambda: done.append("b")),
                                   ("c", lambda: done.append("c"))])
    assert done == ["b", "c"]
    assert errors == ["a: wan-emu exited with 1"]


def test_sigterm_to_the_runner_mid_transfer_leaves_nothing(prefix: str, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time
    env = dict(os.environ, TESTBED_PREFIX=prefix, TESTBED_RUN_ROOT=str(tmp_path / "run"))
    runner = subprocess.Popen([sys.executable, "-m", "runner", "run", "together", "--duration", "30"],
                              cwd=Path(__file__).resolve().parents[1], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not list((tmp_path / "run" / prefix).glob("iperf3-cli-*.pid")):
            time.sleep(0.1)
        assert list((tmp_path / "run" / prefix).glob("iperf3-cli-*.pid")), "transfers never started"
        time.sleep(0.5)
        pids = [int(p.read_text()) for p in (tmp_path / "run" / prefix).glob("*.pid")]
        runner.send_signal(signal.SIGTERM)
        assert runner.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()
    assert not any(n.startswith(prefix) for n in topology.existing_namespaces())
    assert len(pids) >= 3  # iperf3 servers and clients (and wlan-emu when built)
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_calibration_table_says_which_targets_are_met() -> None:
    def doc(name: str, rows: list[tuple[float, float | None, float | None]]) -> dict[str, object]:
        return {"scenario": name, "pairs": [
            {"ap": f"ap{i}", "sta": f"sta{i}", "throughput_mbps": t, "mean_ampdu": a, "mean_phy_mbps": p}
            for i, (t, a, p) in enumerate(rows, 1)]}
    lines = report.calibration_lines({
        "isolated": doc("isolated", [(79.0, 19.5, 125.0), (90.0, 19.0, 140.0)]),
        "together": doc("together", [(21.0, None, None), (25.0, 12.0, 55.0)]),
    })
    text = "\n".join(lines)
    assert "| isolated | ap1-sta1 | θ 79.0 Mbit/s (-0.8 %) | 79.6 ± 5 % | yes |" in text
    assert "| isolated | ap2-sta2 | θ 90.0 Mbit/s (-13.0 %) | 103.5 ± 5 % | no |" in text
    assert "| together | ap1-sta1 | A-MPDU – | under 9 | no emulator |" in text
    assert "| together | ap2-sta2 | A-MPDU 12.0 | under 9 | no |" in text
    assert "| together | ap2-sta2 | PHY Mbit/s 55.0 | under 60 | yes |" in text


def test_slice_overflow_counts_airtime_outside_the_pairs_own_slices() -> None:
    from runner import slice_overflow
    from runner.groundtruth import Ppdu
    t0 = 1_000_000_000_000  # emulator start, epoch ns
    # Two 40 ms frames from epoch t0 + 10 ms: ap1/sta1 owns [0, 20) ms, ap2/sta2 [20, 40) ms.
    frames = [{"type": "frame", "ts_ns": t0 + 10_000_000 + k * 40_000_000, "frame_ms": 40.0,
               "slices": [{"duration_ms": 20.0, "pairs": ["ap1/sta1"], "given_to": []},
                          {"duration_ms": 20.0, "pairs": ["ap2/sta2"], "given_to": []}]}
              for k in range(2)]

    def ppdu(src: str, dst: str, start_ms: float, dur_ms: float) -> Ppdu:
        return Ppdu(src, dst, 10, 130.0, start_ms * 1000 + 10_000, dur_ms * 1000, False)

    ppdus = [ppdu("ap1", "sta1", 1.0, 2.0),    # inside
             ppdu("ap1", "sta1", 19.0, 2.0),   # 1 ms past its slice end
             ppdu("sta1", "ap1", 25.0, 0.4),   # its ACK in the other pair's slice
             ppdu("ap2", "sta2", 21.0, 2.0),   # inside
             ppdu("ap2", "sta2", 200.0, 2.0)]  # after the telemetry span: ignored
    frac = slice_overflow.overflow_fraction(frames, ppdus, t0)
    assert frac["ap1/sta1"] == pytest.approx((1.0 + 0.4) / 40.0)
    assert frac["ap2/sta2"] == pytest.approx(0.0)


def test_a_slice_released_early_starts_where_its_batch_went_on_the_grid_as_released() -> None:
    from runner import slice_overflow
    from runner.groundtruth import Ppdu
    # ap2/sta2's batch went 1.5 ms before its slice [20, 40) ms; it sent from 18.6 ms.
    frames = [{"ts_ns": 0, "slices": [{"duration_ms": 20.0, "pairs": ["ap1/sta1"], "given_to": []},
                                      {"duration_ms": 20.0, "pairs": ["ap2/sta2"], "given_to": [],
                                       "early_ms": 1.5}]}]
    assert slice_overflow.slice_intervals(frames)["ap2/sta2"] == [(20000.0, 40000.0)]
    assert slice_overflow.slice_intervals(frames, as_released=True)["ap2/sta2"] == [(18500.0, 40000.0)]
    ppdus = [Ppdu("ap2", "sta2", 10, 130.0, 18600.0, 2000.0, False)]
    assert slice_overflow.overflow_fraction(frames, ppdus, 0)["ap2/sta2"] == pytest.approx(1.4 / 20.0)
    # the slice time stays the scheduled 20 ms: an early start is not counted as more slice time
    assert slice_overflow.overflow_fraction(frames, ppdus, 0, as_released=True)["ap2/sta2"] == pytest.approx(0.0)


def test_slice_given_away_belongs_to_the_pair_it_was_given_to() -> None:
    from runner import slice_overflow
    frames = [{"ts_ns": 0, "slices": [{"duration_ms": 20.0, "pairs": ["ap1/sta1"], "given_to": ["ap2/sta2"]},
                                      {"duration_ms": 20.0, "pairs": ["ap2/sta2"], "given_to": []}]}]
    iv = slice_overflow.slice_intervals(frames)
    assert iv == {"ap2/sta2": [(0.0, 20000.0), (20000.0, 40000.0)]}


def test_airtime_in_two_overlapping_slices_of_a_pair_as_released_is_inside_once() -> None:
    from runner import slice_overflow
    from runner.groundtruth import Ppdu
    # ap1/sta1's slice [0, 20) ms was given to ap2/sta2, whose own slice [20, 40) went 5 ms early: as
    # released ap2/sta2 holds [0, 20) and [15, 40), which overlap. Its PPDU over [10, 30) ms is all inside.
    frames = [{"ts_ns": 0, "slices": [{"duration_ms": 20.0, "pairs": ["ap1/sta1"], "given_to": ["ap2/sta2"]},
                                      {"duration_ms": 20.0, "pairs": ["ap2/sta2"], "given_to": [],
                                       "early_ms": 5.0}]}]
    ppdus = [Ppdu("ap2", "sta2", 10, 130.0, 10_000.0, 20_000.0, False)]
    assert slice_overflow.overflow_fraction(frames, ppdus, 0, as_released=True)["ap2/sta2"] == pytest.approx(0.0)
    # one that starts before both and ends in the overlap: 5 ms outside, once
    ppdus = [Ppdu("ap2", "sta2", 10, 130.0, -5_000.0, 22_000.0, False)]
    assert slice_overflow.overflow_fraction(frames, ppdus, 0, as_released=True)["ap2/sta2"] == pytest.approx(
        5.0 / 40.0)


def test_wlan_emu_gets_a_core_and_receive_processing_goes_to_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wlan.os, "sched_getaffinity", lambda pid: {0, 1})
    assert wlan.cpu_split() == (1, 0b1)
    monkeypatch.setattr(wlan.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    assert wlan.cpu_split() == (3, 0b111)
    monkeypatch.setattr(wlan.os, "sched_getaffinity", lambda pid: {0})
    assert wlan.cpu_split() is None


def test_voice_section_names_the_guard_the_voice_scenarios_run_with() -> None:
    # The text said 300 µs after the default became 340 (the BlockAck after a voice frame goes at 6 Mbit/s);
    # the scenarios leave policies.realtime.guard_us at the schema's default, so the report reads it there.
    from runner import report_mixed
    schema = json.loads(report_mixed.SCHEMA.read_text())
    guard = schema["$defs"]["Realtime"]["properties"]["guard_us"]["default"]
    text = " ".join(report_mixed.section_lines({}))
    assert f"AP1's next batch {guard} µs after it" in text
