"""Each transfer's start against its steady state (runner/transfer_phases.py) on hand-made telemetry:
two transfers of one pair, 200 ms frames, a pause between them."""
import json

import pytest

from runner import report_overflow, transfer_phases

T0_NS = 5_000_000_000


def _rec(t_s: float, released: int, v_ms: float | None) -> dict:
    return {"type": "pair", "pair": "ap1/sta1", "ts_ns": T0_NS + int(t_s * 1e9), "released_pkts": released, "v_ms": v_ms}


def _transfer(start_s: float) -> list[dict]:
    # 20 s: 100 packets a frame with V 40 ms for 4 s, then 500 a frame with V 98 ms
    return [_rec(start_s + 0.2 * k, 100 if k < 20 else 500, 40.0 if k < 20 else 98.0) for k in range(100)]


RECORDS = [_rec(0.2 * k, 2, None) for k in range(5)] + _transfer(1.0) + [_rec(21.0 + 0.2 * k, 3, 0.5) for k in range(10)] \
    + _transfer(23.0)


def test_transfers_start_at_the_first_busy_frame_after_a_pause() -> None:
    assert transfer_phases.transfer_starts(RECORDS, 20.0) == [1.0, 23.0]


def test_a_pause_inside_a_transfer_does_not_start_a_new_one() -> None:
    # the tail of a round paused 0.4 s (frames releasing 2 packets) 19 s after its start
    paused = [r if not 20.0 <= (r["ts_ns"] - T0_NS) / 1e9 < 20.4 else {**r, "released_pkts": 2} for r in RECORDS]
    assert transfer_phases.transfer_starts(paused, 20.0) == [1.0, 23.0]
    # nor do the last round's last frames after a pause
    tail = RECORDS + [_rec(42.8 + 0.2 * k, 2, None) for k in range(3)] + [_rec(43.6, 40, 5.0)]
    assert transfer_phases.transfer_starts(tail, 20.0) == [1.0, 23.0]


def test_a_pause_of_a_few_20ms_slice_frames_between_rounds_starts_the_next_transfer() -> None:
    # downlink-20ms's kept run (ap1/sta1): 40 ms frames, the last busy frame of round 1 0.28 s before round 2's
    # first, six frames releasing fewer between them; round 2 was not found and the report read 2 transfers of 3
    def rnd(start_s: float) -> list[dict]:
        return [_rec(start_s + 0.04 * k, 130, 19.5) for k in range(508)]     # 20.3 s, its tail included

    def idle(start_s: float, frames: int) -> list[dict]:
        return [_rec(start_s + 0.04 * k, 2, None) for k in range(frames)]

    recs = idle(0.0, 25) + rnd(1.0) + idle(21.32, 6) + rnd(21.56) + idle(41.88, 10) + rnd(42.28)
    assert transfer_phases.transfer_starts(recs, 20.0) == pytest.approx([1.0, 21.56, 42.28])


def test_each_phase_has_the_rate_released_and_the_mean_drain_time() -> None:
    first, second = transfer_phases.phases(RECORDS, duration_s=20.0)
    # 20 frames of 100 packets of 1448 bytes in 4 s, then 500 a frame (5 frames a second)
    assert first["0-4s"] == {"mbps": round(2000 * 1448 * 8 / 4 / 1e6, 2), "v_ms": 40.0}
    assert first["4-8s"] == {"mbps": round(20 * 500 * 1448 * 8 / 4 / 1e6, 2), "v_ms": 98.0}
    assert first["8s-end"]["mbps"] == first["4-8s"]["mbps"] and second["start_s"] == 23.0


def test_phase_drain_time_counts_every_drain_not_the_last_one_of_each_frame() -> None:
    # One 20 s transfer at 200 ms frames where drains end out of step with the frames: every other frame
    # two drains end (30 ms and 10 ms: v_ms is the last, 10), in the frames between none does (v_ms repeats
    # it). The mean drain time is 40 / 2 = 20 ms, not the mean of v_ms (10).
    recs = [{**_rec(1.0 + 0.2 * k, 100, 10.0), "drains": 0 if k % 2 else 2, "v_sum_ms": 0.0 if k % 2 else 40.0}
            for k in range(100)]
    (only,) = transfer_phases.phases(recs, duration_s=20.0)
    assert [only[key]["v_ms"] for key in ("0-4s", "4-8s", "8s-end")] == [20.0, 20.0, 20.0]


def test_report_shows_the_phases_of_each_pair(tmp_path) -> None:
    doc = {"downlink-100ms": {"pairs": {}, "iperf_last_run": {},
                              "transfer_phases": {"ap1/sta1": transfer_phases.phases(RECORDS, 20.0)}}}
    (tmp_path / "overflow-breakdown.json").write_text(json.dumps(doc))
    text = "\n".join(report_overflow.section_lines(tmp_path))
    assert "| downlink-100ms | ap1/sta1 | 2 | 5.8 (40.0) | 29.0 (98.0) | 29.0 (98.0) |" in text
