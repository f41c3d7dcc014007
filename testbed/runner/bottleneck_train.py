"""Fit of the bottleneck classifier (issue 9; 001 §5) on the runs of
runner/bottleneck_capture.py, and its held-out accuracy like 001 Fig. 19(a).

Features: what the controller computes every 0.5 s step
(controller/adwiser_controller/aggregation/bottleneck.py), read from the loop's
history: `agg_ratio` = mean of the last n = 5 aggregation samples / N_target of
the slot, and `loss` = L^p over the last p = 100 packets. The aggregation is
kept as a ratio to N_target (not the paper's raw N_j): under the policy the
WLAN-bottleneck operating point is N_target, which moves with T̄, N̄ and the
MCS (aggtarget-1sta: 28, -lowdelay: 20, -backhaul's N̄: 48), so a threshold on
raw N_j fitted at one T̄ would not hold at another; the ratio is also what the
controller already computes and records. The n samples are averaged (one
weight), as the controller does.

Labels (Y = 1: the backhaul is the bottleneck). Per run, from the backhaul's
rate B against the WLAN's capacity C (the mean rate the pair carries under the
policy without a backhaul limit, the `none` runs of the data set):
  * no backhaul limit, or B >= 1.15 x C_straight (the straight CUBIC rate of
    the committed aggtarget-1sta run): every step Y = 0;
  (C is taken per T̄: a tighter delay target caps the aggregation, and the
  rate, the WLAN gives the pair under the policy)
  * B <= 0.85 x C: per step, Y = 1 when the pacer's rate of the slot is at
    least 1.1 B (the backhaul is the narrower link), Y = 0 when it is at most
    0.9 B (the pacer is: start-up ramp), the steps in between are left out;
  * B in between: the run is left out (neither link clearly the narrower).
Steps the controller calls `unknown` (fewer than n samples) have no features.

Fit: scikit-learn LogisticRegression on standardised features (folded back
into raw-unit coefficients in the file), every run weighing the same, each
class weighing the same. Evaluation: leave-one-run-out (each run classified by
a model fitted without it), per backhaul rate and per bin of the rate carried
(the arrival rate at the AP, 001 Fig. 19(a)'s send rate): accuracy and F1 of
Y = 1, for the model's p > 0.5 and for the controller's verdict (p > 0.5 and
not pacer-limited, bottleneck.py (ii)). The hand-set-3 coefficients the runs
were captured with are scored on the same steps.

Output: configs/bottleneck_model.json (fitted on every labelled step),
results/bottleneck-classifier.json, and results/bottleneck-training-runs.json
(the runs' loop histories, compact; `--from-data` refits from it).

    python -m runner.bottleneck_train [--runs DIR | --from-data] [--model FILE] [--result FILE]
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

from . import result_file
from .build_commit import build_commit

REPO = Path(__file__).resolve().parents[2]
RUNS = Path(__file__).resolve().parents[1] / "results" / "runs" / "bottleneck"
RESULTS = Path(__file__).resolve().parents[1] / "results"
RESULT = RESULTS / "bottleneck-classifier.json"
DATA = RESULTS / "bottleneck-training-runs.json"   # the runs' loop histories, compact: the fit is redone from it
KEEP = ("ts", "n_target", "mu_n", "pace_bps", "delivered_bps", "agg_ratio", "loss", "p_backhaul", "bottleneck",
        "state")
MODEL = REPO / "configs" / "bottleneck_model.json"
# fitted-1: the interim fit of eb78004 (10 runs, T-bar 5 ms); fitted-2: 6be8c5a's 31 runs (2026-11-23); fitted-3:
# 28 runs on the air after the BlockAck-rate correction of 7413587 (2026-11-27).
MODEL_VERSION = "fitted-3"
FEATURES = ("agg_ratio", "loss")
PACER_SLACK = 0.10        # controller aggregation/loop.py: carried >= 90 % of x is pacer-limited
CLEAR_BELOW = 0.85        # B <= 0.85 C: the backhaul is the narrower link
CLEAR_ABOVE = 1.15        # B >= 1.15 C_straight: the WLAN is
STEP_MARGIN = 0.10        # per step: pacer rate >= 1.1 B (Y = 1) or <= 0.9 B (Y = 0)
RATE_BINS_MBIT = (0, 30, 50, 70, 90, 110, 130, 150, 1000)
HAND_SET_3 = (1.0, -6.0, 200.0)  # θ0, θ_N, θ_L of hand-set-3, for comparison


def straight_capacity_mbit() -> float | None:
    try:
        doc = json.loads((RESULTS / "aggtarget-1sta.json").read_text())
        return float(doc["runs"]["cubic"]["pairs"][0]["throughput_mbps"])
    except (OSError, KeyError, IndexError, ValueError, json.JSONDecodeError):
        return None


def load_runs(runs_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(runs_dir.glob("*.json"))]


def compact(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """What the fit needs of each run (its loop history cut to the classifier's inputs and the rates)."""
    out = []
    for r in runs:
        c = {k: r.get(k) for k in ("label", "backhaul_mbit", "t_bar_ms", "duration_s", "started_unix",
                                   "classifier", "throughput_mbps", "mean_ampdu", "mean_phy_mbps", "n_bar")}
        bh = r.get("backhaul") or {}
        c["backhaul_drop_queue"] = (bh.get("a_to_b") or {}).get("drop_queue") if bh else None
        c["loop"] = [{k: h.get(k) for k in KEEP} for h in r["loop"] if h.get("pair") in (None, "ap1/sta1")]
        out.append(c)
    return {"what": "loop histories of runner/bottleneck_capture.py runs (ap1/sta1), the bottleneck classifier's "
                    "training and held-out data", "runs": out}


def run_class(run: dict[str, Any], c_policy: float, c_straight: float) -> str:
    """'wlan', 'backhaul' or 'ambiguous' for the run as a whole (module docstring)."""
    b = run.get("backhaul_mbit")
    if b is None or b >= CLEAR_ABOVE * c_straight:
        return "wlan"
    if b <= CLEAR_BELOW * c_policy:
        return "backhaul"
    return "ambiguous"


def steps(run: dict[str, Any], cls: str) -> list[dict[str, Any]]:
    """The run's classified steps with their label, pacer-limited flag and carried rate."""
    out: list[dict[str, Any]] = []
    prev_pace: float | None = None
    b_bps = (run.get("backhaul_mbit") or 0.0) * 1e6
    for h in run["loop"]:
        pace, carried = h.get("pace_bps"), h.get("delivered_bps")
        slot_pace = prev_pace          # the rate the pacer ran at over the slot just measured
        if pace is not None:
            prev_pace = pace
        if h.get("agg_ratio") is None or h.get("loss") is None:
            continue
        if cls == "wlan":
            y: int | None = 0
        elif slot_pace is None:
            y = None
        elif slot_pace >= (1 + STEP_MARGIN) * b_bps:
            y = 1
        elif slot_pace <= (1 - STEP_MARGIN) * b_bps:
            y = 0
        else:
            y = None
        if y is None:
            continue
        pacer_limited = carried is not None and slot_pace is not None and carried >= (1 - PACER_SLACK) * slot_pace
        out.append({"x": [float(h["agg_ratio"]), float(h["loss"])], "y": y, "pacer_limited": pacer_limited,
                    "carried_mbit": (carried or 0.0) / 1e6, "p_hand": h.get("p_backhaul")})
    return out


def _pipeline() -> Any:
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000, class_weight="balanced"))


