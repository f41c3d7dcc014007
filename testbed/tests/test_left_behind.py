"""MPDUs an AP left queued behind its frames (runner/left_behind.py) on hand-made
ground truth of one link: a full frame, a BlockAck-window stall, an RTS exchange."""
import json
from pathlib import Path

import pytest

from runner import left_behind


def _ppdu(start_us: int, ids: list[int], enq_us: list[int], ok: str | None = None, ba_ok: bool = True,
          rts: bool = False) -> dict:
    return {"start_us": start_us, "duration_us": 500, "src": "ap1", "dst": "sta1", "pair": "ap1/sta1", "ac": "BE",
            "mpdus": len(ids), "ids": ids, "enq_us": enq_us, "ok_mask": ok or "1" * len(ids), "ba_ok": ba_ok, "collided": False,
            "rts": rts}


def _one_span(ppdus: list[dict], window: int = left_behind.BA_WINDOW) -> left_behind.Span:
    [sp] = left_behind.spans(ppdus, [(0.0, 1.0)], window=window)
    return sp


def test_frame_that_leaves_queued_mpdus_inside_the_window_counts_as_full() -> None:
    # MPDUs 1-5 all queued at 100 µs; the frame at 1000 µs takes 3 of them (its duration cap)
    ppdus = [_ppdu(1_000, [1, 2, 3], [100] * 3), _ppdu(2_000, [4, 5], [100] * 2)]
    sp = _one_span(ppdus)
    assert (sp.ppdus, sp.left_full, sp.left_window) == (2, 1, 0)
    assert sp.full_sizes == {3: 1}
    # the first frame's MPDUs waited 0.9 ms, the second's 1.9 ms
    assert sp.row()["mean_wait_ms"] == pytest.approx((3 * 0.9 + 2 * 1.9) / 5)


def test_frame_held_by_the_blockack_window_counts_as_a_window_stall() -> None:
    # window of 4: MPDU 1 is lost and keeps the window at 1-4; MPDU 5 waits beyond it
    ppdus = [
        _ppdu(1_000, [1, 2, 3, 4], [100] * 4, ok="0111"),
        _ppdu(2_000, [1], [100]),                          # the retransmission; 5 is still out of the window
        _ppdu(3_000, [5], [100]),
    ]
    sp = _one_span(ppdus, window=4)
    assert (sp.left_window, sp.left_full) == (2, 0)


def test_mpdu_given_up_at_the_retry_limit_no_longer_holds_the_window() -> None:
    # window of 4: the first frame fills it (5 and 6 wait beyond it); MPDU 1 is lost and never sent again
    # (dropped at the retry limit), so the next frame's window is 2-5 and 6 waits inside it
    ppdus = [
        _ppdu(1_000, [1, 2, 3, 4], [100] * 4, ok="0111"),
        _ppdu(2_000, [5], [100]),
        _ppdu(3_000, [6], [100]),
    ]
    sp = _one_span(ppdus, window=4)
    assert (sp.left_window, sp.left_full) == (1, 1)


def test_mpdus_that_arrive_during_the_rts_exchange_are_not_left_behind() -> None:
    # the frame was built at its RTS, 300 µs before the data PPDU; MPDU 3 came 100 µs before the data
    ppdus = [_ppdu(1_000, [1, 2], [500, 500], rts=True), _ppdu(2_000, [3], [900])]
    assert _one_span(ppdus).left_full == 0
    no_rts = [_ppdu(1_000, [1, 2], [500, 500]), _ppdu(2_000, [3], [900])]
    assert _one_span(no_rts).left_full == 1


def test_a_frame_that_takes_every_queued_mpdu_leaves_nothing_behind() -> None:
    ppdus = [_ppdu(1_000, [1, 2], [100, 200]), _ppdu(5_000, [3, 4], [3_000, 4_000])]
    sp = _one_span(ppdus)
    assert (sp.ppdus, sp.left_full, sp.left_window) == (2, 0, 0)
    assert sp.row()["mpdu_weighted_mpdus"] == 2.0


def test_cli_reads_the_links_ppdus_and_refuses_a_bad_span(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gt = tmp_path / "groundtruth.jsonl"
    other_link = dict(_ppdu(1_500, [9], [1_400]), src="sta1", dst="ap1")
    gt.write_text("".join(json.dumps(r) + "\n" for r in
                          [_ppdu(1_000, [1, 2, 3], [100] * 3), other_link, _ppdu(2_000, [4, 5], [100] * 2)]))
    assert left_behind.main([str(gt), "--span", "0-1"]) == 0
    row = capsys.readouterr().out
    assert "'ppdus': 2" in row and "'left_full_frac': 0.5" in row
    with pytest.raises(SystemExit):
        left_behind.main([str(gt), "--span", "1-0"])
    assert "expected 0 <= FROM < TO" in capsys.readouterr().err
