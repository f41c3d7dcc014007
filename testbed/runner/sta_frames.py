"""The STA-side agent's A-MPDU boundary classifier (SPEC §3.7; 001 §4): its
training on the emulator's ground truth and its evaluation, like 001 Fig 13.

adwiser-sta-agent (dataplane/agent/) timestamps every unicast IP packet its
STA receives (kernel receive timestamps) and, with `--log`, writes one line
per packet: the receive time (Unix ns) and its own boundary decision. Here
each packet is labelled from wlan-emu's ground truth: the emulator hands an
MPDU to the STA's interface as the receiver decodes it, during the PPDU that
carried it, so the packet belongs to the last PPDU to that STA (with a
decoded MPDU) that started before it arrived (a packet a MAC retransmission
released from the STA's reordering hold comes with the retransmission's
PPDU, as it would from a real driver). Label 1 = the first packet of a new
PPDU. Ground-truth and agent clocks meet through wlan-emu's `t0_unix_ns`.

Model: logistic regression (scikit-learn) on x = [t_{i-m+1} .. t_i, sigma_i]
(inter-arrival times at the STA, µs, and their standard deviation), the
same features and coefficient file as the appliance's ACK-burst classifier
(runner/ack_burst_train.py, adwiser/ack_model.h); m by cross-validation,
5 folds in time within every capture, the threshold maximising F1.

    python -m runner.sta_frames fit RUN_DIR ...    # captures of runner.aggtarget --capture-sta

runner.aggtarget evaluates the agents of every run they ran in (`sta_agent` per pair: their own decisions
against the truth).

Output of `fit`: configs/sta_frame_model.json and results/sta-frame-estimator.json.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import f1_score

from . import ack_burst_train, aggtarget_air, result_file
from .build_commit import build_commit
from .jsonl import json_records

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "configs" / "sta_frame_model.json"
RESULTS = Path(__file__).resolve().parents[1] / "results" / "sta-frame-estimator.json"
# 1 was fitted on captures from before the air model's 802.11 fixes (57e7319); 2 is the same format refitted after them;
# 3 refitted after the backoff fix of 84693aa; 4 after the BlockAck-rate correction of 7413587.
MODEL_VERSION = 4
# Its "model" member: what it models; the readers refuse the appliance's ACK-burst model (ack_scale.MODEL_KIND,
# the same format) as this one, naming the member.
MODEL_KIND = "adwiser-sta-frame-classifier"
SLOT_NS = 500_000_000   # Δ of the controller (000 §VI)
N_MAX = 64              # 802.11ac BlockAck window
# A packet is taken to come from a PPDU only once that PPDU has been on the air this long (µs): the first MPDU
# of a PPDU cannot be decoded before its preamble (36 µs or more) has passed, and a packet of the previous
# PPDU delivered a little late must not be credited to the next one.
PREAMBLE_US = 36


@dataclass
class StaCapture:
    """One STA's packets in one run, labelled."""
    name: str                # "<run>/<sta>"
    t_ns: np.ndarray         # kernel receive times, Unix ns
    agent_first: np.ndarray  # the agent's own boundary decisions (its --log)
    ppdu: np.ndarray         # index of the PPDU each packet came in (into starts_us), -1 = before any
    labels: np.ndarray       # 1 = first packet of its PPDU
    starts_us: np.ndarray    # the STA's PPDUs with a decoded MPDU: start (µs, ground-truth clock)
    mpdus: np.ndarray        # their MPDUs sent
    ok: np.ndarray           # their MPDUs decoded
    t0_unix_ns: int


