"""The lone batch-start count (runner/batch_starts.py) on hand-made ground truth:
one AP, a batch whose first MPDU went on the air alone, then a backlog."""
import json
import math
from pathlib import Path

from runner import batch_starts, report_batch_starts

PHY_MBPS = 150.0     # 1500 bytes at 150 Mbit/s: 80 µs of payload airtime


def _ppdu(start_us: int, dur_us: int, ids: list[int], enq_us: list[int]) -> dict:
    return {"start_us": start_us, "duration_us": dur_us, "src": "ap1", "dst": "sta1", "mcs": 15,
            "phy_mbps": PHY_MBPS, "mpdus": len(ids), "ok": len(ids), "bytes": 1500 * len(ids),
            "collided": False, "ids": ids, "enq_us": enq_us}


# A batch reaches an idle AP at 1000 µs: MPDU 1 goes alone at once, 2-20 arrive over the next 40 µs and wait.
BATCH = [
    _ppdu(1_000, 150, [1], [1_000]),
    _ppdu(1_400, 2_000, list(range(2, 21)), [1_002 + 2 * i for i in range(19)]),
    # from the backlog: queued long before it went
    _ppdu(3_700, 1_000, list(range(21, 31)), [1_050] * 10),
]


def test_a_batchs_first_mpdu_sent_alone_costs_the_air_to_the_next_ppdu_less_its_own_payload() -> None:
    fig = batch_starts.lone_starts(BATCH)
    assert fig["lone_starts"] == 1
    # 1000 -> 1400 µs, less 1500 bytes at 150 Mbit/s (80 µs)
    assert fig["cost_us_each"] == 320.0
    # busy from 1000 to 4700 µs: PPDUs 3150 µs, gaps 250 and 300 µs
    assert fig["active_s"] == 0.0037 and fig["data_air_s"] == round(0.00315, 4)
    assert fig["cost_frac_of_active"] == round(320 / 3_700, 5)


def test_a_single_mpdu_with_nothing_behind_it_or_from_a_backlog_is_no_lone_start() -> None:
    alone_in_its_batch = [_ppdu(1_000, 150, [1], [1_000]), _ppdu(30_000, 150, [2], [30_000])]
    from_backlog = [_ppdu(1_000, 150, [1], [900]), _ppdu(1_400, 2_000, list(range(2, 21)), [950] * 19)]
    assert batch_starts.lone_starts(alone_in_its_batch)["lone_starts"] == 0
    assert batch_starts.lone_starts(from_backlog)["lone_starts"] == 0


def _write_run(results: Path, name: str, ppdus: list[dict], mbps: float, t0: int, committed_t0: int) -> None:
    run = results / "runs" / name
    run.mkdir(parents=True)
    (run / "groundtruth.jsonl").write_text("".join(json.dumps(p) + "\n" for p in ppdus))
    (run / "wlan-emu.stats.json").write_text(json.dumps({"t0_unix_ns": t0}))
    (results / f"{name}.json").write_text(json.dumps({
        "scenario": name, "slice_ms": 20, "utility_bound": 7.6, "wlan_emu": {"t0_unix_ns": committed_t0},
        "pairs": [{"ap": "ap1", "sta": "sta1", "direction": "downlink", "throughput_mbps": mbps}]}))


def test_scenario_scales_goodput_by_the_air_the_lone_starts_took(tmp_path: Path) -> None:
    _write_run(tmp_path, "downlink-20ms", BATCH, 40.0, t0=5, committed_t0=5)
    sc = batch_starts.scenario(tmp_path, "downlink-20ms")
    assert sc is not None and sc["matches_committed_json"]
    frac = 320 / 3_700
    assert sc["pairs"]["ap1/sta1"]["mbps_if_full"] == round(40.0 / (1 - round(frac, 5)), 3)
    assert sc["utility"] == round(math.log(40.0), 4)
    assert sc["utility_if_full"] > sc["utility"]


def test_report_section_has_a_row_per_pair_and_says_when_nothing_was_measured(tmp_path: Path) -> None:
    _write_run(tmp_path, "downlink-20ms", BATCH, 40.0, t0=5, committed_t0=6)
    assert batch_starts.main(["--results", str(tmp_path), "--scenarios", "downlink-20ms,absent"]) == 0
    text = "\n".join(report_batch_starts.section_lines(tmp_path))
    assert "| downlink-20ms | ap1/sta1 | 3 | 1 | 320 | 8.65 | 40.0 | 43.8 |" in text
    assert text.rstrip().endswith("| 7.600 | no |")
    assert "not measured yet" in "\n".join(report_batch_starts.section_lines(tmp_path / "absent"))
