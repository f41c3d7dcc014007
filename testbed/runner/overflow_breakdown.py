"""Where the slice overflow of an uplink run comes from, and what held a WAN run
under its local throughput, from the material a run keeps in
results/runs/<scenario>/ (issue 4: "Uplink and WAN: report, and explain any
shortfall from the same measurements"); for downlink runs also each transfer's
first seconds against the rest (transfer_phases.py).

For uplink the appliance releases the server's TCP ACKs at the pair's slice
start (004 §5, SPEC §3.2); the STA sends what they free, into its own MAC
queue, and the air takes it from there. The emulator numbers every frame in
the order it arrives (ground truth `ids`, one sequence over all links), so an
MPDU the STA sent with a number below the first ACK of a batch was in the
STA's queue before that batch reached it: data of an earlier batch still
waiting, which no release at the appliance can hold back. Split of each
pair's airtime outside its slices (same definition as slice_overflow.py):

- `sta_backlog`: STA data queued before the batch of the slice it follows (all
  of it after a slice that released no batch);
- `sta_batch`: STA data the batch itself freed, still on the air after the
  slice end;
- `ap`: the AP's transmissions (the released ACKs) outside the slice;
- `retried` and `collided`: the parts of the above that were MAC retries of
  an MPDU already sent once, or PPDUs that collided.

`sta_wait_lb_ms` is a lower bound of the time an MPDU waited in the STA's
queue: its first transmission minus the latest it can have arrived (the
first transmission of any frame numbered after it). `air_drain_ms` is, per
batch, the slice start to the end of the last PPDU carrying data it freed
(numbered between its first ACK and the next batch's), against `v_ms`, the
drain time the dataplane inferred by counting uplink bytes (004 §5).
"""
from __future__ import annotations

import argparse
import bisect
import json
from pathlib import Path
from typing import Any

import numpy as np

from . import result_file
from .jsonl import drain_means_ms, json_records, kept_run_is_committed, telemetry_records
from .slice_overflow import overlap_us, read_frames, slice_intervals, telemetry_span_us
from .transfer_phases import phases

RESULTS = Path(__file__).resolve().parent.parent / "results"
SCENARIOS = ("uplink-20ms", "uplink-100ms", "uplink-wan-20ms", "downlink-20ms", "downlink-100ms", "downlink-wan-20ms")


def read_ppdus(path: Path) -> list[dict[str, Any]]:
    """Ground-truth records (JSON lines) with their MPDU numbers; others skipped."""
    return [rec for rec in json_records(path) if rec.get("ids") and "src" in rec and "start_us" in rec]


def _pct(a: np.ndarray, q: float) -> float | None:
    return round(float(np.percentile(a, q)), 2) if a.size else None


def _mean(a: np.ndarray) -> float | None:
    return round(float(a.mean()), 2) if a.size else None


