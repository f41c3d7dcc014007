"""Reading the JSON-lines logs the testbed's processes write (the dataplane's telemetry, wlan-emu's
ground truth): one object per line. A process stopped mid-write leaves a partial last line, and some
logs interleave plain-text lines, so a line that is not a JSON object is skipped, not an error."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any


def json_records(path: Path) -> Iterator[dict[str, Any]]:
    """The JSON objects of `path`, one per line, in file order; other lines skipped."""
    for line in path.read_text(errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(rec, dict):
            yield rec


def _number(v: Any) -> float | None:
    """A telemetry value as a number: JSON numbers as they are, Redis stream values (text) parsed; None if absent."""
    if isinstance(v, bool) or v is None:
        return None
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def drain_means_ms(records: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    """Mean V (drain time, ms) per pair over the drains of the dataplane's pair
    records (its JSONL telemetry, or the tm:pair stream in Redis): from each
    record's "drains" and "v_sum_ms" (every drain that ended in the frame),
    else the mean of its "v_ms" (the last drain at the frame's end, repeated in
    frames where none ended, so frames with two drains count once: only for
    telemetry older than those fields); {} if there are none. Shared by the
    experiments, the demo and transfer_phases.py."""
    sums: dict[str, list[float]] = {}
    drains: dict[str, list[float]] = {}
    for rec in records:
        pair = rec.get("pair")
        if not isinstance(pair, str):
            continue
        n, total = _number(rec.get("drains")), _number(rec.get("v_sum_ms"))
        if n is not None and total is not None:
            acc = drains.setdefault(pair, [0.0, 0.0])
            acc[0] += n
            acc[1] += total
        v = _number(rec.get("v_ms", rec.get("V_ms")))
        if v is not None and v > 0:  # 0: no drain has ended yet, not a sample
            sums.setdefault(pair, []).append(v)
    out = {p: sum(vs) / len(vs) for p, vs in sums.items() if vs}
    out.update({p: total / n for p, (n, total) in drains.items() if n > 0})
    return out


def telemetry_records(path: Path, kind: str) -> list[dict[str, Any]]:
    """The dataplane telemetry's records of one type ("frame", "pair"), those with a ts_ns (ns, CLOCK_REALTIME)."""
    return [rec for rec in json_records(path) if rec.get("type") == kind and isinstance(rec.get("ts_ns"), int)]


def result_doc(path: Path, required: str) -> dict[str, Any] | None:
    """A results document (one JSON object) for the report, or None when it is missing, unreadable, or lacks a
    non-empty `required` member (not measured yet)."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) and doc.get(required) else None


def kept_run_is_committed(committed: dict[str, Any], run_dir: Path) -> bool:
    """Whether the logs kept in run_dir (results/runs/<scenario>/) are of the run a committed results document
    reports: both carry the WLAN emulator's clock start (`t0_unix_ns`), and a later run rewrites the logs only."""
    try:
        t0 = json.loads((run_dir / "wlan-emu.stats.json").read_text()).get("t0_unix_ns")
    except (OSError, json.JSONDecodeError):
        return False
    return t0 is not None and (committed.get("wlan_emu") or {}).get("t0_unix_ns") == t0


def derived_from_committed_run(entry: dict[str, Any], results_dir: Path, name: str) -> bool:
    """Whether figures derived from the logs kept for scenario `name` (an entry of overflow-breakdown.json or
    batch-starts.json, which carries the WLAN emulator's clock start of the logs it read, `t0_unix_ns`) are of the
    run results/<name>.json reports now. Their own `matches_committed_json` says so only for the JSON of the time
    they were derived: the scenario re-run since has another t0, and the figures are of the older run."""
    t0 = entry.get("t0_unix_ns")
    committed = result_doc(results_dir / f"{name}.json", "pairs") or {}
    return (bool(entry.get("matches_committed_json")) and t0 is not None
            and (committed.get("wlan_emu") or {}).get("t0_unix_ns") == t0)
