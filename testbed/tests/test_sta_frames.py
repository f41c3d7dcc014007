"""The STA-side agent's A-MPDU boundary classifier (runner/sta_frames.py; SPEC §3.7, 001 §4): packets labelled
by the PPDU on the air when they arrived, A-MPDU sizes from boundary flags, the per-slot comparison with the
truth, and a fit on a synthetic capture that must find its boundaries. No network."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np

from runner import ack_dataset, sta_frames

US = 1_000
T0 = 1_700_000_000_000_000_000  # the emulator's time zero on the Unix clock, ns


def test_a_packet_belongs_to_the_last_ppdu_that_started_before_it():
    starts = np.array([1000, 3000, 5000])
    # µs on the ground-truth clock: two packets in the first PPDU, one in the second, two in the third
    t = np.array([1100, 1150, 3200, 5100, 5130]) * US + T0
    idx, first = sta_frames.label(t, starts, T0)
    assert idx.tolist() == [0, 0, 1, 2, 2]
    assert first.tolist() == [1, 0, 1, 1, 0]


def test_a_late_packet_of_one_ppdu_is_not_credited_to_the_next_before_its_preamble_ended():
    starts = np.array([1000, 3000])
    # 20 µs into the second PPDU nothing of it can have been decoded yet: the packet is the first one's, late
    t = np.array([1100, 3020, 3100]) * US + T0
    idx, first = sta_frames.label(t, starts, T0)
    assert idx.tolist() == [0, 0, 1]
    assert first.tolist() == [1, 0, 1]


def test_features_and_labels_of_unix_clock_times_are_exact_to_the_ns():
    # The agent logs kernel receive times on the Unix clock (~1.7e18 ns), where float64 steps by 256 ns.
    t = T0 + np.array([0, 12_345, 24_690, 37_035], dtype=np.int64)
    x = ack_dataset.features(t, 2)
    assert list(x[2]) == [12.345, 12.345, 0.0] and list(x[3]) == [12.345, 12.345, 0.0]
    # 50 ns before the PPDU's preamble (36 µs) has passed: not yet that PPDU's
    idx, _ = sta_frames.label(np.array([T0 + 1_000 * US + 36 * US - 50]), np.array([1000]), T0)
    assert list(idx) == [-1]


def test_ampdu_sizes_come_from_the_flags_and_are_capped_at_n_max():
    first = np.zeros(3 + 70 + 2, dtype=np.int8)
    first[[0, 3, 73]] = 1
    t = np.arange(len(first)) * 10 * US
    starts, sizes = sta_frames.frame_sizes(first, t)
    assert starts.tolist() == [0, 30 * US, 730 * US]
    assert sizes.tolist() == [3.0, float(sta_frames.N_MAX), 2.0]


def _synthetic_run(tmp: Path, ampdus: int, seed: int) -> tuple[list[int], list[int]]:
    """A run directory as `runner.aggtarget --capture-sta` keeps it: per PPDU of 3-20 MPDUs (all decoded)
    their packets at 10-40 µs spacing, PPDUs 150-1500 µs apart; the agent's packet log (its own flags all 0)."""
    rnd = random.Random(seed)
    gt, pkts, t_us = [], [], 1000
    for _ in range(ampdus):
        n = rnd.randint(3, 20)
        gt.append({"start_us": t_us, "duration_us": 100, "src": "ap1", "dst": "sta1", "ac": "BE", "mpdus": n,
                   "ok": n})
        at = t_us + 60
        for _ in range(n):
            at += rnd.randint(10, 40)
            pkts.append(T0 + at * US)
        t_us = at + rnd.randint(150, 1500)
    (tmp / "aggtarget-groundtruth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in gt))
    (tmp / "aggtarget-wlan-emu.stats.json").write_text(json.dumps({"t0_unix_ns": T0}))
    (tmp / "aggtarget-sta-agent-sta1.packets").write_text("".join(f"{p} 0\n" for p in pkts))
    return [r["mpdus"] for r in gt], pkts


def test_fit_finds_the_boundaries_of_a_capture_whose_gaps_separate_them(tmp_path: Path):
    sizes, pkts = _synthetic_run(tmp_path, 3000, seed=7)
    out = sta_frames.fit([tmp_path], [1, 2])
    model, per = out["model"], out["doc"]["per_capture"][0]
    assert per["packets"] == len(pkts) and per["ppdus"] == len(sizes)
    assert per["f1"] > 0.98
    assert abs(per["est_mean"] - per["true_ok_mean"]) < 0.05 * per["true_ok_mean"]
    # what it models, so that adwiser-dp --ack-model refuses it (dataplane/dp/ack_model_json.c)
    assert model["model"] == sta_frames.MODEL_KIND
    # The shipped coefficients work on raw µs, as the agent applies them (frame_boundary.c).
    m = model["m"]
    x = ack_dataset.features(np.array(pkts), m)[m:]
    p = 1 / (1 + np.exp(-(model["intercept"] + x @ np.array(model["coef"]))))
    decided = np.zeros(len(pkts), dtype=np.int8)
    decided[0] = 1
    decided[m:] = p >= model["threshold"]
    assert abs(int(decided.sum()) - len(sizes)) <= 0.02 * len(sizes)


def test_slot_errors_set_the_estimate_beside_decoded_and_sent_mpdus(tmp_path: Path):
    _synthetic_run(tmp_path, 3000, seed=3)
    cap = sta_frames.captures([tmp_path])[0]
    row = sta_frames.slot_errors(cap, cap.labels)
    # With the true boundaries the estimate is the truth, slot by slot, but for the A-MPDU at a slot's edge: it
    # counts in the slot of its PPDU's start for the truth, of its first packet's arrival for the estimate.
    assert row["slots"] >= 3
    assert row["rmse_vs_ok"] < 0.05
    assert abs(row["true_ok_over_est"]["median"] - 1.0) < 0.005
    assert row["true_sent_mean"] == row["true_ok_mean"]  # nothing lost in this capture


def test_the_shipped_model_says_it_is_the_sta_frame_model():
    # adwiser-sta-agent --model refuses a file of another kind (dataplane/dp/ack_model_json.c checks the same names)
    assert json.loads(sta_frames.MODEL.read_text())["model"] == sta_frames.MODEL_KIND == "adwiser-sta-frame-classifier"
