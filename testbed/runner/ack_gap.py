"""The ACK-burst classifier's least gap per receiving-STA count, and the scale
at that gap (issue 9; 001 §4.1-4.2; adwiser/ack_model.h `gap_by_stas_us`).

With several STAs a STA often answers one A-MPDU with two or three uplink
PPDUs, and where the second follows more than the classifier's gap (about
650 µs, fitted on one STA, whose A-MPDUs come about 1 ms apart) one A-MPDU
gives two bursts. Its own A-MPDUs come a round of the AP's STAs apart
(4.4 ms with five), so a longer least gap merges those splits. How often a
STA splits and merges differs from STA to STA, and that difference is what
makes the estimate's per-STA bias (testbed/findings/aggregation-target.md, "Where the per-STA
bias comes from"). So the gap per count is the one that makes true / raw
most alike across the AP's STAs; the scale per count is then fitted at that
gap, as runner/ack_scale.py does.

Input: controlled runs made with `python -m runner.aggtarget <scenario>
--modes aggtarget --capture-acks` (the STAs' ACKs at the appliance port, the
ground truth and the emulator's clock, kept in results/runs/<scenario>/),
and their results JSON (each slot's STA count, `ack_slots`). The dataplane's
boundary rule is replayed on the captured ACKs: a new burst when the m = 1
model's probability reaches its threshold and the gap is at least the
candidate.

    python -m runner.ack_gap fit [--model configs/ack_burst_model.json]
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from . import ack_dataset, ack_scale, agg_lab, result_file, topology
from .aggtarget_air import data_ppdus

RESULTS = ack_scale.RESULTS
CANDIDATES_US = (0, 500, 1000, 1500, 2000, 2500, 3000)
MSS = 1448


def sta_of_mac() -> dict[bytes, str]:
    """Source MAC -> STA id, for both labs (the 2AP-2STA lab's STAs and agg_lab's)."""
    out = {bytes.fromhex(mac.replace(":", "")): sta for sta, (_, mac, _) in topology.STAS.items()}
    out.update({bytes.fromhex(agg_lab.sta_mac(i).replace(":", "")): f"sta{i}" for i in range(1, 9)})
    return out


def read_acks(pcap: Path, macs: dict[bytes, str]) -> dict[str, list[ack_dataset.Frame]]:
    """Per STA (by source MAC), its pure TCP ACKs in the capture, in order."""
    out: dict[str, list[ack_dataset.Frame]] = defaultdict(list)
    for f in ack_dataset.read_pcap(pcap):
        sta = macs.get(f.src)
        if sta is not None and ack_dataset.is_pure_ack(f):
            out[sta].append(f)
    return out


def model_gap_us(model: dict[str, Any]) -> float:
    """The gap at which the m = 1 model's probability reaches its threshold (its σ feature is constant 0)."""
    if int(model["m"]) != 1:
        raise ValueError("ack_gap replays the m = 1 model only")
    w = float(model["coef"][0])
    logit = math.log(model["threshold"] / (1 - model["threshold"]))
    return (logit - float(model["intercept"])) / w


def ack_series(acks: list[ack_dataset.Frame]) -> tuple[np.ndarray, np.ndarray]:
    """A STA's ACK arrival times (ns) and the segments each acknowledged (ACK advance / MSS per flow; a flow's
    first ACK, duplicates and stale ACKs count 0), as ack_burst.c counts them."""
    segs, last_ack = [], {}
    for f in acks:
        adv = 0
        if f.flow in last_ack:
            adv = (f.ack - last_ack[f.flow]) & 0xFFFFFFFF
            adv = adv if adv < 1 << 31 else 0
        if adv > 0 or f.flow not in last_ack:
            last_ack[f.flow] = f.ack
        segs.append(adv / MSS)
    return np.array([f.t_ns for f in acks], dtype=np.int64), np.array(segs)


def bursts(t_ns: np.ndarray, segs: np.ndarray, gap_us: float) -> list[tuple[int, float]]:
    """(end time ns, segments) of the bursts ack_burst.c forms with this least gap: an ACK starts a burst when
    it follows the previous one by at least gap_us (ack_dataset.bursts counts them)."""
    first = np.zeros(len(t_ns), dtype=bool)
    first[1:] = np.diff(t_ns) >= gap_us * 1000
    ends, sizes = ack_dataset.bursts(t_ns, segs, first)
    return list(zip(ends.tolist(), sizes.tolist()))


