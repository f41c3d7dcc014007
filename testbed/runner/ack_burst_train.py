"""Offline training of the ACK-burst frame-boundary classifier (issue 9; 001 §4.1)
and its evaluation against the emulator's ground truth, like 001 Fig 13.

Input: the captures of runner/ack_capture.py (results/runs/ack-burst/<rate>/),
labelled by runner/ack_dataset.py. Model: logistic regression (scikit-learn)
on x = [t_{i-m+1} .. t_i, sigma_i] (ACK inter-arrival times at the appliance,
µs, and their standard deviation), one estimator for every send rate.

Each capture weighs the same in the fit (001 collects as many packets at each
rate); m is chosen by cross-validation among --m-sweep unless given, the
decision threshold maximises F1 on the training data.

Evaluation is out-of-fold (5 folds; fold k is the k-th fifth, in time, of
every capture, so each fold holds every rate): per send rate the F1 score of
the boundary labels, and the aggregation level the appliance would report
(scale x segments acknowledged per estimated burst, as
dataplane/core/ack_burst.c counts them; the scale corrects the consistent
offset, 001 §4.2, and is fitted leaving the rate out) against the ground truth (MPDUs per A-MPDU of the AP -> STA
PPDUs), over the whole capture and per 0.5 s slot (the controller's Δ).
The m = 1 threshold estimator (no sigma) is the paper's baseline.

Output: configs/ack_burst_model.json (coefficients fitted on all captures,
the standardisation folded in, so the dataplane uses raw µs) and
results/ack-burst-estimator.json.

    python -m runner.ack_burst_train [--m 20] [--runs DIR]
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from . import ack_dataset, ack_scale, result_file
from .build_commit import build_commit

REPO = Path(__file__).resolve().parents[2]
RUNS = Path(__file__).resolve().parents[1] / "results" / "runs" / "ack-burst"
RUNS_DP = Path(__file__).resolve().parents[1] / "results" / "runs" / "ack-burst-dp"
RESULTS = Path(__file__).resolve().parents[1] / "results" / "ack-burst-estimator.json"
MODEL = REPO / "configs" / "ack_burst_model.json"
FOLDS = 5
SLOT_NS = 500_000_000  # Δ of the controller (000 §VI, 0.5 s)
N_MAX = 64             # 802.11ac BlockAck window: the estimate is capped there (001 §4.1)
MODEL_VERSION = ack_scale.MODEL_VERSION
# Fitted on other runs (ack_scale.py, ack_gap.py, the aggregation scenarios): a re-fit of the classifier keeps them.
KEPT = ("scale_by_stas", "scale_by_stas_training", "gap_by_stas_us", "gap_by_stas_training")


def _pipeline() -> Any:
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))


def dataset(series: list[tuple[np.ndarray, np.ndarray]], m: int, sigma: bool = True
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """From each capture's arrival times (ns) and boundary labels: the pooled rows (arrivals i >= m), their
    labels, fold numbers (fold k = the k-th fifth in time of every capture), sample weights (every capture weighs
    the same in total, as 001 §4.1 collects the same number of packets at each rate), and per capture its row
    indices. Used for the ACKs at the appliance here and for the packets at the STA (sta_frames.py)."""
    xs, ys, folds, ws, rows = [], [], [], [], []
    off = 0
    for t_ns, labels in series:
        x = ack_dataset.features(t_ns, m)
        if not sigma:
            x = x[:, :m]
        keep = np.arange(m, len(t_ns))
        xs.append(x[keep])
        ys.append(labels[keep])
        folds.append((np.arange(len(keep)) * FOLDS) // max(len(keep), 1))
        ws.append(np.full(len(keep), 1.0 / max(len(keep), 1)))
        rows.append(off + np.arange(len(keep)))
        off += len(keep)
    w = np.concatenate(ws)
    return np.vstack(xs), np.concatenate(ys), np.concatenate(folds), w / w.mean(), rows


THRESHOLDS = np.round(np.arange(0.05, 0.96, 0.05), 2)


def _series(caps: list[ack_dataset.Capture]) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(c.ack_t_ns, c.labels) for c in caps]


def _fit(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[Any, float]:
    """The pipeline and the decision threshold that maximises F1 on its own training data (boundaries are a
    minority class, so 0.5 under-calls them; 001 §4.1 likewise optimises its baseline's threshold)."""
    model = _pipeline().fit(x, y, logisticregression__sample_weight=w)
    p = model.predict_proba(x)[:, 1]
    best = max(THRESHOLDS, key=lambda t: f1_score(y, p >= t, sample_weight=w, zero_division=0))
    return model, float(best)


def out_of_fold(x: np.ndarray, y: np.ndarray, folds: np.ndarray, w: np.ndarray) -> np.ndarray:
    pred = np.zeros(len(y), dtype=np.int8)
    for k in range(FOLDS):
        test = folds == k
        model, th = _fit(x[~test], y[~test], w[~test])
        pred[test] = model.predict_proba(x[test])[:, 1] >= th
    return pred


def macro_f1(y: np.ndarray, pred: np.ndarray, rows: list[np.ndarray]) -> float:
    """Mean over the captures (send rates, STAs) of their F1 (every capture counts the same)."""
    return float(np.mean([f1_score(y[r], pred[r], zero_division=0) for r in rows]))


def _slots(c: ack_dataset.Capture, m: int, pred_rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bursts as the dataplane forms them (raw segments per burst, uncapped) and, per Δ slot with at least 10
    bursts and 10 PPDUs, (raw estimate, true mean A-MPDU): PPDUs by the appliance-side send time of their first
    MPDU, bursts by the time of the ACK that ends them."""
    first = np.zeros(len(c.ack_t_ns), dtype=np.int8)  # the first m ACKs join the current burst (warm-up)
    first[m:] = pred_rows
    ends, sizes = ack_dataset.bursts(c.ack_t_ns, c.ack_segs, first)
    truth = c.ppdu_mpdus.astype(float)
    t0 = int(c.ack_t_ns[0]) if len(c.ack_t_ns) else 0
    pairs = []
    if len(c.ppdu_send_ns):
        ps = (c.ppdu_send_ns - t0) // SLOT_NS
        bs = (ends - t0) // SLOT_NS
        for s in np.unique(ps[ps >= 0]):
            tm, bm = ps == s, bs == s
            if tm.sum() >= 10 and bm.sum() >= 10:
                pairs.append((float(sizes[bm].mean()), float(truth[tm].mean())))
    arr = np.array(pairs).reshape(-1, 2)
    return sizes, arr[:, 0], arr[:, 1]


def fit_scale(est: np.ndarray, truth: np.ndarray) -> float:
    """The correction of the estimate's consistent offset (001 §4.2, Fig 13(d)): geometric mean of true / raw
    over the slots (a ratio, so slots at every level count alike)."""
    ok = (est > 0) & (truth > 0)
    return float(np.exp(np.mean(np.log(truth[ok]) - np.log(est[ok])))) if ok.any() else 1.0


def _evaluate(c: ack_dataset.Capture, sizes: np.ndarray, slot_est: np.ndarray, slot_true: np.ndarray,
              scale: float) -> dict[str, Any]:
    est_raw = float(np.minimum(sizes, N_MAX).mean()) if len(sizes) else float("nan")
    est = float(np.minimum(scale * sizes, N_MAX).mean()) if len(sizes) else float("nan")
    true = float(c.ppdu_mpdus.mean()) if len(c.ppdu_mpdus) else float("nan")
    err = np.minimum(scale * slot_est, N_MAX) - slot_true
    return {"true_mean_ampdu": round(true, 3), "est_mean_ampdu": round(est, 3), "est_raw": round(est_raw, 3),
            "scale": round(scale, 4), "error": round(est - true, 3),
            "rel_error": round((est - true) / true, 4) if true else None,
            "slot_rmse": round(math.sqrt(float(np.mean(np.square(err)))), 3) if len(err) else None,
            "slots": len(err), "bursts": len(sizes), "ppdus": len(c.ppdu_mpdus)}



def fold_scaler(model: Any) -> tuple[float, list[float]]:
    """Coefficients on raw features of StandardScaler + LogisticRegression: w/s and b - Σ w μ / s."""
    sc, lr = model[0], model[1]
    w = lr.coef_[0] / sc.scale_
    b = float(lr.intercept_[0] - np.sum(lr.coef_[0] * sc.mean_ / sc.scale_))
    return b, [float(v) for v in w]


def _model_first(model: dict[str, Any], t_ns: np.ndarray) -> np.ndarray:
    """The shipped model's boundary decisions on ACK times, as the dataplane makes them (raw coefficients)."""
    m = int(model["m"])
    x = ack_dataset.features(t_ns, m)
    first = np.zeros(len(t_ns), dtype=np.int8)
    if len(t_ns) > m:
        z = model["intercept"] + x[m:] @ np.array(model["coef"])
        first[m:] = 1 / (1 + np.exp(-z)) >= model["threshold"]
    return first


def _reach(c: ack_dataset.Capture) -> dict[str, Any]:
    """The boundaries arrival times can show at all (ack_dataset.boundary_ceiling), when the way back is aligned."""
    if c.check.get("uplink_ppdus_aligned_frac", 0.0) < 0.99:
        return {"aligned": False}
    return {"aligned": True, **ack_dataset.boundary_ceiling(c)}


def evaluate_dataplane_runs(model: dict[str, Any], runs: Path) -> list[dict[str, Any]]:
    """Captures of `ack_capture --dataplane`: adwiser-dp paced the pair and ran the model itself. Per rate: goodput
    against the pacing rate, the dataplane's agg_est against the ground truth and against this model replayed on
    the appliance's capture, and the model's F1 there (it was not trained on these runs)."""
    out = []
    if not runs.is_dir():
        return out
    for d in sorted((d for d in runs.iterdir() if (d / "meta.json").exists()), key=lambda d: float(d.name)):
        meta = json.loads((d / "meta.json").read_text())
        c = ack_dataset.build(d)
        dp = meta.get("dataplane") or {}
        used = dict(dp.get("model") or model)  # replay the coefficients the dataplane ran with
        if "scale" not in used and used.get("version") == model["version"]:
            used["scale"] = model["scale"]  # captures of this version made before ack_capture recorded the scale
        first = _model_first(used, c.ack_t_ns)
        _, sizes = ack_dataset.bursts(c.ack_t_ns, c.ack_segs, first)
        sizes = sizes * float(used.get("scale", 1.0))
        _, sizes_new = ack_dataset.bursts(c.ack_t_ns, c.ack_segs, _model_first(model, c.ack_t_ns))
        sizes_new = sizes_new * float(model.get("scale", 1.0))
        out.append({"pace_mbit": c.rate_mbit, "received_mbps": meta.get("received_mbps"),
                    "goodput_expected_mbps": round(c.rate_mbit * 1448 / 1500, 3),
                    "true_mean_ampdu": round(float(c.ppdu_mpdus.mean()), 3) if len(c.ppdu_mpdus) else None,
                    "dp_agg_est": dp.get("agg_est_mean"),
                    "replay_agg_est": round(float(np.minimum(sizes, N_MAX).mean()), 3) if len(sizes) else None,
                    "model_agg_est": round(float(np.minimum(sizes_new, N_MAX).mean()), 3) if len(sizes_new) else None,
                    "f1": round(float(f1_score(c.labels[1:], first[1:], zero_division=0)), 4),
                    "reach": _reach(c), "model_version": used.get("version"), "model_scale": used.get("scale", 1.0), "dp_pace_bps": dp.get("pace_bps"), "dp_drops_tail": dp.get("drops_tail"),
                    "dp_mean_queue_pkts": dp.get("mean_queue_pkts"), "alignment": c.check})
    return out


def train(runs: Path, m_arg: int | None, m_sweep: list[int]) -> dict[str, Any]:
    dirs = sorted((d for d in runs.iterdir() if (d / "meta.json").exists()), key=lambda d: float(d.name))
    if not dirs:
        raise SystemExit(f"ack_burst_train: no captures under {runs} (python -m runner.ack_capture)")
    caps = [ack_dataset.build(d) for d in dirs]
    for c in caps:
        if c.check["ppdus_aligned_frac"] < 0.99:
            raise SystemExit(f"ack_burst_train: capture at {c.rate_mbit} Mbit/s is not aligned with its ground "
                             f"truth ({c.check}); re-run the capture")
    sweep = []
    for mm in sorted(set(m_sweep) | ({m_arg} if m_arg else set())):
        xs, ys, fs, ws, rs = dataset(_series(caps), mm)
        ps = out_of_fold(xs, ys, fs, ws)
        sweep.append({"m": mm, "f1": round(float(f1_score(ys, ps, zero_division=0)), 4),
                      "macro_f1": round(macro_f1(ys, ps, rs), 4),
                      "per_rate_f1": [round(float(f1_score(ys[r], ps[r], zero_division=0)), 4) for r in rs]})
    # m by cross-validation (001 §4.1 chose m = 20 from its Fig 13(a)) unless given.
    m = m_arg or max(sweep, key=lambda r: (r["macro_f1"], -r["m"]))["m"]
    x, y, folds, w_all, rows = dataset(_series(caps), m)
    pred = out_of_fold(x, y, folds, w_all)
    xb, yb, fb, wb, rows_b = dataset(_series(caps), 1, sigma=False)
    pred_b = out_of_fold(xb, yb, fb, wb)
    sl = [_slots(c, m, pred[rows[i]]) for i, c in enumerate(caps)]
    sl_b = [_slots(c, 1, pred_b[rows_b[i]]) for i, c in enumerate(caps)]

    def scale_without(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], i: int) -> float:
        """Leave-one-rate-out: the correction fitted on the other rates' slots."""
        others = [p for j, p in enumerate(parts) if j != i]
        return fit_scale(np.concatenate([p[1] for p in others]), np.concatenate([p[2] for p in others]))

    per_rate = []
    for i, c in enumerate(caps):
        r, rb = rows[i], rows_b[i]
        ev = _evaluate(c, *sl[i], scale_without(sl, i))
        evb = _evaluate(c, *sl_b[i], scale_without(sl_b, i))
        meta = json.loads((dirs[i] / "meta.json").read_text())
        per_rate.append({"send_rate_mbit": c.rate_mbit, "received_mbps": meta.get("received_mbps"),
                         "acks": int(len(c.ack_t_ns)), "boundaries": int(c.labels.sum()),
                         "f1": round(float(f1_score(y[r], pred[r], zero_division=0)), 4),
                         "reach": _reach(c), **ev,
                         "baseline_m1": {"f1": round(float(f1_score(yb[rb], pred_b[rb], zero_division=0)), 4),
                                         "est_mean_ampdu": evb["est_mean_ampdu"], "error": evb["error"],
                                         "slot_rmse": evb["slot_rmse"]},
                         "alignment": c.check})
    final, threshold = _fit(x, y, w_all)
    scale = fit_scale(np.concatenate([p[1] for p in sl]), np.concatenate([p[2] for p in sl]))
    b, w = fold_scaler(final)
    # The folded coefficients must give the pipeline's probabilities on raw features.
    p_raw = 1 / (1 + np.exp(-(b + x @ np.array(w))))
    assert float(np.max(np.abs(p_raw - final.predict_proba(x)[:, 1]))) < 1e-6
    overall_f1 = round(macro_f1(y, pred, rows), 4)
    model = {"model": ack_scale.MODEL_KIND, "version": MODEL_VERSION,
             "m": m, "intercept": b, "coef": w, "threshold": threshold, "n_max": N_MAX, "scale": scale,
             "features": "t_{i-m+1..i}: ACK inter-arrival times at the appliance in microseconds, oldest first; "
                         "then their population standard deviation",
             "training": {"method": "scikit-learn LogisticRegression on standardised features (folded in here); "
                                    "threshold maximising F1 on the training data; scale = geometric mean of "
                                    "true / estimated A-MPDU size over 0.5 s slots (out-of-fold boundaries)",
                          "data": "testbed/runner/ack_capture.py: TCP CUBIC server -> sta1 paced at the send "
                                  "rates, 802.11ac 80 MHz air (testbed/air/lab-2ap-2sta-vht80.json), labels from "
                                  "wlan-emu's ground truth",
                          "send_rates_mbit": [c.rate_mbit for c in caps], "rows": int(len(y)),
                          "cv_f1": overall_f1, "commit": build_commit(),
                          "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}}
    return {"model": model, "doc": {
        "what": "ACK-burst aggregation estimator (001 §4.1) on the appliance, against wlan-emu ground truth",
        "m": m, "folds": FOLDS, "slot_s": SLOT_NS / 1e9, "n_max": N_MAX, "cv_f1": overall_f1,
        "baseline_m1_cv_f1": round(macro_f1(yb, pred_b, rows_b), 4), "m_chosen_by": "argument" if m_arg else
        "cross-validation (best mean per-rate F1 of the m sweep)",
        "per_rate": per_rate, "m_sweep": sweep, "model_version": MODEL_VERSION,
        "dataplane_runs": evaluate_dataplane_runs(model, RUNS_DP),
        "written_unix": round(time.time(), 3), "commit": build_commit()}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=Path, default=RUNS)
    ap.add_argument("--m", type=int, default=0,
                    help="inter-arrival times per feature vector (001: 20); 0 = the best of --m-sweep by CV")
    ap.add_argument("--m-sweep", default="1,5,10,20,40", help="m values for the F1-vs-m figure (Fig 13(a))")
    ap.add_argument("--model-out", type=Path, default=MODEL)
    ap.add_argument("--results-out", type=Path, default=RESULTS)
    a = ap.parse_args(argv)
    sweep = [int(v) for v in a.m_sweep.split(",") if v.strip()]
    if not 0 <= a.m <= 64 or not sweep or any(not 1 <= v <= 64 for v in sweep):
        ap.error("--m and --m-sweep values must be 1..64 (the dataplane's ADW_ACK_MODEL_MAX_M)")
    out = train(a.runs, a.m or None, sweep)
    if a.model_out.exists():
        old = json.loads(a.model_out.read_text())
        out["model"].update({k: old[k] for k in KEPT if k in old})
    result_file.write_json(a.model_out, out["model"])
    result_file.write_json(a.results_out, out["doc"])
    for r in out["doc"]["per_rate"]:
        print(f"{r['send_rate_mbit']:6g} Mbit/s  F1 {r['f1']:.3f} (m=1: {r['baseline_m1']['f1']:.3f})  "
              f"A-MPDU true {r['true_mean_ampdu']} est {r['est_mean_ampdu']} (m=1: "
              f"{r['baseline_m1']['est_mean_ampdu']})  slot RMSE {r['slot_rmse']}")
    print(f"m = {out['doc']['m']}; mean per-rate F1 {out['doc']['cv_f1']}; m sweep {out['doc']['m_sweep']}; "
          f"model -> {a.model_out}; results -> {a.results_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