def sta_wait_lower_bound_us(ppdus: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Per transmitter, for each MPDU: first transmission minus the latest it can have arrived (µs)."""
    first: dict[int, tuple[float, str]] = {}
    for r in sorted(ppdus, key=lambda r: r["start_us"]):
        for x in r["ids"]:
            first.setdefault(int(x), (float(r["start_us"]), str(r["src"])))
    ids = sorted(first)
    ft = np.array([first[x][0] for x in ids], dtype=float)
    latest_arrival = np.minimum.accumulate(ft[::-1])[::-1] if ft.size else ft
    src = np.array([first[x][1] for x in ids])
    return {s: ft[src == s] - latest_arrival[src == s] for s in set(src.tolist())}


def breakdown(frames: list[dict[str, Any]], ppdus: list[dict[str, Any]], t0_unix_ns: int,
              pair_records: list[dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """Per pair "ap/sta": the overflow split and the drain figures described above (fractions of slice time)."""
    t0_us = t0_unix_ns / 1000.0
    waits = sta_wait_lower_bound_us(ppdus)
    out: dict[str, dict[str, Any]] = {}
    intervals = slice_intervals(frames)
    span_lo, span_hi = telemetry_span_us(intervals) if intervals else (0.0, 0.0)
    for pair, iv in intervals.items():
        ap, _, sta = pair.partition("/")
        starts = [a for a, _ in iv]
        slice_time = sum(b - a for a, b in iv)
        # as slice_overflow.py: the pair's PPDUs but its real-time (VO) ones, which no slice holds
        own = [r for r in ppdus if {r["src"], r["dst"]} == {ap, sta} and r.get("ac") != "VO"]
        # First ACK (AP -> STA frame number) of each batch: the lowest number the AP sent in the slice or after it.
        first_ack: list[int | None] = [None] * len(iv)
        for r in own:
            i = bisect.bisect_right(starts, t0_us + r["start_us"]) - 1
            if r["src"] == ap and i >= 0:
                m = min(int(x) for x in r["ids"])
                first_ack[i] = m if first_ack[i] is None else min(first_ack[i], m)
        batches = [i for i in range(len(iv)) if first_ack[i] is not None]
        marks = [first_ack[i] for i in batches]
        parts = dict.fromkeys(("sta_backlog", "sta_batch", "ap", "retried", "collided"), 0.0)
        seen: set[int] = set()
        air_end: dict[int, float] = {}
        for r in sorted(own, key=lambda r: r["start_us"]):
            s = t0_us + r["start_us"]
            e = s + r["duration_us"]
            i = bisect.bisect_right(starts, s) - 1
            ids = [int(x) for x in r["ids"]]
            if r["src"] == sta:
                for x in ids:
                    j = bisect.bisect_right(marks, x) - 1
                    if j >= 0:
                        air_end[batches[j]] = max(air_end.get(batches[j], 0.0), e)
            retried = sum(1 for x in ids if x in seen) / len(ids)
            seen.update(ids)
            # Counted as slice_overflow.py counts it: over the span the frame telemetry covers (after the
            # dataplane stopped there are no slices to be outside of), against all of the pair's slices.
            if e <= span_lo or s >= span_hi:
                continue
            outside = (e - s) - overlap_us(iv, starts, s, e)
            if outside <= 0:
                continue
            if r["src"] == ap:
                parts["ap"] += outside
            else:
                # before the pair's first slice, or after a slice that released no batch, no batch of the slice
                # it follows reached the STA: what it sends was freed by an earlier one and queued before
                mark = first_ack[i] if i >= 0 else None
                old = sum(1 for x in ids if x < mark) / len(ids) if mark is not None else 1.0
                parts["sta_backlog"] += outside * old
                parts["sta_batch"] += outside * (1 - old)
            parts["retried"] += outside * retried
            parts["collided"] += outside * bool(r.get("collided"))
        drains = np.array([(air_end[k] - iv[k][0]) / 1000.0 for k in batches if k in air_end])
        slice_ms = (iv[0][1] - iv[0][0]) / 1000.0
        wait = waits.get(sta, np.array([])) / 1000.0
        res: dict[str, Any] = {k: round(v / slice_time, 5) for k, v in parts.items()}
        res["overflow"] = round((parts["sta_backlog"] + parts["sta_batch"] + parts["ap"]) / slice_time, 5)
        res["sta_wait_lb_ms"] = {"p50": _pct(wait, 50), "mean": _mean(wait), "p90": _pct(wait, 90),
                                 "p99": _pct(wait, 99)}
        res["air_drain_ms"] = {"p50": _pct(drains, 50), "mean": _mean(drains), "p90": _pct(drains, 90),
                               "over_slice": round(float(np.mean(drains > slice_ms)), 3) if drains.size else None}
        if pair_records is not None:
            recs = [p for p in pair_records if p.get("pair") == pair]
            v = np.array([p["v_sum_ms"] / p["drains"] for p in recs if p.get("drains") and "v_sum_ms" in p]
                         or [p["v_ms"] for p in recs if p.get("v_ms") is not None])  # older telemetry: last V
            r_pk = np.array([p["r_pkts"] for p in recs if p.get("r_pkts") is not None], dtype=float)
            # p50 and the fractions are per frame (its drains' mean); the mean is over the drains, as the results'
            # mean_drain_ms: a frame in which two drains ended counts twice
            v_mean = drain_means_ms(recs).get(pair)
            res["v_ms"] = {"p50": _pct(v, 50), "mean": round(v_mean, 2) if v_mean is not None else None,
                           "under_half_slice": round(float(np.mean(v < slice_ms / 2)), 3) if v.size else None,
                           "over_1_75_slice": round(float(np.mean(v >= 1.75 * slice_ms)), 3) if v.size else None}
            res["r_pkts"] = {"p10": _pct(r_pk, 10), "p50": _pct(r_pk, 50), "p90": _pct(r_pk, 90)}
        out[pair] = res
    return out


def iperf_figures(path: Path) -> dict[str, Any]:
    """The sender's view of one iperf3 transfer: stalls, losses, window and RTT, and how long it took to get going."""
    doc = json.loads(path.read_text())
    st = [i["streams"][0] for i in doc.get("intervals", []) if i.get("streams")]
    rate = np.array([s["bits_per_second"] / 1e6 for s in st])
    dur = np.array([s["end"] - s["start"] for s in st])
    cwnd = np.array([s["snd_cwnd"] for s in st if s.get("snd_cwnd")], dtype=float)
    rtt = np.array([s["rtt"] for s in st if s.get("rtt")], dtype=float) / 1000.0
    half = rate[len(rate) // 2:]
    ramp = next((float(s["end"]) for s, x in zip(st, rate) if half.size and x >= 0.8 * half.mean()), None)
    return {"stalled_s": round(float(dur[rate < 0.5].sum()), 2), "retransmits": sum(s.get("retransmits") or 0 for s in st),
            "cwnd_kb_max": round(float(cwnd.max()) / 1000, 1) if cwnd.size else None,
            "cwnd_kb_first": round(float(cwnd[0]) / 1000, 1) if cwnd.size else None,
            "srtt_ms_mean": _mean(rtt), "mbps_first_half": _mean(rate[: len(rate) // 2]),
            "mbps_second_half": _mean(half), "s_to_80pct_of_second_half": ramp}


def scenario(run_dir: Path, duration_s: float = 20.0) -> dict[str, Any] | None:
    """Everything above for one run directory, with each transfer's phases (transfer_phases.py; transfers of
    duration_s); None if it lacks the logs (or the emulator's clock start)."""
    tel, gt, stats = run_dir / "adwiser-dp.telemetry.jsonl", run_dir / "groundtruth.jsonl", run_dir / "wlan-emu.stats.json"
    if not (tel.exists() and gt.exists() and stats.exists()):
        return None
    t0 = json.loads(stats.read_text()).get("t0_unix_ns")
    if not isinstance(t0, int):
        return None
    pairs = telemetry_records(tel, "pair")
    out: dict[str, Any] = {"t0_unix_ns": t0, "pairs": breakdown(read_frames(tel), read_ppdus(gt), t0, pairs)}
    by_pair: dict[str, list[dict[str, Any]]] = {}
    for rec in pairs:
        by_pair.setdefault(str(rec.get("pair")), []).append(rec)
    if run_dir.name.startswith("downlink"):       # released packets are data segments only downlink
        out["transfer_phases"] = {p: phases(recs, duration_s) for p, recs in sorted(by_pair.items())}
    out["iperf_last_run"] = {p.stem.removeprefix("iperf3-").replace("-", "/"): iperf_figures(p)
                             for p in sorted(run_dir.glob("iperf3-ap*-sta*.json"))}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--out", type=Path, default=None, help="default: <results>/overflow-breakdown.json")
    a = ap.parse_args(argv)
    doc: dict[str, Any] = {}
    for name in a.scenarios.split(","):
        committed = a.results / f"{name}.json"
        c = json.loads(committed.read_text()) if committed.exists() else {}
        res = scenario(a.results / "runs" / name, float(c.get("duration_s") or 20.0))
        if res is None:
            print(f"{name}: no run logs with ground truth in {a.results / 'runs' / name}")
            continue
        if c:
            res["matches_committed_json"] = kept_run_is_committed(c, a.results / "runs" / name)
        doc[name] = res
    out = a.out or a.results / "overflow-breakdown.json"
    result_file.write_json(out, doc)
    print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
