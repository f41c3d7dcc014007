"""The air a batch's first MPDU takes alone, from a downlink run's ground truth
(issue 4: where the 20 ms slices fall short of the utility goal).

The appliance releases a batch (at a slice start, or a refill when the last
one drained) into an AP whose air is idle and whose queue is empty. The
batch's first packet reaches the AP a few µs before the rest, and an AP whose
medium has been idle for AIFS transmits at once (802.11-2016 §10.22.2.2:
immediate access, no backoff drawn), so it sends that packet as a one-MPDU
A-MPDU while the batch arrives behind it. The rest waits for the PPDU, its
BlockAck and the next channel access: at MCS 13-15 about 330 µs of air for
1 MPDU, where a full A-MPDU carries 16-19. That is the standard's channel
access, which the emulator follows (air_sim.c, wlan_air_enqueue), not an
artefact of the harness. A pair alone, in continuous traffic, seldom finds
its AP's queue empty; under slicing it happens once per batch: each slice's
batch and each refill.

A PPDU counts as a lone batch start when it is an AP's data PPDU of one
MPDU that went on the air the instant that MPDU reached the AP (start_us ==
its enq_us: the queue held nothing else), and the AP's next PPDU carries
MPDUs that arrived before it ended (the rest of the batch). Its cost is the
air from its start to the next PPDU's start, less the airtime of the MPDU
it carried at its PHY rate: what a full A-MPDU would have used.

`active_us` is the air the pair was busy on: its data PPDUs and the gaps
between them under ACTIVE_GAP_US (AIFS, backoff, BlockAcks, the STA's TCP
ACKs), not the idle time between its slices or transfers. `mbps_if_full`
scales the run's goodput by active / (active - cost), the pair's rate if
that air had carried data as its other PPDUs did: an estimate, since whether
the pair would fill it depends on its batches and refills.
"""
from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

from . import result_file
from .jsonl import json_records, kept_run_is_committed, result_doc

RESULTS = Path(__file__).resolve().parent.parent / "results"
SCENARIOS = ("isolated", "downlink-100ms", "downlink-20ms", "downlink-20ms-nfqueue", "downlink-wan-20ms")
ACTIVE_GAP_US = 2500   # a gap longer than this ends the pair's busy period (a slice or transfer boundary)
DATA_BYTES = 500       # a PPDU under this carries no full TCP segment (ACKs, control)


def ap_data_ppdus(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Per AP its data PPDUs (ground-truth records with enqueue times), in start order."""
    by_ap: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in json_records(path):
        src = str(rec.get("src", ""))
        if (src.startswith("ap") and rec.get("enq_us") and rec.get("bytes", 0) > DATA_BYTES
                and rec.get("mpdus", 0) >= 1 and "start_us" in rec and "duration_us" in rec):
            by_ap[src].append(rec)
    for recs in by_ap.values():
        recs.sort(key=lambda r: r["start_us"])
    return dict(by_ap)


def lone_starts(ppdus: list[dict[str, Any]]) -> dict[str, Any]:
    """One AP's lone batch-start PPDUs and the air they cost (see the module text)."""
    lone, cost_us, active_us, data_us = 0, 0.0, 0.0, 0.0
    for a, b in zip(ppdus, ppdus[1:] + [None]):
        end = a["start_us"] + a["duration_us"]
        data_us += a["duration_us"]
        active_us += a["duration_us"]
        if b is None:
            break
        gap = b["start_us"] - end
        if 0 < gap < ACTIVE_GAP_US:
            active_us += gap
        if a["mpdus"] == 1 and a["enq_us"][0] >= a["start_us"] and min(b["enq_us"]) < end:
            payload_us = a["bytes"] * 8.0 / a["phy_mbps"] if a.get("phy_mbps") else 0.0
            lone += 1
            cost_us += max(b["start_us"] - a["start_us"] - payload_us, 0.0)
    return {"ppdus": len(ppdus), "lone_starts": lone, "cost_s": round(cost_us / 1e6, 4),
            "cost_us_each": round(cost_us / lone, 1) if lone else None,
            "active_s": round(active_us / 1e6, 4), "data_air_s": round(data_us / 1e6, 4),
            "cost_frac_of_active": round(cost_us / active_us, 5) if active_us else None}


def scenario(results_dir: Path, name: str) -> dict[str, Any] | None:
    """Per pair of a downlink scenario: its lone batch starts, and the goodput and utility without their cost."""
    gt = results_dir / "runs" / name / "groundtruth.jsonl"
    doc = result_doc(results_dir / f"{name}.json", "pairs")
    if doc is None or not gt.exists():
        return None
    by_ap = ap_data_ppdus(gt)
    pairs: dict[str, Any] = {}
    for p in doc.get("pairs", []):
        if p.get("direction") != "downlink" or p.get("ap") not in by_ap:
            continue
        fig = lone_starts(by_ap[p["ap"]])
        mbps = p.get("throughput_mbps")
        frac = fig["cost_frac_of_active"]
        if isinstance(mbps, (int, float)) and mbps > 0 and frac is not None and frac < 1:
            fig["mbps"] = mbps
            fig["mbps_if_full"] = round(mbps / (1.0 - frac), 3)
        pairs[f"{p['ap']}/{p['sta']}"] = fig
    if not pairs:
        return None
    stats = gt.parent / "wlan-emu.stats.json"
    t0 = json.loads(stats.read_text()).get("t0_unix_ns") if stats.exists() else None
    # t0 of the logs read, so the report can tell whether results/<name>.json is still of that run
    out: dict[str, Any] = {"t0_unix_ns": t0, "slice_ms": doc.get("slice_ms"), "pairs": pairs,
                           "matches_committed_json": kept_run_is_committed(doc, gt.parent)}
    if all("mbps" in f for f in pairs.values()):
        out["utility"] = round(sum(math.log(f["mbps"]) for f in pairs.values()), 4)
        out["utility_if_full"] = round(sum(math.log(f["mbps_if_full"]) for f in pairs.values()), 4)
    if isinstance(doc.get("utility_bound"), (int, float)):
        out["utility_bound"] = doc["utility_bound"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=RESULTS)
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--out", type=Path, default=None, help="default: <results>/batch-starts.json")
    a = ap.parse_args(argv)
    doc: dict[str, Any] = {}
    for name in a.scenarios.split(","):
        res = scenario(a.results, name)
        if res is None:
            print(f"{name}: no result JSON or ground truth in {a.results} (runs/{name}/groundtruth.jsonl)")
            continue
        doc[name] = res
    out = a.out or a.results / "batch-starts.json"
    result_file.write_json(out, doc)
    print(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
