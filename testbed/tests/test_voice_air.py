"""`mixed.voice_air` reads the emulator's ground truth per MPDU: the figures
REPORT.md quotes for downlink voice on the air (004 §6.4, Table 6)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from runner import mixed


def _ppdu(start_us: int, src: str, ac: str, ids: list[int], ok_mask: str, duration_us: int = 60) -> dict[str, Any]:
    return {"start_us": start_us, "duration_us": duration_us, "src": src, "dst": "sta", "ac": ac,
            "mpdus": len(ids), "ok": ok_mask.count("1"), "ids": ids, "ok_mask": ok_mask}


def _write(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    gt = tmp_path / "groundtruth.jsonl"
    gt.write_text("".join(json.dumps(r) + "\n" for r in records))
    return gt


def test_two_voice_mpdus_in_one_ampdu_are_two_first_attempts(tmp_path: Path) -> None:
    # Two voice packets that reached AP2's queue together go out in one A-MPDU:
    # two packets, two first attempts (a count of distinct `ids` tuples said one).
    air = mixed.voice_air(_write(tmp_path, [_ppdu(100, "ap2", "VO", [1, 2], "11"),
                                            _ppdu(20_000, "ap2", "VO", [3], "1")]))
    assert air is not None
    assert air["vo_first_attempts"] == 3 and air["vo_attempts"] == 2 and air["vo_dropped"] == 0


def test_retry_aggregated_with_the_next_packet_counts_only_the_new_mpdu_as_a_first_attempt(tmp_path: Path) -> None:
    gt = _write(tmp_path, [_ppdu(0, "ap1", "BE", [10], "1", duration_us=500),
                           _ppdu(100, "ap2", "VO", [1], "0"),       # during AP1: lost
                           _ppdu(600, "ap2", "VO", [1, 2], "11")])  # retry of 1 with new 2
    air = mixed.voice_air(gt)
    assert air == {"vo_attempts": 2, "vo_attempts_during_ap1": 1, "vo_first_attempts": 2,
                   "vo_first_attempts_during_ap1": 1, "vo_dropped": 0}


def test_an_mpdu_no_attempt_delivered_is_dropped_on_the_air(tmp_path: Path) -> None:
    gt = _write(tmp_path, [_ppdu(0, "ap1", "BE", [10], "1", duration_us=5_000),
                           *[_ppdu(100 + 150 * k, "ap2", "VO", [1], "0") for k in range(30)],
                           _ppdu(9_000, "ap2", "VO", [2, 1], "10")])  # 1 is never delivered
    air = mixed.voice_air(gt)
    assert air is not None
    assert air["vo_first_attempts"] == 2 and air["vo_dropped"] == 1
    assert air["vo_first_attempts_during_ap1"] == 1


def test_no_voice_on_the_air_gives_no_figures(tmp_path: Path) -> None:
    assert mixed.voice_air(_write(tmp_path, [_ppdu(0, "ap1", "BE", [10], "1")])) is None
    assert mixed.voice_air(tmp_path / "missing.jsonl") is None
