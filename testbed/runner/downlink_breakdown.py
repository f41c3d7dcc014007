"""Where a downlink time-slicing run falls short of issue 4's goals (mean V
within 3 % of S, utility >= bound - 0.08), from the material a run keeps in
results/runs/<scenario>/: the dataplane's frame telemetry, its --stats and
the iperf3 receivers' logs (the last round's).

Per pair, the drains (every V the telemetry counted, `drains` / `v_sum_ms`)
are split by where they fall in a transfer:

- `boundary`: frames between two transfers (released < BOUNDARY_PKTS in at
  least two frames in a row): the end of one transfer, then the next one's
  connection set-up (iperf3's control exchange, SYN-ACK), one small batch
  per frame;
- `first_s`: the first second after the data starts (the transfer's first
  frame releasing BOUNDARY_PKTS or more): TCP's slow start, and in the
  first transfer r's ramp from r_init;
- `steady`: the rest.

`deferral_wait_ms_per_drain` is the dataplane's slice_deferred_ns over its
measured drains: a batch held back by a conflicting drain on the air goes
out later, sized for the time left (deferral.c), and its V is timed from its
release (004 §5: V is the time to drain the data released), so eq. (1)'s
equilibrium puts the mean V at S minus that wait per drain.

`receiver` is each iperf3 receiver's own per-second goodput (its log):
second 0, the mean of seconds 1-19, and any interval after 20 s; the
utility from the steady seconds is what the run would give without a
transfer's first second and its end.
"""
from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

from .jsonl import telemetry_records

RESULTS = Path(__file__).resolve().parent.parent / "results"
BOUNDARY_PKTS = 5   # a frame releasing fewer packets is between transfers (set-up or end)
FIRST_S_NS = 1_000_000_000  # the span after the data starts labelled first_s
_INTERVAL = re.compile(r"\]\s+(\d+\.\d+)-(\d+\.\d+)\s+sec\s+\S+\s+\w?Bytes\s+(\S+)\s+(\w?)bits/sec\s*$")
_SCALE = {"": 1e-6, "K": 1e-3, "M": 1.0, "G": 1e3}


def classify_frames(recs: list[dict[str, Any]]) -> list[str]:
    """One label per pair record (in time order): boundary, first_s or steady."""
    labels = ["steady"] * len(recs)
    small = [r.get("released_pkts", 0) < BOUNDARY_PKTS for r in recs]
    i = 0
    while i < len(recs):
        if not small[i]:
            i += 1
            continue
        j = i
        while j < len(recs) and small[j]:
            j += 1
        if j - i >= 2 or i == 0:
            for k in range(i, j):
                labels[k] = "boundary"
            t0 = recs[j]["ts_ns"] if j < len(recs) else None
            k = j
            while t0 is not None and k < len(recs) and recs[k]["ts_ns"] - t0 < FIRST_S_NS:
                labels[k] = "first_s"
                k += 1
            i = k
        else:
            i = j
    return labels


def _v(recs: list[dict[str, Any]]) -> dict[str, Any]:
    n = sum(r.get("drains") or 0 for r in recs)
    total = sum(r.get("v_sum_ms") or 0.0 for r in recs)
    return {"drains": n, "mean_v_ms": round(total / n, 3) if n else None}


def drain_split(pair_recs: list[dict[str, Any]]) -> dict[str, Any]:
    labels = classify_frames(pair_recs)
    out = {lab: _v([r for r, x in zip(pair_recs, labels) if x == lab]) for lab in ("boundary", "first_s", "steady")}
    out["all"] = _v(pair_recs)
    out["without_boundary_and_first_s"] = out["steady"]["mean_v_ms"]
    return out


def receiver_seconds(log: Path) -> dict[str, Any] | None:
    """An iperf3 receiver's per-second goodput (Mbit/s) from its text log."""
    if not log.exists():
        return None
    iv = []
    for line in log.read_text(errors="replace").splitlines():
        m = _INTERVAL.search(line)
        if m and float(m.group(2)) - float(m.group(1)) <= 1.001:
            iv.append((float(m.group(1)), float(m.group(2)), float(m.group(3)) * _SCALE[m.group(4)]))
    whole = [x for x in iv if x[1] <= 20.001]
    if len(whole) < 3:
        return None
    rest = [x[2] for x in whole[1:]]
    return {"second_0_mbps": round(whole[0][2], 2), "seconds_1_on_mbps": round(sum(rest) / len(rest), 2),
            "after_20_s": [[x[0], x[1], x[2]] for x in iv if x[0] >= 20.0 - 1e-9]}


def breakdown(run_dir: Path, slice_ms: float, beta_half: dict[str, float] | None = None) -> dict[str, Any]:
    pairs: dict[str, list[dict[str, Any]]] = {}
    for rec in telemetry_records(run_dir / "adwiser-dp.telemetry.jsonl", "pair"):
        pairs.setdefault(rec["pair"], []).append(rec)
    res: dict[str, Any] = {"pairs": {}}
    stats_path = run_dir / "adwiser-dp.stats.json"
    if stats_path.exists():
        core = json.loads(stats_path.read_text()).get("core", {})
        drains = sum(core.get(k, 0) for k in ("drains_completed", "drains_capped", "drains_superseded"))
        if drains and "slice_deferred_ns" in core:
            wait = core["slice_deferred_ns"] / 1e6 / drains
            res["deferral"] = {"deferrals": core.get("slice_deferrals"), "drains": drains,
                               "mean_wait_ms": round(core["slice_deferred_ns"] / 1e6 / max(1, core["slice_deferrals"]), 3),
                               "wait_ms_per_drain": round(wait, 3),
                               "steady_v_predicted_ms": round(slice_ms - wait, 3)}
    steady: list[float] = []
    for name, recs in sorted(pairs.items()):
        row = drain_split(recs)
        rx = receiver_seconds(run_dir / f"iperf3-srv-{name.replace('/', '-')}.log")
        if rx is not None:
            steady.append(rx["seconds_1_on_mbps"])
            if beta_half and name in beta_half:
                rx["steady_share_of_beta_half"] = round(rx["seconds_1_on_mbps"] / beta_half[name], 4)
        row["receiver"] = rx
        res["pairs"][name] = row
    ok = bool(pairs) and len(steady) == len(pairs)
    res["steady_utility"] = round(sum(math.log(x) for x in steady), 4) if ok else None
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", nargs="?", default="downlink-20ms")
    ap.add_argument("--slice-ms", type=float, default=20.0)
    ap.add_argument("--run-dir", type=Path, help="a copy of a run's logs (default results/runs/<scenario>)")
    args = ap.parse_args(argv)
    beta_half = None
    iso = RESULTS / "isolated.json"
    if iso.exists():
        doc = json.loads(iso.read_text())
        beta_half = {f"{p['ap']}/{p['sta']}": p["throughput_mbps"] / 2 for p in doc["pairs"]}
    print(json.dumps(breakdown(args.run_dir or RESULTS / "runs" / args.scenario, args.slice_ms, beta_half), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
