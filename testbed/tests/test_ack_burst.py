"""The ACK-burst estimator's offline side (issue 9; 001 §4.1) on a synthetic capture: alignment of the
appliance's frames with the emulator's ids, labels from the A-MPDU each ACK answers, the features the
dataplane computes, the burst accounting, and the folding of the scaler into raw coefficients. No network."""
from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from runner import ack_burst_train, ack_dataset

SRV = bytes.fromhex("02ad00000001")
STA = ack_dataset.STA1_MAC


def _tcp_frame(to_sta: bool, seq: int, ack: int, payload: int) -> bytes:
    eth = (STA + SRV if to_sta else SRV + STA) + b"\x08\x00"
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 20 + payload, 0, 0, 64, 6, 0, bytes(4), bytes(4))
    sport, dport = (5401, 40000) if to_sta else (40000, 5401)
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, ack, 5 << 4, 0x10, 65535, 0, 0)
    return eth + ip + tcp + bytes(payload)


def _ppdu(src: str, dst: str, start_us: int, frame_len: int, ids: list[int], ok_mask: str) -> dict[str, object]:
    sub = [frame_len + 28] * len(ids)
    return {"start_us": start_us, "src": src, "dst": dst, "mpdus": len(ids), "ok": ok_mask.count("1"),
            "bytes": sum(sub) + sum(-x % 4 for x in sub[:-1]), "ids": ids, "ok_mask": ok_mask}