def slot_ratios(series: dict[str, tuple[np.ndarray, np.ndarray]], truth: dict[tuple[str, int], list[int]], ap: str,
                stas_of_slot: dict[tuple[str, int], int], gap_us: float) -> list[dict[str, Any]]:
    """Rows as ack_scale.slot_rows makes them (pair, slot, stas, raw, truth) for the replayed bursts; `truth` is
    ack_scale.truth_by_slot of the run."""
    rows = []
    for sta, (t_ns, segs_of_ack) in series.items():
        pair = f"{ap}/{sta}"
        per: dict[int, list[float]] = defaultdict(list)
        for t, segs in bursts(t_ns, segs_of_ack, gap_us):
            per[int(t / 1e9 // ack_scale.SLOT_S)].append(segs)
        for slot, sizes in per.items():
            tr = truth.get((pair, slot), [])
            k = stas_of_slot.get((pair, slot))
            if k and len(sizes) >= ack_scale.MIN_BURSTS and len(tr) >= ack_scale.MIN_PPDUS:
                rows.append({"pair": pair, "slot": slot, "stas": k, "raw": sum(sizes) / len(sizes),
                             "truth": sum(tr) / len(tr)})
    return rows


def spread(rows: list[dict[str, Any]]) -> float | None:
    """Standard deviation across pairs of log(true / raw) (each pair's geometric mean over its slots): how
    unlike the pairs' biases are, which one scale per count cannot correct. None with fewer than two pairs."""
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["pair"]].append(r)
    logs = [math.log(g) for g in (ack_scale.geo_ratio(rs) for rs in by.values() if len(rs) >= 5) if g]
    return statistics.pstdev(logs) if len(logs) >= 2 else None


def round_us(ppdus: list[dict[str, Any]]) -> float:
    """The run's shortest round: over its pairs, the least median time between the starts of a pair's
    consecutive A-MPDUs (µs). A gap that long would join a STA's ACKs for two of its A-MPDUs."""
    starts: dict[str, list[int]] = defaultdict(list)
    for p in ppdus:
        starts[p["pair"]].append(int(p["start_us"]))
    med = [statistics.median(b - a for a, b in zip(ts, ts[1:])) for ts in starts.values() if len(ts) > 10]
    return float(min(med)) if med else 0.0


def captured_runs(results: Path) -> list[tuple[str, Path, dict[str, Any]]]:
    """(scenario, run directory, results JSON) of the ground-truth-fed scenarios with a kept ACK capture."""
    out = []
    for path in sorted(results.glob("aggtarget-*.json")):
        doc = json.loads(path.read_text())
        run = results / "runs" / doc["scenario"]
        if doc.get("mu_source", "sta") == "sta" and (run / "aggtarget-groundtruth.jsonl").exists() \
                and list(run.glob("aggtarget-acks-*.pcap")):
            out.append((doc["scenario"], run, doc))
    return out


def replay(results: Path, model: dict[str, Any]) -> dict[float, list[dict[str, Any]]]:
    """Per candidate least gap, the slot rows of every captured run (tagged with the scenario)."""
    base, macs = model_gap_us(model), sta_of_mac()
    out: dict[float, list[dict[str, Any]]] = defaultdict(list)
    for name, run, doc in captured_runs(results):
        stats = json.loads((run / "aggtarget-wlan-emu.stats.json").read_text())
        pairs = [(p["ap"], p["sta"]) for p in doc["runs"]["aggtarget"]["pairs"]]
        stas_of_slot = {(r["pair"], r["slot"]): r["stas"] for p in doc["runs"]["aggtarget"]["pairs"]
                        for r in p.get("ack_slots") or []}
        ppdus = data_ppdus(run / "aggtarget-groundtruth.jsonl", pairs)
        rnd, truth = round_us(ppdus), ack_scale.truth_by_slot(ppdus, stats["t0_unix_ns"])
        for pcap in sorted(run.glob("aggtarget-acks-*.pcap")):
            ap = pcap.stem.split("acks-", 1)[1]
            series = {sta: ack_series(lst) for sta, lst in read_acks(pcap, macs).items()}
            for g in CANDIDATES_US:
                # the run's steady state only: slots in which all its STAs were receiving (a count seen while
                # transfers start or stop is a passing mix, not that many STAs in a round)
                out[g] += [dict(r, run=name, round_us=rnd)
                           for r in slot_ratios(series, truth, ap, stas_of_slot, max(base, g))
                           if r["stas"] == len(pairs)]
    return out


def choose(rows_by_gap: dict[float, list[dict[str, Any]]]) -> dict[int, dict[str, Any]]:
    """Per STA count with ack_scale.MIN_SLOTS slots: among the candidate gaps under half the shortest round of
    its runs (a longer one joins a STA's A-MPDUs whenever the round runs short), the one with the least spread
    (ties: the shorter). One STA keeps the model's own gap (0 here); a count with fewer slots is left to the
    interpolation."""
    base = rows_by_gap.get(0, [])
    out = {}
    for k in sorted({r["stas"] for r in base}):
        mine = [r for r in base if r["stas"] == k]
        if len(mine) < ack_scale.MIN_SLOTS:
            continue
        limit = 0.5 * min(r["round_us"] for r in mine)
        scored = []
        for g, rows in sorted(rows_by_gap.items()):
            sp = spread([r for r in rows if r["stas"] == k])
            if sp is not None and g < limit:
                scored.append((sp, g))
        if k == 1 or not scored:
            out[k] = {"gap_us": 0.0, "spread": None, "limit_us": round(limit)}
        else:
            sp, g = min(scored)
            out[k] = {"gap_us": float(g), "spread": round(sp, 4), "limit_us": round(limit),
                      "spread_by_gap": {str(gg): round(s, 4) for s, gg in sorted(scored, key=lambda x: x[1])}}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["fit"])
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--model", type=Path, default=ack_scale.MODEL)
    a = ap.parse_args(argv)
    model = json.loads(a.model.read_text())
    if not ack_scale.of_kind(model, a.model, "ack_gap"):
        return 1
    rows_by_gap = replay(a.results, model)
    if not rows_by_gap:
        print(f"ack_gap: no captured ground-truth runs under {a.results} (runner.aggtarget --capture-acks)",
              file=sys.stderr)
        return 1
    chosen = choose(rows_by_gap)
    gaps = {k: v["gap_us"] for k, v in chosen.items()}
    rows = [r for g, rs in rows_by_gap.items() for r in rs if gaps.get(r["stas"]) == g]
    fitted = ack_scale.fit(rows)
    if not fitted:
        print("ack_gap: too few slots per STA count to fit a scale", file=sys.stderr)
        return 1
    model["version"] = ack_scale.MODEL_VERSION
    model["gap_by_stas_us"] = [round(v) for v in ack_scale.interpolate(gaps)]
    model["scale_by_stas"] = ack_scale.table(fitted)
    runs = sorted({r["run"] for r in rows})
    model["gap_by_stas_training"] = {
        "method": "runner/ack_gap.py: the m = 1 model replayed on the STAs' captured ACKs with each least gap of "
                  f"{list(CANDIDATES_US)} µs; per STA count the gap with the least spread across the AP's pairs "
                  "of log(true / raw), one STA keeping the model's own gap",
        "scenarios": runs, "per_stas": {str(k): v for k, v in chosen.items()},
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    model["scale_by_stas_training"] = ack_scale.training_doc(
        "runner/ack_gap.py at the gaps above: per STA count, geometric mean of true / raw mean A-MPDU over 0.5 s "
        "slots of the runs' steady state", runs, fitted)
    print("\n".join(f"{k} STA(s): gap {v['gap_us']:g} µs, spread {v['spread']} {v.get('spread_by_gap', '')}"
                    for k, v in chosen.items()))
    result_file.write_json(a.model, model)
    print(f"gap_by_stas_us {model['gap_by_stas_us']}, scale_by_stas {model['scale_by_stas']} -> {a.model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
