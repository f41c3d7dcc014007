"""Interruption figures from a probe stream, and the results file `make report` reads.

testbed/results/failopen.json:
    {"target_ms": 1000, "probe_rate_hz": 100, "probe_path": "...", "updated_at": RFC 3339,
     "runs": {"<dataplane kind>": {"<event>": {
         "interruption_ms": largest gap between consecutive probe arrivals around the event,
         "baseline_gap_ms": largest gap before the event (what the path does anyway),
         "lost_probes": probes sent and never received,
         "switch_ms": event -> the manager's flow swap (null if it did not swap),
         "tcp_completed": bool, "tcp_mbps": receiver throughput of the bulk TCP transfer,
         "measured_at": RFC 3339}}}}
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parents[3] / "testbed" / "results" / "failopen.json"
TARGET_MS = 1000
PROBE_RATE_HZ = 100


def gaps(received: list[list[int]], event_ns: int) -> dict[str, float]:
    """Largest inter-arrival gap overall and before `event_ns` (monotonic ns), in ms."""
    arrivals = sorted(r[2] for r in received)
    if len(arrivals) < 2:
        return {"interruption_ms": float("inf"), "baseline_gap_ms": float("inf")}
    diffs = [(b - a, b) for a, b in zip(arrivals, arrivals[1:])]
    before = [d for d, b in diffs if b < event_ns]
    return {
        "interruption_ms": round(max(d for d, _ in diffs) / 1e6, 1),
        "baseline_gap_ms": round(max(before) / 1e6, 1) if before else 0.0,
    }


def record(kind: str, event: str, figures: dict[str, Any]) -> None:
    doc: dict[str, Any] = {}
    if RESULTS.exists():
        try:
            doc = json.loads(RESULTS.read_text())
        except ValueError:
            doc = {}
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    doc.update({"target_ms": TARGET_MS, "probe_rate_hz": PROBE_RATE_HZ,
                "probe_path": "UDP server -> sta1 (downlink of a managed STA) through the OVS appliance",
                "updated_at": now})
    doc.setdefault("runs", {}).setdefault(kind, {})[event] = {**figures, "measured_at": now}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    tmp = RESULTS.with_name(RESULTS.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    tmp.replace(RESULTS)
