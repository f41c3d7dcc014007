"""adwiser-dp's ACK-burst estimate of a pair's aggregation level against the
emulator's ground truth, per Δ slot, and the scale that corrects it for the
number of STAs its AP serves (issue 9; 001 §4.1-4.2).

Why the scale depends on the STAs. A STA answers each A-MPDU with a burst of
TCP ACKs, but it must win the air to send them. With one STA the AP contends
with that STA alone and wins about every other time, so about two A-MPDUs'
ACKs come back in one uplink burst, and the raw segments per burst read about
twice the A-MPDU (the shipped scale, fitted on one STA, is 0.56). With five
STAs served in turn the STA's uplink gets out before the AP's next A-MPDU to
it, and one burst is one A-MPDU (the 5sta-ack run read 0.56 of the truth
with the one-STA scale). The number of STAs the AP is serving is what the
dataplane can see, so the scale is fitted per that number (`agg_stas` of the
dataplane's telemetry: the STAs of the pair's AP whose ACKs acknowledged
new data within the last ADW_ACK_ACTIVE_NS).

Per pair and slot the raw estimate is the segments per burst over the bursts
that ended in the slot (`agg_raw`, weighted by `agg_bursts`), the truth the
mean MPDUs of the pair's data PPDUs that started in the slot (every MPDU,
retransmissions included: μ̃_N as the STA sees it, 000 §IV). Fitted, as
ack_burst_train.fit_scale, as the geometric mean of truth / raw over the
slots with enough of both.

    python -m runner.ack_scale fit [--model configs/ack_burst_model.json]

fits the table from the controlled runs of the ground-truth scenarios
(mu_source "sta", where the dataplane's estimate runs but the loop does not
use it) and writes `scale_by_stas` into the model; the `-ack` scenarios, where
the loop runs on the estimate, are left out of the fit and are its test. A
model with a least gap per STA count (model v6) has its scale fitted at those
gaps by runner/ack_gap.py instead, on captured ACKs.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from . import result_file

RESULTS = Path(__file__).resolve().parents[1] / "results"
MODEL = Path(__file__).resolve().parents[2] / "configs" / "ack_burst_model.json"
SLOT_S = 0.5          # the controller's Δ (000 §VI)
MIN_BURSTS = 10       # a slot counts with at least this many ACK bursts of the pair ...
MIN_PPDUS = 10        # ... and this many of its data PPDUs (as ack_burst_train._slots)
MAX_STAS = 8          # the longest table the dataplane takes (ADW_ACK_MODEL_MAX_STAS)
MIN_SLOTS = 30        # slots a STA count needs for a scale of its own (15 s of one pair)
# Version of configs/ack_burst_model.json (ack_burst_train.py writes the rest of it): 1 was the hand-set m = 1
# baseline, 2 had no scale, 3 was fitted before wlan-emu had its own core, 4 had one scale for any number of STAs,
# 5 added scale_by_stas, 6 gap_by_stas_us (runner/ack_gap.py); 7 is 6's format refitted on the air after the
# 802.11 fixes of 57e7319 (BlockAck scoreboard, CW reset), which changed the A-MPDUs and the ACK bursts it learns;
# 8 is the same format refitted after 84693aa (a frame arriving on a busy medium with its post-backoff run out
# draws a backoff), which changed when the STAs' TCP ACKs reach the air; 9 is the same format refitted after
# 7413587 (the BlockAck at the highest basic rate not above the A-MPDU's reference rate).
MODEL_VERSION = 9
# Its "model" member: what it models. adwiser-sta-agent's classifier (sta_frames.MODEL_KIND) has the same format and
# ranges, so the readers (dataplane/dp/ack_model_json.c) refuse a file of the other kind, naming this member.
MODEL_KIND = "adwiser-ack-burst-classifier"


def of_kind(model: dict[str, Any], path: Path, tool: str) -> bool:
    """True if the ACK-burst model file read from path may be rewritten (then labelled as one): its "model" is
    this kind, or absent as in files written before the member existed; else says why not."""
    kind = model.get("model", MODEL_KIND)
    if kind != MODEL_KIND:
        print(f"{tool}: {path}: model: expected {MODEL_KIND!r}, got {kind!r}", file=sys.stderr)
        return False
    model["model"] = MODEL_KIND
    return True


def truth_by_slot(ppdus: list[dict[str, Any]], t0_unix_ns: int) -> dict[tuple[str, int], list[int]]:
    """The MPDUs of each data PPDU (aggtarget_air.data_ppdus, start_us counted from the emulator's t0_unix_ns)
    by (pair, Δ slot of its start in unix time)."""
    truth: dict[tuple[str, int], list[int]] = defaultdict(list)
    for p in ppdus:
        unix = t0_unix_ns / 1e9 + int(p["start_us"]) / 1e6
        truth[(str(p["pair"]), int(unix // SLOT_S))].append(int(p["mpdus"]))
    return truth


def slot_rows(entries: Iterable[tuple[float, dict[str, str]]], ppdus: list[dict[str, Any]],
              t0_unix_ns: int) -> list[dict[str, Any]]:
    """Per (pair, Δ slot) with enough bursts and PPDUs: the dataplane's raw estimate, its STA count (the most
    frequent agg_stas of the slot's bursts), the estimate it reported (agg_est) and the ground truth. `entries`
    are the dataplane's `tm:pair` records with their unix time (the Redis stream id); `ppdus` are
    aggtarget_air.data_ppdus of the run, whose start_us count from the emulator's t0_unix_ns."""
    bursts: dict[tuple[str, int], float] = defaultdict(float)
    segs: dict[tuple[str, int], float] = defaultdict(float)
    est: dict[tuple[str, int], float] = defaultdict(float)
    stas: dict[tuple[str, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for unix, e in entries:
        b = float(e.get("agg_bursts") or 0)
        raw = e.get("agg_raw")
        if b <= 0 or raw in (None, ""):
            continue
        key = (str(e.get("pair")), int(unix // SLOT_S))
        bursts[key] += b
        segs[key] += float(raw) * b
        est[key] += float(e.get("agg_est") or 0) * b
        stas[key][int(float(e.get("agg_stas") or 0))] += b
    truth = truth_by_slot(ppdus, t0_unix_ns)
    rows = []
    for key in sorted(bursts):
        t = truth.get(key, [])
        if bursts[key] >= MIN_BURSTS and len(t) >= MIN_PPDUS:
            rows.append({"pair": key[0], "slot": key[1], "stas": max(stas[key], key=lambda k: stas[key][k]),
                         "raw": round(segs[key] / bursts[key], 3), "est": round(est[key] / bursts[key], 3),
                         "truth": round(sum(t) / len(t), 3),
                         "bursts": int(bursts[key]), "ppdus": len(t)})
    return rows


def geo_ratio(rows: list[dict[str, Any]]) -> float | None:
    """Geometric mean of truth / raw (a ratio, so slots at every level count alike); None without rows."""
    ok = [r for r in rows if r["raw"] > 0 and r["truth"] > 0]
    return math.exp(sum(math.log(r["truth"] / r["raw"]) for r in ok) / len(ok)) if ok else None


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A pair's slots in brief: truth / raw and truth / the estimate the dataplane reported, over its slots."""
    if not rows:
        return {"slots": 0}
    g, ge = geo_ratio(rows), geo_ratio([dict(r, raw=r["est"]) for r in rows])
    return {"slots": len(rows), "stas": sorted({r["stas"] for r in rows}),
            "truth_over_raw": round(g, 4) if g else None,
            "truth_over_estimate": round(ge, 4) if ge else None}


def fit(rows: list[dict[str, Any]], min_slots: int = MIN_SLOTS) -> dict[int, dict[str, Any]]:
    """Per STA count with at least min_slots slots: the scale (geometric mean of truth / raw) and the slots and
    runs behind it. A count seen only in a few slots (the start and end of a run, while the STAs' transfers
    start and stop) is left to table()'s interpolation."""
    by: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if 1 <= r["stas"] <= MAX_STAS:
            by[r["stas"]].append(r)
    out = {}
    for k, rs in sorted(by.items()):
        g = geo_ratio(rs)
        if g is not None and len(rs) >= min_slots:
            out[k] = {"scale": g, "slots": len(rs), "runs": sorted({r.get("run", "") for r in rs})}
    return out


def interpolate(values: dict[int, float]) -> list[float]:
    """A per-STA-count table for counts 1 .. the largest given: a count without a value of its own takes the
    linear interpolation of its neighbours (the first given below it; the dataplane uses the last entry beyond
    the table)."""
    if not values:
        raise ValueError("no values to make a table of")
    ks = sorted(values)
    out = []
    for k in range(1, ks[-1] + 1):
        if k in values:
            out.append(values[k])
        elif k < ks[0]:
            out.append(values[ks[0]])
        else:
            lo = max(j for j in ks if j < k)
            hi = min(j for j in ks if j > k)
            out.append(values[lo] + (k - lo) / (hi - lo) * (values[hi] - values[lo]))
    return out


def table(fitted: dict[int, dict[str, Any]]) -> list[float]:
    """scale_by_stas for 1 .. the largest STA count fitted (interpolate)."""
    if not fitted:
        raise ValueError("no slots to fit a scale on")
    return [round(v, 4) for v in interpolate({k: v["scale"] for k, v in fitted.items()})]


def training_doc(method: str, scenarios: list[str], fitted: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """The model's record of how its scale_by_stas was fitted."""
    return {"method": f"{method}; a count with fewer than {MIN_SLOTS} slots interpolated between its neighbours",
            "scenarios": scenarios,
            "per_stas": {str(k): {"scale": round(v["scale"], 4), "slots": v["slots"], "runs": v["runs"]}
                         for k, v in fitted.items()},
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def training_rows(results: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The slots of the controlled runs of every ground-truth (mu_source "sta") aggtarget result, each tagged
    with its scenario."""
    rows, used = [], []
    for path in sorted(results.glob("aggtarget-*.json")):
        doc = json.loads(path.read_text())
        if doc.get("mu_source", "sta") != "sta":
            continue
        pairs = ((doc.get("runs") or {}).get("aggtarget") or {}).get("pairs") or []
        mine = [dict(r, run=doc["scenario"]) for p in pairs for r in (p.get("ack_slots") or [])]
        if mine:
            rows += mine
            used.append(doc["scenario"])
    return rows, used


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["fit"])
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--model", type=Path, default=MODEL)
    a = ap.parse_args(argv)
    rows, used = training_rows(a.results)
    fitted = fit(rows)
    if not fitted:
        print(f"ack_scale: no ack_slots in the ground-truth aggtarget results under {a.results} "
              "(python -m runner.aggtarget <scenario> --modes aggtarget)", file=sys.stderr)
        return 1
    model = json.loads(a.model.read_text())
    if not of_kind(model, a.model, "ack_scale"):
        return 1
    if any(model.get("gap_by_stas_us") or []):
        # the runs' agg_raw was formed without those gaps: runner/ack_gap.py fits the scale at them
        print(f"ack_scale: {a.model} has gap_by_stas_us; fit its scale with python -m runner.ack_gap fit",
              file=sys.stderr)
        return 1
    model["version"] = MODEL_VERSION
    model["scale_by_stas"] = table(fitted)
    model["scale_by_stas_training"] = training_doc(
        "runner/ack_scale.py: per STA count of the AP (agg_stas), geometric mean of true / raw mean A-MPDU over "
        "0.5 s slots of the controlled runs of the ground-truth-fed scenarios", used, fitted)
    result_file.write_json(a.model, model)
    for k, v in fitted.items():
        print(f"{k} STA(s): scale {v['scale']:.4f} over {v['slots']} slots of {', '.join(v['runs'])}")
    print(f"scale_by_stas {model['scale_by_stas']} -> {a.model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