def _fit(rows: list[list[dict[str, Any]]]) -> Any:
    x = np.array([s["x"] for r in rows for s in r])
    y = np.array([s["y"] for r in rows for s in r])
    w = np.concatenate([np.full(len(r), 1.0 / len(r)) for r in rows])
    pipe = _pipeline()
    pipe.fit(x, y, logisticregression__sample_weight=w * len(rows))
    return pipe


def raw_coefficients(pipe: Any) -> tuple[float, list[float]]:
    """The standardisation folded in: logit = θ0 + Σ θ_k x_k on raw features."""
    sc, lr = pipe.named_steps["standardscaler"], pipe.named_steps["logisticregression"]
    coef = lr.coef_[0] / sc.scale_
    return float(lr.intercept_[0] - float(np.dot(coef, sc.mean_))), [float(c) for c in coef]


def _p(theta0: float, coef: list[float], x: list[float]) -> float:
    z = theta0 + sum(c * v for c, v in zip(coef, x))
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def _scores(ys: list[int], preds: list[int]) -> dict[str, Any]:
    n = len(ys)
    if n == 0:
        return {"steps": 0}
    acc = sum(1 for a, b in zip(ys, preds) if a == b) / n
    out: dict[str, Any] = {"steps": n, "backhaul_steps": int(sum(ys)), "accuracy": round(acc, 4)}
    # F1 of Y = 1 is defined only where there are backhaul steps or backhaul calls
    out["f1_backhaul"] = round(float(f1_score(ys, preds, zero_division=0)), 4) if (sum(ys) or sum(preds)) else None
    return out