def _write_capture(run: Path, ampdus: list[int], gap_us: int = 2000,
                   uplink: list[tuple[list[int], str]] | None = None) -> None:
    """Downlink A-MPDUs of the given sizes; the STA ACKs every 2 segments, 30 µs apart, after each one. `uplink`
    groups the ACKs (numbered from 0 in order) into the STA's PPDUs, each with its ok mask: an MPDU lost there
    goes again in a later PPDU of the list."""
    recs, pkts, t, seq, next_id = [], [], 1_000_000_000, 1, 1
    for n in ampdus:
        ids = []
        for _ in range(n):
            pkts.append((t, _tcp_frame(True, seq, 1, 1448)))
            seq += 1448
            ids.append(next_id)
            next_id += 1
            t += 10_000
        recs.append(_ppdu("ap1", "sta1", t // 1000, len(_tcp_frame(True, 0, 0, 1448)), ids, "1" * n))
        t += 500_000
        acked = seq - 1448 * n
        for k in range(0, n, 2):
            acked = min(acked + 2 * 1448, seq)
            pkts.append((t, _tcp_frame(False, 1, acked, 0)))
            t += 30_000
        t += gap_us * 1000
    ack_len = len(_tcp_frame(False, 0, 0, 0))
    for k, (acks, ok_mask) in enumerate(uplink or []):
        recs.append(_ppdu("sta1", "ap1", 10 * k, ack_len, [100_000 + a for a in acks], ok_mask))
    with open(run / "ap1.pcap", "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for ts, f in pkts:
            fh.write(struct.pack("<IIII", ts // 1_000_000_000, ts % 1_000_000_000, len(f), len(f)) + f)
    (run / "groundtruth.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (run / "meta.json").write_text(json.dumps({"rate_mbit": 50, "received_mbps": 49.0}))


def test_labels_mark_the_first_ack_of_each_ampdu(tmp_path: Path) -> None:
    _write_capture(tmp_path, [1, 4, 6, 2, 8])
    c = ack_dataset.build(tmp_path)
    assert c.check["ppdus_aligned_frac"] == 1.0 and c.check["mpdu_overhead_bytes"] == 28
    assert list(c.ack_ppdu) == [0, 1, 1, 2, 2, 2, 3, 4, 4, 4, 4]
    assert list(c.labels) == [0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0]
    assert list(c.ppdu_mpdus) == [1, 4, 6, 2, 8]
    assert list(c.ack_segs) == [0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]


def test_acks_are_given_the_uplink_ppdu_that_released_them_at_the_ap(tmp_path: Path) -> None:
    # 11 ACKs; the first MPDU of the third uplink PPDU is lost and goes again in the fourth, which releases it
    # and the two ACKs held behind it in the AP's reorder buffer.
    _write_capture(tmp_path, [1, 4, 6, 2, 8], uplink=[([0], "1"), ([1, 2], "11"), ([3, 4, 5], "011"),
                                                       ([3, 6, 7], "111"), ([8, 9, 10], "111")])
    c = ack_dataset.build(tmp_path)
    assert c.check["uplink_ppdus_aligned_frac"] == 1.0
    assert list(c.ack_uplink) == [0, 1, 1, 3, 3, 3, 3, 3, 4, 4, 4]


def test_boundaries_inside_an_uplink_burst_are_out_of_reach_of_arrival_times(tmp_path: Path) -> None:
    # A-MPDUs answered by ACKs 0 | 1-2 | 3-5 | 6 | 7-10 (labels above); the STA sends the ACKs of A-MPDUs 1
    # and 2 in one PPDU, and of 3 and 4 in another: of the 4 boundaries, 2 start an uplink burst.
    _write_capture(tmp_path, [1, 4, 6, 2, 8],
                   uplink=[([0], "1"), ([1, 2, 3, 4, 5], "11111"), ([6, 7, 8, 9, 10], "11111")])
    reach = ack_dataset.boundary_ceiling(ack_dataset.build(tmp_path))
    assert reach["recall"] == 0.5 and reach["f1"] == round(2 * 0.5 / 1.5, 4)
    assert reach["f1_burst_starts"] == round(2 * 2 / (2 * 2 + 0 + 2), 4)
    assert reach["ampdus_per_burst"] == 2.0


def test_features_are_the_last_m_gaps_in_us_and_their_sd() -> None:
    t = np.array([0, 10_000, 30_000, 60_000, 100_000])
    x = ack_dataset.features(t, 3)
    assert np.isnan(x[:3]).all()
    assert list(x[3, :3]) == [10.0, 20.0, 30.0] and abs(x[3, 3] - np.std([10, 20, 30])) < 1e-12
    assert list(x[4, :3]) == [20.0, 30.0, 40.0]


def test_bursts_count_acknowledged_segments_between_boundaries() -> None:
    t = np.arange(8)
    segs = np.array([0, 2, 2, 2, 2, 0, 2, 2])
    first = np.array([0, 0, 0, 1, 0, 1, 0, 1])
    ends, sizes = ack_dataset.bursts(t, segs, first)
    assert list(sizes) == [4, 4, 2] and list(ends) == [3, 5, 7]


def test_folded_coefficients_give_the_pipelines_probabilities() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(50, 20, size=(400, 3))
    y = (x[:, 0] + rng.normal(0, 5, 400) > 55).astype(int)
    model = ack_burst_train._pipeline().fit(x, y)
    b, w = ack_burst_train.fold_scaler(model)
    p = 1 / (1 + np.exp(-(b + x @ np.array(w))))
    assert np.max(np.abs(p - model.predict_proba(x)[:, 1])) < 1e-9


def test_a_refit_of_the_classifier_keeps_the_per_sta_count_tables_fitted_on_other_runs(tmp_path: Path,
                                                                                       monkeypatch) -> None:
    # ack_scale.py and ack_gap.py write scale_by_stas and gap_by_stas_us into the same file from the aggregation
    # runs; a re-run of ack_burst_train (as after the dataplane captures) refits only the classifier, and once
    # dropped the gap table the dataplane then used no least gap with 3-5 STAs.
    model_out, results_out = tmp_path / "model.json", tmp_path / "results.json"
    tables = {"scale_by_stas": [0.5, 0.6], "scale_by_stas_training": {"runs": 2},
              "gap_by_stas_us": [0, 1000], "gap_by_stas_training": {"runs": 2}}
    model_out.write_text(json.dumps({"model": "adwiser-ack-burst-classifier", "version": 1, "m": 5, **tables}))
    fitted = {"model": "adwiser-ack-burst-classifier", "version": 8, "m": 1, "intercept": -2.0, "coef": [0.001, 0.0]}
    doc = {"per_rate": [], "m": 1, "cv_f1": 0.5, "m_sweep": []}
    monkeypatch.setattr(ack_burst_train, "train", lambda *a: {"model": dict(fitted), "doc": doc})
    assert ack_burst_train.main(["--model-out", str(model_out), "--results-out", str(results_out)]) == 0
    written = json.loads(model_out.read_text())
    assert {k: written.get(k) for k in tables} == tables
    assert written["m"] == 1 and written["version"] == 8