def read_log(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The agent's --log: receive times (Unix ns) and its boundary flags, in receive order."""
    rows = np.loadtxt(path, dtype=np.int64, ndmin=2) if path.stat().st_size else np.zeros((0, 2), dtype=np.int64)
    return rows[:, 0], rows[:, 1].astype(np.int8)


def label(t_ns: np.ndarray, starts_us: np.ndarray, t0_unix_ns: int) -> tuple[np.ndarray, np.ndarray]:
    """Per packet the PPDU it came in and whether it is that PPDU's first packet (see the module text)."""
    v_us = (t_ns - t0_unix_ns).astype(np.float64) / 1000.0  # in integer ns first: float64 Unix ns step by 256 ns
    idx = np.searchsorted(starts_us.astype(np.float64), v_us - PREAMBLE_US, side="right") - 1
    first = np.ones(len(idx), dtype=np.int8)
    first[1:] = idx[1:] != idx[:-1]
    return idx, first


def load(log: Path, name: str, ppdus: list[dict[str, Any]], t0_unix_ns: int) -> StaCapture:
    """A STA's agent log labelled from its AP's data PPDUs to it (aggtarget_air.data_ppdus)."""
    t_ns, agent_first = read_log(log)
    ppdus = [r for r in ppdus if int(r.get("ok") or 0) > 0]
    starts = np.array([int(r["start_us"]) for r in ppdus], dtype=np.int64)
    idx, first = label(t_ns, starts, t0_unix_ns)
    return StaCapture(name, t_ns, agent_first, idx, first, starts, np.array([int(r["mpdus"]) for r in ppdus]),
                      np.array([int(r["ok"]) for r in ppdus]), t0_unix_ns)


def run_captures(run: Path, mode: str, ppdus: list[dict[str, Any]], t0_unix_ns: int,
                 pairs: list[tuple[str, str]]) -> list[StaCapture]:
    """The captures of one run, per pair whose agent left a log; ppdus: the run's data PPDUs
    (aggtarget_air.data_ppdus, read once per run)."""
    out = []
    for ap, sta in pairs:
        log = run / f"{mode}-sta-agent-{sta}.packets"
        if log.exists():
            out.append(load(log, f"{run.name}/{sta}", [r for r in ppdus if r["pair"] == f"{ap}/{sta}"], t0_unix_ns))
    return out


def captures(runs: list[Path]) -> list[StaCapture]:
    """The controlled runs of `runner.aggtarget --capture-sta` (their kept ground truth and emulator stats)."""
    out = []
    for run in runs:
        gt, stats = run / "aggtarget-groundtruth.jsonl", run / "aggtarget-wlan-emu.stats.json"
        logs = sorted(run.glob("aggtarget-sta-agent-*.packets"))
        if not logs or not gt.exists() or not stats.exists():
            raise SystemExit(f"sta_frames: {run} has no agent logs with their ground truth "
                             "(python -m runner.aggtarget <scenario> --modes aggtarget --capture-sta)")
        t0 = json.loads(stats.read_text()).get("t0_unix_ns")
        if not isinstance(t0, int):
            raise SystemExit(f"sta_frames: {stats} has no t0_unix_ns")
        stas = [log.name[len("aggtarget-sta-agent-"):-len(".packets")] for log in logs]
        ap_of = _aps_of(gt)
        missing = [sta for sta in stas if sta not in ap_of]
        if missing:
            raise SystemExit(f"sta_frames: {gt} has no PPDU to {', '.join(missing)}")
        pairs = [(ap_of[sta], sta) for sta in stas]
        out += run_captures(run, "aggtarget", aggtarget_air.data_ppdus(gt, pairs), t0, pairs)
    return out


def _aps_of(gt: Path) -> dict[str, str]:
    """Each receiver's AP: the sender of the first data PPDU to it in the ground truth (one pass over the log)."""
    out: dict[str, str] = {}
    for rec in json_records(gt):
        if rec.get("mpdus"):
            out.setdefault(str(rec.get("dst")), str(rec.get("src")))
    return out


def frame_sizes(first: np.ndarray, t_ns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A-MPDUs as the agent forms them from boundary flags: start time and packets of each (capped at N_MAX)."""
    starts = np.flatnonzero(first)
    if len(starts) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    sizes = np.diff(np.append(starts, len(first)))
    return t_ns[starts], np.minimum(sizes, N_MAX).astype(float)


def slot_errors(c: StaCapture, first: np.ndarray) -> dict[str, Any]:
    """Estimated against true aggregation level per Δ slot (slots with 10 A-MPDUs or more): the true level is
    the mean decoded MPDUs per PPDU (what MAC timestamps show), beside the MPDUs sent per PPDU (what the
    emulator's ground-truth feed gives the loop), both over the PPDUs that delivered an MPDU (the capture's)."""
    if len(c.t_ns) == 0:
        return {"slots": 0}
    est_t, est_n = frame_sizes(first, c.t_ns)
    t0 = int(c.t_ns[0])
    true_t = c.t0_unix_ns + c.starts_us * 1000
    rows = []
    for s in np.unique((est_t - t0) // SLOT_NS):
        em = (est_t - t0) // SLOT_NS == s
        tm = (true_t - t0) // SLOT_NS == s
        if em.sum() >= 10 and tm.sum() >= 10:
            rows.append((float(est_n[em].mean()), float(c.ok[tm].mean()), float(c.mpdus[tm].mean())))
    if not rows:
        return {"slots": 0}
    a = np.array(rows)
    ratio = a[:, 1] / a[:, 0]
    return {"slots": len(rows), "est_mean": round(float(a[:, 0].mean()), 3),
            "true_ok_mean": round(float(a[:, 1].mean()), 3), "true_sent_mean": round(float(a[:, 2].mean()), 3),
            "rmse_vs_ok": round(math.sqrt(float(np.mean((a[:, 0] - a[:, 1]) ** 2))), 3),
            "true_ok_over_est": {"median": round(float(np.median(ratio)), 3), "min": round(float(ratio.min()), 3),
                                 "max": round(float(ratio.max()), 3)}}


def _with_warmup(pred_rows: np.ndarray, m: int) -> np.ndarray:
    """Decisions for every packet: the first opens an A-MPDU, the next m - 1 join it (frame_boundary.c)."""
    first = np.zeros(len(pred_rows) + m, dtype=np.int8)
    first[0] = 1
    first[m:] = pred_rows
    return first


def fit(runs: list[Path], m_sweep: list[int]) -> dict[str, Any]:
    caps = [c for c in captures(runs) if len(c.t_ns) > 100]
    if not caps:
        raise SystemExit("sta_frames: no capture with packets")
    series = [(c.t_ns, c.labels) for c in caps]
    sweep = []
    for m in m_sweep:
        x, y, folds, w, rows = ack_burst_train.dataset(series, m)
        pred = ack_burst_train.out_of_fold(x, y, folds, w)
        sweep.append({"m": m, "f1": round(ack_burst_train.macro_f1(y, pred, rows), 4)})
    m = max(sweep, key=lambda r: (r["f1"], -r["m"]))["m"]
    x, y, folds, w, rows = ack_burst_train.dataset(series, m)
    pred = ack_burst_train.out_of_fold(x, y, folds, w)
    per = []
    for i, c in enumerate(caps):
        first = _with_warmup(pred[rows[i]], m)
        per.append({"capture": c.name, "packets": int(len(c.t_ns)), "ppdus": int(len(c.starts_us)),
                    "f1": round(float(f1_score(c.labels, first, zero_division=0)), 4),
                    "ceiling_gap_us": _gap_stats(c), **slot_errors(c, first)})
    final, threshold = ack_burst_train._fit(x, y, w)
    b, coef = ack_burst_train.fold_scaler(final)
    p_raw = 1 / (1 + np.exp(-(b + x @ np.array(coef))))
    assert float(np.max(np.abs(p_raw - final.predict_proba(x)[:, 1]))) < 1e-6
    cv_f1 = round(float(np.mean([p["f1"] for p in per])), 4)
    model = {"model": MODEL_KIND, "version": MODEL_VERSION,
             "m": m, "intercept": b, "coef": coef, "threshold": threshold, "n_max": N_MAX, "scale": 1.0,
             "features": "t_{i-m+1..i}: inter-arrival times of the unicast IP packets the STA receives (kernel "
                         "receive timestamps) in microseconds, oldest first; then their population standard "
                         "deviation",
             "training": {"method": "scikit-learn LogisticRegression on standardised features (folded in here); "
                                    "threshold maximising F1 on the training data; labels: the PPDU each packet "
                                    "came in, from wlan-emu's ground truth (testbed/runner/sta_frames.py)",
                          "data": "adwiser-sta-agent --log in the STA namespaces of runner.aggtarget "
                                  "--capture-sta runs (802.11ac 80 MHz air): " + ", ".join(r.name for r in runs),
                          "rows": int(len(y)), "cv_f1": cv_f1, "commit": build_commit(),
                          "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}}
    return {"model": model, "doc": {
        "what": "STA-side A-MPDU boundary classifier (001 §4.1) on kernel receive timestamps, against wlan-emu's "
                "ground truth; out-of-fold (5 folds in time within each capture)",
        "m": m, "m_sweep": sweep, "cv_f1": cv_f1, "per_capture": per, "model_version": MODEL_VERSION,
        "written_unix": round(time.time(), 3), "commit": build_commit()}}


def _gap_stats(c: StaCapture) -> dict[str, float]:
    """Inter-arrival times inside a PPDU and at a PPDU boundary (µs, medians and the overlap): how far apart the
    two classes are in the simplest feature."""
    ia = np.diff(c.t_ns).astype(np.float64) / 1000.0
    lab = c.labels[1:] == 1
    if lab.all() or not lab.any():
        return {}
    inside, at = ia[~lab], ia[lab]
    return {"inside_p50": round(float(np.median(inside)), 1), "inside_p99": round(float(np.percentile(inside, 99)), 1),
            "boundary_p1": round(float(np.percentile(at, 1)), 1), "boundary_p50": round(float(np.median(at)), 1)}


def evaluate(run: Path, mode: str, ppdus: list[dict[str, Any]], t0_unix_ns: int,
             pairs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The agent's own decisions in a run (its --log) against the ground truth (the run's data PPDUs), per STA."""
    out = []
    for c in run_captures(run, mode, ppdus, t0_unix_ns, pairs):
        out.append({"sta": c.name.split("/")[-1], "packets": int(len(c.t_ns)),
                    "f1": round(float(f1_score(c.labels, c.agent_first, zero_division=0)), 4) if len(c.t_ns) else None,
                    **slot_errors(c, c.agent_first)})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fit")
    f.add_argument("runs", type=Path, nargs="+")
    f.add_argument("--m-sweep", default="1,2,4,8,16")
    f.add_argument("--model-out", type=Path, default=MODEL)
    f.add_argument("--results-out", type=Path, default=RESULTS)
    a = ap.parse_args(argv)
    sweep = [int(v) for v in a.m_sweep.split(",") if v.strip()]
    if not sweep or any(not 1 <= v <= 64 for v in sweep):
        ap.error("--m-sweep values must be 1..64 (ADW_ACK_MODEL_MAX_M)")
    out = fit(a.runs, sweep)
    result_file.write_json(a.model_out, out["model"])
    result_file.write_json(a.results_out, out["doc"])
    for p in out["doc"]["per_capture"]:
        print(f"{p['capture']:40s} F1 {p['f1']:.3f}  est {p.get('est_mean')} true(ok) {p.get('true_ok_mean')} "
              f"sent {p.get('true_sent_mean')} slots {p['slots']}  gaps {p['ceiling_gap_us']}")
    print(f"m = {out['doc']['m']}; mean F1 {out['doc']['cv_f1']}; sweep {out['doc']['m_sweep']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