def _order(key: str) -> float:
    """Groups in numeric order ("none", no backhaul limit, last)."""
    try:
        return float(key.split("-")[0].lstrip(">="))
    except ValueError:
        return math.inf


def _group(evald: list[dict[str, Any]], key: str) -> dict[str, Any]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for s in evald:
        groups.setdefault(str(s[key]), []).append(s)
    out: dict[str, Any] = {}
    for g, ss in sorted(groups.items(), key=lambda kv: _order(kv[0])):
        ys = [s["y"] for s in ss]
        out[g] = {"model": _scores(ys, [s["pred_model"] for s in ss]),
                  "verdict": _scores(ys, [s["pred_verdict"] for s in ss]),
                  "hand_set_3_model": _scores(ys, [s["pred_hand"] for s in ss])}
    return out


def _rate_bin(mbit: float) -> str:
    for lo, hi in zip(RATE_BINS_MBIT, RATE_BINS_MBIT[1:]):
        if lo <= mbit < hi:
            return f"{lo}-{hi}"
    return f">={RATE_BINS_MBIT[-1]}"



def train(runs: list[dict[str, Any]], model_path: Path = MODEL, result_path: Path = RESULT) -> dict[str, Any]:
    c_straight = straight_capacity_mbit()
    free: dict[float, list[float]] = {}
    for r in runs:
        if r.get("backhaul_mbit") is None:
            free.setdefault(float(r["t_bar_ms"]), []).append(r["throughput_mbps"])
    if not free or c_straight is None:
        raise SystemExit("need runs without a backhaul limit (none-*) and results/aggtarget-1sta.json's cubic run "
                         "to tell which link is the narrower")
    # the WLAN's rate under the policy depends on T̄ (a tighter delay target caps the aggregation)
    c_policy = {t: float(np.mean(v)) for t, v in free.items()}
    labelled: list[tuple[dict[str, Any], str, list[dict[str, Any]]]] = []
    left_out: list[str] = []
    for r in runs:
        c_t = c_policy.get(float(r["t_bar_ms"]))
        cls = run_class(r, c_t, c_straight) if c_t is not None else "ambiguous"
        ss = steps(r, cls) if cls != "ambiguous" else []
        if not ss:
            left_out.append(f"{r['label']} ({cls}, {len(r['loop'])} loop rows)")
            continue
        labelled.append((r, cls, ss))
    if len({s["y"] for _, _, ss in labelled for s in ss}) < 2:
        raise SystemExit("the labelled steps hold one class only: capture backhaul-limited and unlimited runs")
    # leave-one-run-out
    evald: list[dict[str, Any]] = []
    per_run: list[dict[str, Any]] = []
    for i, (r, cls, ss) in enumerate(labelled):
        others = [o for j, (_, _, o) in enumerate(labelled) if j != i]
        if len({s["y"] for o in others for s in o}) < 2:
            continue
        th0, coef = raw_coefficients(_fit(others))
        rows = []
        for s in ss:
            p = _p(th0, coef, s["x"])
            pm = int(p > 0.5)
            ph = _p(HAND_SET_3[0], list(HAND_SET_3[1:]), s["x"])
            row = {"y": s["y"], "pred_model": pm, "pred_verdict": int(pm and not s["pacer_limited"]),
                   "pred_hand": int(ph > 0.5), "backhaul_mbit": r.get("backhaul_mbit") or "none",
                   "t_bar_ms": r.get("t_bar_ms"),
                   "rate_bin_mbit": _rate_bin(s["carried_mbit"]), "p": p}
            rows.append(row)
        evald += rows
        tail = rows[len(rows) // 2:]
        per_run.append({"label": r["label"], "backhaul_mbit": r.get("backhaul_mbit"), "class": cls,
                        "t_bar_ms": r.get("t_bar_ms"), "captured_with": (r.get("classifier") or {}).get("version"),
                        "throughput_mbps": r["throughput_mbps"], "steps": len(rows),
                        "backhaul_steps": sum(x["y"] for x in rows),
                        "accuracy_model": round(sum(x["y"] == x["pred_model"] for x in rows) / len(rows), 4),
                        "accuracy_verdict": round(sum(x["y"] == x["pred_verdict"] for x in rows) / len(rows), 4),
                        "p_backhaul_second_half": [round(min(x["p"] for x in tail), 3),
                                                   round(max(x["p"] for x in tail), 3)] if tail else None})
    ys = [s["y"] for s in evald]
    pipe = _fit([ss for _, _, ss in labelled])
    th0, coef = raw_coefficients(pipe)
    model = {
        "model": "adwiser-bottleneck-classifier",
        "version": MODEL_VERSION,
        "features": list(FEATURES),
        "intercept": th0,
        "coef": dict(zip(FEATURES, coef)),
        "threshold": 0.5,
        "n_frames": 5,
        "p_packets": 100,
        "description": "P(backhaul) = 1/(1+exp(-(intercept + coef.agg_ratio*agg_ratio + coef.loss*loss))); "
                       "agg_ratio = mean of the last n aggregation samples / N_target of the slot, loss = L^p "
                       "(001 §5, controller aggregation/bottleneck.py)",
        "training": {
            "method": "scikit-learn LogisticRegression on standardised features (folded in here), class_weight "
                      "balanced, every run weighing the same",
            "data": "testbed/runner/bottleneck_capture.py: aggtarget mode (adwiser-dp pacing, controller loop), TCP "
                    "CUBIC server -> sta1, 802.11ac 80 MHz air, wan-emu backhaul at the rates below or none",
            "labels": "runner/bottleneck_train.py docstring",
            "runs": [r["label"] for r, _, _ in labelled],
            "backhaul_rates_mbit": sorted({r.get("backhaul_mbit") or 0.0 for r, _, _ in labelled}),
            "steps": len([s for _, _, ss in labelled for s in ss]),
            "fitted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "repo_head": build_commit(),
        },
    }
    result_file.write_json(model_path, model)
    doc = {
        "what": "bottleneck classifier (001 §5, Fig. 19(a)): leave-one-run-out accuracy and F1 (Y = 1: backhaul)",
        "model_file": str(model_path.relative_to(REPO)) if model_path.is_relative_to(REPO) else str(model_path),
        "model_version": MODEL_VERSION, "intercept": th0, "coef": dict(zip(FEATURES, coef)),
        "capacity_mbit": {"policy_no_backhaul_by_t_bar_ms": {str(t): round(c, 2) for t, c in c_policy.items()},
                          "straight_cubic": c_straight},
        "label_rule": {"backhaul_if_B_le_by_t_bar_ms": {str(t): round(CLEAR_BELOW * c, 1) for t, c in c_policy.items()},
                       "wlan_if_B_ge": round(CLEAR_ABOVE * c_straight, 1), "step_margin": STEP_MARGIN},
        "runs_left_out": left_out,
        "overall": {"model": _scores(ys, [s["pred_model"] for s in evald]),
                    "verdict": _scores(ys, [s["pred_verdict"] for s in evald]),
                    "hand_set_3_model": _scores(ys, [s["pred_hand"] for s in evald])},
        "by_backhaul_mbit": _group(evald, "backhaul_mbit"),
        "by_carried_rate_mbit": _group(evald, "rate_bin_mbit"),
        "by_t_bar_ms": _group(evald, "t_bar_ms"),
        "note": "hand_set_3_model scores hand-set-3's θ on the same feature values; the runs were not all captured "
                "under it (runs[].captured_with): a classifier in the loop holds the pair's rate, which shapes "
                "N_target and so agg_ratio, so this is not hand-set-3's closed-loop accuracy. The verdict adds "
                "the pacer-limited rule with the carried/paced rates of the loop history.",
        "runs": per_run,
    }
    result_file.write_json(result_path, doc)
    return doc


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="runner.bottleneck_train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=Path, default=RUNS, help="bottleneck_capture.py's run directory")
    ap.add_argument("--from-data", action="store_true", help=f"refit from {DATA.name} instead of --runs")
    ap.add_argument("--model", type=Path, default=MODEL)
    ap.add_argument("--result", type=Path, default=RESULT)
    ap.add_argument("--data", type=Path, default=DATA, help="where the compact runs are written / read")
    args = ap.parse_args(argv)
    if args.from_data:
        runs = json.loads(args.data.read_text())["runs"]
    else:
        runs = load_runs(args.runs)
        result_file.write_text(args.data, json.dumps(compact(runs), indent=None, separators=(",", ":")) + "\n")
    doc = train(runs, args.model, args.result)
    print(json.dumps({k: doc[k] for k in ("intercept", "coef", "capacity_mbit", "label_rule", "overall",
                                          "runs_left_out")}, indent=1))
    for r in doc["runs"]:
        print(f"  {r['label']:22s} {r['class']:9s} {r['throughput_mbps']:6.1f} Mbit/s steps {r['steps']:3d} "
              f"(Y=1 {r['backhaul_steps']:3d}) acc model {r['accuracy_model']:.3f} verdict "
              f"{r['accuracy_verdict']:.3f} p 2nd half {r['p_backhaul_second_half']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
