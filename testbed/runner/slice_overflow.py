"""Slice overflow (SPEC §6, issue 4): the airtime of a pair outside its own
time-slices, as a fraction of its slice time, from the emulator's ground
truth (what the air really did) and the dataplane's frame telemetry (when
each slice was).

Both logs must be on one clock: the dataplane's `ts_ns` is Unix epoch ns
(start of each frame); the ground truth's `start_us` is µs since wlan-emu
started, so the emulator's stats must say when that was in epoch ns
(`t0_unix_ns`). Without it the overflow is not computed (None), rather than
guessed by aligning the logs (which would fit the answer).

A pair's airtime is every PPDU between its AP and its STA, either direction
(data and TCP ACKs): the slice gives the pair the medium. Real-time traffic
(the ground truth's access category VO: voice) is not counted: the appliance
releases it on arrival and never holds it to a slice (SPEC §3.4), so its
airtime outside the slices is by design, not overflow.

Two grids. The fixed one is the frame records' slice durations from each
frame's start: what the issue's goal counts. The one as released moves a
slice's start back by its `early_ms`, when adwiser-dp released its batch
before the scheduled start because the slice before had drained with no time
left for a refill (dataplane/core/refill.c, adw_start_next_slice_early).
"""
from __future__ import annotations

import bisect
from pathlib import Path
from typing import Any

from .groundtruth import Ppdu
from .jsonl import telemetry_records


def slice_intervals(frames: list[dict[str, Any]], as_released: bool = False) -> dict[str, list[tuple[float, float]]]:
    """Per pair, the [start, end) µs (epoch) of each of its slices. A slice
    given to another pair (`given_to`, dynamic slicing) belongs to that pair.
    With as_released, a slice starts `early_ms` before its scheduled start."""
    out: dict[str, list[tuple[float, float]]] = {}
    for fr in sorted(frames, key=lambda f: f["ts_ns"]):
        t = fr["ts_ns"] / 1000.0
        for sl in fr.get("slices", []):
            dur = float(sl["duration_ms"]) * 1000.0
            early = float(sl.get("early_ms") or 0.0) * 1000.0 if as_released else 0.0
            owners = sl.get("given_to") or sl.get("pairs") or []
            for pair in owners:
                out.setdefault(str(pair), []).append((t - early, t + dur))
            t += dur
    return out


def union(iv: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The sorted, disjoint intervals covering what iv covers. A pair's slices as released can overlap
    (a slice given to it, then its own going early into that one), and overlap_us would count the
    time both cover twice."""
    out: list[tuple[float, float]] = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def overlap_us(iv: list[tuple[float, float]], starts: list[float], s: float, e: float) -> float:
    """Length of [s, e) covered by the sorted, disjoint intervals iv."""
    i = max(bisect.bisect_right(starts, s) - 1, 0)
    covered = 0.0
    while i < len(iv) and iv[i][0] < e:
        lo, hi = max(iv[i][0], s), min(iv[i][1], e)
        if hi > lo:
            covered += hi - lo
        i += 1
    return covered


def telemetry_span_us(intervals: dict[str, list[tuple[float, float]]]) -> tuple[float, float]:
    """The [first slice start, last slice end) µs (epoch) the frame telemetry covers."""
    return min(iv[0][0] for iv in intervals.values()), max(iv[-1][1] for iv in intervals.values())


def overflow_fraction(frames: list[dict[str, Any]], ppdus: list[Ppdu],
                      t0_unix_ns: int, as_released: bool = False) -> dict[str, float | None]:
    """Per pair "ap/sta": airtime outside its slices / its total slice time
    (of the fixed grid, which as_released does not change), over the span the
    telemetry covers."""
    intervals = slice_intervals(frames, as_released)
    fixed = slice_intervals(frames) if as_released else intervals
    if not intervals:
        return {}
    span_lo, span_hi = telemetry_span_us(intervals)
    t0_us = t0_unix_ns / 1000.0
    result: dict[str, float | None] = {}
    for pair, slices in intervals.items():
        ap, _, sta = pair.partition("/")
        iv = union(slices)
        starts = [a for a, _ in iv]
        slice_time = sum(b - a for a, b in fixed.get(pair, []))
        outside = 0.0
        for p in ppdus:
            if {p.src, p.dst} != {ap, sta} or p.ac == "VO":
                continue
            s = t0_us + p.start_us
            e = s + p.duration_us
            if e <= span_lo or s >= span_hi:
                continue
            outside += (e - s) - overlap_us(iv, starts, s, e)
        result[pair] = outside / slice_time if slice_time > 0 else None
    return result


def read_frames(telemetry: Path) -> list[dict[str, Any]]:
    return telemetry_records(telemetry, "frame")
