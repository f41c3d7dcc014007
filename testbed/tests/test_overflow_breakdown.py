"""The uplink overflow split (runner/overflow_breakdown.py) on a hand-made run:
one frame of two 20 ms slices, AP1's ACK batch numbered 10 by the emulator."""
import json
from pathlib import Path

from runner import groundtruth, overflow_breakdown, report_overflow, slice_overflow

T0_NS = 1_000_000_000
FRAMES = [{"type": "frame", "ts_ns": T0_NS + k * 40_000_000,
           "slices": [{"duration_ms": 20.0, "pairs": ["ap1/sta1"]}, {"duration_ms": 20.0, "pairs": ["ap2/sta2"]}]}
          for k in range(2)]


def _ppdu(start_us: int, dur_us: int, src: str, dst: str, ids: list[int]) -> dict:
    return {"start_us": start_us, "duration_us": dur_us, "src": src, "dst": dst, "mcs": 15, "phy_mbps": 144.4,
            "mpdus": len(ids), "ok": len(ids), "collided": False, "ids": ids, "ok_mask": "1" * len(ids)}


PPDUS = [
    _ppdu(100, 60, "ap1", "sta1", [10]),           # the slice's ACK batch
    _ppdu(1_000, 1_000, "sta1", "ap1", [5, 6]),    # queued before it, sent inside the slice
    _ppdu(21_000, 1_000, "sta1", "ap1", [7]),      # queued before it, sent after the slice
    _ppdu(23_000, 2_000, "sta1", "ap1", [11, 12]),  # freed by the batch, sent after the slice
    _ppdu(25_500, 500, "sta1", "ap1", [7]),        # a MAC retry of 7, after the slice
]


def test_sta_data_queued_before_the_slices_acks_is_split_from_the_data_the_batch_freed(tmp_path: Path) -> None:
    res = overflow_breakdown.breakdown(FRAMES, PPDUS, T0_NS)["ap1/sta1"]
    slice_us = 2 * 20_000
    assert res["sta_backlog"] == round(1_500 / slice_us, 5)
    assert res["sta_batch"] == round(2_000 / slice_us, 5)
    assert res["retried"] == round(500 / slice_us, 5)
    assert res["ap"] == 0.0
    # the batch's data ended 25 ms after the slice start: over the 20 ms slice
    assert res["air_drain_ms"]["p50"] == 25.0 and res["air_drain_ms"]["over_slice"] == 1.0
    # the same total as the runner's slice overflow
    gt = tmp_path / "gt.jsonl"
    gt.write_text("".join(json.dumps(p) + "\n" for p in PPDUS))
    total = slice_overflow.overflow_fraction(FRAMES, groundtruth.read(gt), T0_NS)["ap1/sta1"]
    assert res["overflow"] == round(total, 5)


def test_sta_data_after_a_slice_that_released_no_batch_is_backlog() -> None:
    # AP1 released ACKs in its first slice only; what STA1 sends after its second slice (40-60 ms), which
    # released none, was freed by the first batch and waited in the STA's queue: no batch of that slice freed it
    ppdus = [_ppdu(100, 60, "ap1", "sta1", [10]), _ppdu(62_000, 1_000, "sta1", "ap1", [11, 12])]
    res = overflow_breakdown.breakdown(FRAMES, ppdus, T0_NS)["ap1/sta1"]
    assert res["sta_backlog"] == round(1_000 / 40_000, 5) and res["sta_batch"] == 0.0


def test_mean_v_is_over_the_drains_as_the_results_mean_drain_ms() -> None:
    # a frame in which two drains ended (30 ms each: its mean 30) and one with a drain of 20 ms: the mean over the
    # drains is 80 / 3, what experiment.py reports as mean_drain_ms (jsonl.drain_means_ms), not (30 + 20) / 2
    recs = [{"pair": "ap1/sta1", "drains": 2, "v_sum_ms": 60.0, "v_ms": 30.0, "r_pkts": 40},
            {"pair": "ap1/sta1", "drains": 1, "v_sum_ms": 20.0, "v_ms": 20.0, "r_pkts": 40}]
    res = overflow_breakdown.breakdown(FRAMES, PPDUS, T0_NS, recs)["ap1/sta1"]
    assert res["v_ms"]["mean"] == round(80 / 3, 2)


def test_the_split_counts_a_runs_ends_as_the_runners_slice_overflow_does(tmp_path: Path) -> None:
    # ap2's PPDU before its first slice (inside ap1's) was skipped; ap1's after the last frame, when the
    # dataplane had stopped, was counted: breakdown {ap1 0.025, ap2 0} against slice_overflow {0, 0.025}
    ppdus = [_ppdu(1_000, 1_000, "sta2", "ap2", [3]), _ppdu(85_000, 1_000, "sta1", "ap1", [4])]
    res = overflow_breakdown.breakdown(FRAMES, ppdus, T0_NS)
    gt = tmp_path / "gt.jsonl"
    gt.write_text("".join(json.dumps(p) + "\n" for p in ppdus))
    total = slice_overflow.overflow_fraction(FRAMES, groundtruth.read(gt), T0_NS)
    assert {p: res[p]["overflow"] for p in res} == {p: round(v, 5) for p, v in total.items()}
    assert res["ap2/sta2"]["overflow"] == round(1_000 / 40_000, 5) and res["ap1/sta1"]["overflow"] == 0.0


def test_voice_airtime_is_not_slice_overflow(tmp_path: Path) -> None:
    # real-time packets are released on arrival, never held to a slice (SPEC §3.4)
    ppdus = [dict(_ppdu(21_000, 1_000, "ap1", "sta1", [3]), ac="VO"), _ppdu(22_000, 1_000, "ap1", "sta1", [4])]
    gt = tmp_path / "gt.jsonl"
    gt.write_text("".join(json.dumps(p) + "\n" for p in ppdus))
    assert slice_overflow.overflow_fraction(FRAMES, groundtruth.read(gt), T0_NS)["ap1/sta1"] == 1_000 / 40_000
    assert overflow_breakdown.breakdown(FRAMES, ppdus, T0_NS)["ap1/sta1"]["overflow"] == round(1_000 / 40_000, 5)


def test_sta_queue_wait_lower_bound_is_first_send_minus_the_latest_possible_arrival() -> None:
    waits = overflow_breakdown.sta_wait_lower_bound_us(PPDUS)
    # 5, 6 and 7 arrived before the ACK numbered 10, on the air at 100 µs; 11 and 12 no later than their send
    assert list(waits["sta1"]) == [900.0, 900.0, 20_900.0, 0.0, 0.0]


def test_report_section_has_a_row_per_pair_and_says_when_nothing_was_measured(tmp_path: Path) -> None:
    doc = {"uplink-20ms": {"matches_committed_json": True,
                           "pairs": {"ap1/sta1": overflow_breakdown.breakdown(FRAMES, PPDUS, T0_NS)["ap1/sta1"]},
                           "iperf_last_run": {}}}
    (tmp_path / "overflow-breakdown.json").write_text(json.dumps(doc))
    text = "\n".join(report_overflow.section_lines(tmp_path))
    assert "| uplink-20ms | ap1/sta1 | 8.8 | 3.8 | 5.0 | 0.0 | 1.2 |" in text
    assert "not measured yet" in "\n".join(report_overflow.section_lines(tmp_path / "absent"))
