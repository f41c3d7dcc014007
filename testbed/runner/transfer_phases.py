"""Each transfer's start against its steady state, from the dataplane's per-pair telemetry (one
record per pair per frame): what the pair released and the drain time V the dataplane inferred,
over the first seconds of each transfer and over the rest (issue 4: "explain any shortfall from
the same measurements"; findings/downlink-uplink.md, "downlink-100ms: the first seconds of each transfer").

A transfer starts at the first frame that releases `START_PKTS` packets after more than `GAP_S`
of frames releasing fewer, or after `GAP_FRAMES` such frames in a row, once the previous transfer's
`duration_s` and `GAP_S` have passed (iperf3's rounds are separate transfers with a pause between
them: 0.28-0.6 s at 20 ms slices, seven frames or more, 1.4-1.8 s at 100 ms; the tail of a round
can pause as long), and only if the records go on for half a transfer after it (the last frames of
the last round are not a transfer). Rates are
released packets × the TCP payload of a full segment, so they compare with iperf3's goodput for
downlink TCP, where the appliance releases data segments, not for uplink, where it releases ACKs."""
from __future__ import annotations

from typing import Any

from .jsonl import drain_means_ms

START_PKTS = 20
GAP_S = 0.3
GAP_FRAMES = 3   # at 20 ms slices a pause between rounds can be under GAP_S (0.28 s: six 40 ms frames)
PAYLOAD_BYTES = 1448
PHASES_S = ((0.0, 4.0), (4.0, 8.0), (8.0, None))


def transfer_starts(records: list[dict[str, Any]], duration_s: float) -> list[float]:
    """Start times (s after the first record) of the transfers in one pair's records."""
    t0 = records[0]["ts_ns"]
    end = (records[-1]["ts_ns"] - t0) / 1e9
    starts: list[float] = []
    last_busy = float("-inf")
    idle = 0   # frames releasing fewer since the last busy one
    for rec in records:
        t = (rec["ts_ns"] - t0) / 1e9
        if (rec.get("released_pkts") or 0) >= START_PKTS:
            paused = t - last_busy > GAP_S or idle >= GAP_FRAMES
            if paused and (not starts or t > starts[-1] + duration_s + GAP_S):
                starts.append(t)
            last_busy, idle = t, 0
        else:
            idle += 1
    return [t for t in starts if end - t >= duration_s / 2]


def phases(records: list[dict[str, Any]], duration_s: float) -> list[dict[str, Any]]:
    """Per transfer: Mbit/s released and mean V (ms, over the drains that ended) in each phase of PHASES_S."""
    if not records:
        return []
    t0 = records[0]["ts_ns"]
    times = [(rec["ts_ns"] - t0) / 1e9 for rec in records]
    out = []
    for start in transfer_starts(records, duration_s):
        per: dict[str, Any] = {"start_s": round(start, 2)}
        for lo, hi in PHASES_S:
            end = duration_s if hi is None else min(hi, duration_s)
            if end <= lo:
                continue
            sel = [rec for t, rec in zip(times, records) if lo <= t - start < end]
            v = drain_means_ms(sel).get(sel[0]["pair"]) if sel else None
            key = f"{lo:g}s-end" if hi is None else f"{lo:g}-{hi:g}s"
            per[key] = {"mbps": round(sum(rec.get("released_pkts") or 0 for rec in sel) * PAYLOAD_BYTES * 8
                                      / (end - lo) / 1e6, 2),
                        "v_ms": round(v, 2) if v is not None else None}
        out.append(per)
    return out
