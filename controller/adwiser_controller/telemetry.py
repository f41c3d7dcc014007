"""Read what the dataplane writes (controller/REDIS.md): status keys, heartbeat, telemetry streams.

Stream fields arrive as strings; they are converted to numbers here (empty, or
not a finite number, = null, e.g. `v_ms` when no batch completed) and the frame's `slices` JSON is
parsed, so REST, WebSocket and /metrics serve typed values.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any, Literal

import redis.asyncio as aioredis
from pydantic import BaseModel, Field

from . import keys

FRAME_INT = {"ts_ns", "frame", "version", "reassignments"}
FRAME_FLOAT = {"frame_ms", "utility", "utility_bound"}
PAIR_INT = {"ts_ns", "frame", "r_pkts", "released_pkts", "released_bytes", "queue_pkts", "limit_pkts",
            "drops_tail", "drops_other", "reassigned", "paced", "retx_pkts", "dup_acks", "agg_bursts",
            "agg_stas", "ack_delay_samples", "drains", "counters_since_ns"}
PAIR_FLOAT = {"s_ms", "v_ms", "tput_mbps", "agg_est", "agg_raw", "acked_segs", "pace_bps", "loss_frac",
              "ack_delay_ms", "ack_delay_min_ms", "v_sum_ms"}


def stream_number(value: str, kind: type) -> int | float | None:
    """A telemetry stream's field (Redis keeps strings) as an int or float; None for "" (the writer's None) or what
    is no finite number."""
    if value == "":
        return None
    try:
        if kind is int:
            try:
                return int(value)  # exact: ns timestamps exceed a float's 53-bit mantissa
            except ValueError:
                return int(float(value))  # e.g. "12.0" or "1e3"
        f = float(value)
        # "nan"/"inf" parse, but JSON has no such number: the live feed's send_json would write
        # NaN, which a browser's JSON.parse refuses, losing the whole message.
        return f if math.isfinite(f) else None
    except (ValueError, OverflowError):
        return None


def _finite_or_none(text: str) -> float | None:
    f = float(text)
    return f if math.isfinite(f) else None


def parse_slices(value: str) -> Any:
    """The frame's `slices` JSON; None when it does not parse. Non-finite numbers in it (NaN, Infinity, or 1e400,
    which Python's json reads as inf) become null, as in the stream's own fields: the live feed would send them
    as NaN/Infinity, which a browser's JSON.parse refuses."""
    try:
        return json.loads(value, parse_constant=lambda _: None, parse_float=_finite_or_none)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the json module reads
        return None


def _stream_entry(sid: str, f: dict[str, str], ints: set[str], floats: set[str]) -> dict[str, Any]:
    """A stream entry's fields under its id, those named in `ints` and `floats` read as such numbers."""
    out: dict[str, Any] = {"id": sid}
    for k, v in f.items():
        if k in ints:
            out[k] = stream_number(v, int)
        elif k in floats:
            out[k] = stream_number(v, float)
        else:
            out[k] = v
    return out


def parse_frame(sid: str, f: dict[str, str]) -> dict[str, Any]:
    out = _stream_entry(sid, f, FRAME_INT, FRAME_FLOAT)
    if "slices" in f:
        out["slices"] = parse_slices(f["slices"])
    return out


def parse_pair(sid: str, f: dict[str, str]) -> dict[str, Any]:
    return _stream_entry(sid, f, PAIR_INT, PAIR_FLOAT)


class Heartbeat(BaseModel):
    ts_ns: int | None = None
    pid: int | None = None
    version: int | None = None
    backend: str | None = None


class Rejection(BaseModel):
    version: int | None = None
    error: str = ""


class ApplyRejection(Rejection):
    """The dataplane's `rejected` record (REDIS.md)."""

    apply_seq: int | None = Field(
        default=None, description="The apply (`apply_seq`) the refusal answers; null from a dataplane that "
                                  "predates the field")


class OvsFailure(BaseModel):
    error: str = Field(default="", description="What the manager could not do, and OVS's (or ip's) error")
    since_ns: int | None = Field(default=None, description="First poll of this run of failures, Unix ns")


class FabricStatus(BaseModel):
    """What the fabric manager (issue 10, SPEC §2) last wrote to `adwiser:appliance:<id>:fabric`."""

    mode: Literal["steered", "bypass", "unknown"] = Field(
        description="steered: managed traffic goes through the dataplane; bypass: carried straight across "
                    "(fail-open); unknown: the status key could not be read (see reason)")
    reason: str = Field(default="", description="Why the fabric is in this mode (e.g. the liveness verdict)")
    since_ns: int | None = Field(default=None, description="When the fabric entered this mode, ns since the Unix epoch")
    version: int | None = Field(default=None, description="Configuration version whose topology the flows follow")
    topology_possibly_stale: bool = Field(
        default=False, description="The dataplane runs its --config file (active 0), whose topology the manager "
                                   "cannot see: the flows keep `version`'s (null: the manager's start-up file), so "
                                   "a STA the file adds is not steered and one it drops still is")
    refused: Rejection | None = Field(
        default=None, description="Active version the manager refused (e.g. an AP port missing on its host) and "
                                  "why; the flows keep following `version`. Null once a version is followed, and "
                                  "from managers that predate the field")
    ovs_error: OvsFailure | None = Field(
        default=None, description="The manager runs but cannot program Open vSwitch (e.g. ovs-vswitchd down, seen at "
                                  "the next poll): `mode` is then the table it last installed, not necessarily what "
                                  "OVS does, and a switch it could not make is tried again at every poll. Null once "
                                  "vswitchd answers or a table goes in again with nothing failing, and from managers "
                                  "that predate the field")
    switches: int | None = Field(default=None, description="Mode changes since the manager started")
    dp_pid: int | None = Field(default=None, description="Dataplane pid the liveness judge last saw")
    bridge: str | None = Field(default=None, description="Open vSwitch bridge")
    ts_ns: int | None = Field(default=None, description="When the manager wrote this status (refreshed every second)")


def parse_fabric(raw: str) -> FabricStatus:
    # The key expires 3 s after the manager's last refresh, so a present key is current; a value
    # that does not parse is reported as such rather than hidden, since it means a writer bug.
    try:
        return FabricStatus.model_validate_json(raw)
    except ValueError as exc:
        return FabricStatus(mode="unknown", reason=f"unreadable fabric status: {str(exc).splitlines()[0]}")


class ApplianceStatus(BaseModel):
    id: str
    head: int | None = Field(description="Latest stored version of this appliance.")
    desired: int | None = Field(description="Version last applied (what the dataplane should run).")
    active: int | None = Field(description="Version the dataplane acknowledged running; 0: its --config file "
                                           "(an operator's SIGHUP), no controller version.")
    pending: bool = Field(description="desired != active: the dataplane has not (yet) acknowledged.")
    rejected: ApplyRejection | None = Field(
        description="The dataplane's refusal of the desired version, and why, while that version does not run and "
                    "the refusal answers its latest apply; null once another version is applied, the refused one "
                    "runs, or it is applied again (pending until the dataplane answers that apply).")
    alive: bool = Field(description="A heartbeat is present (the dataplane writes it every 200 ms, 3 s expiry).")
    heartbeat: Heartbeat | None
    heartbeat_age_s: float | None = Field(description="Age of the heartbeat, seconds (from its ts_ns).")
    last_frame: dict[str, Any] | None = Field(description="Latest per-frame telemetry entry, if any.")
    fabric: FabricStatus | None = Field(
        default=None, description="Open vSwitch fabric state from the fabric manager (fail-open); null when no "
                                  "manager has written it in the last 3 s.")


def _int_or_none(v: str | None) -> int | None:
    try:
        return int(v) if v is not None else None
    except ValueError:
        return None


def answers(rej: ApplyRejection, apply_seq: int | None) -> bool:
    """The refusal answers the apply counted `apply_seq` or a later one. One from a dataplane that names no apply
    is taken as it stands (nothing tells its apply)."""
    return rej.apply_seq is None or apply_seq is None or rej.apply_seq >= apply_seq


def current_refusal(rejected: str | None, desired: int | None, active: int | None,
                    apply_seq: int | None = None) -> ApplyRejection | None:
    """The dataplane's refusal while it still stands: it names the desired version, answers its latest apply
    (`apply_seq`) and that version does not run. The dataplane keeps its last refusal in `rejected` for good
    (REDIS.md); once another version is applied, the refused one runs after all, or it is applied again, the
    refusal is past. A value that does not parse (a writer bug) is shown as its text."""
    if not rejected:
        return None
    try:
        rej = ApplyRejection.model_validate_json(rejected)
    except ValueError:
        return ApplyRejection(error=rejected)
    if rej.version is not None and (rej.version != desired or active == desired or not answers(rej, apply_seq)):
        return None
    return rej


async def appliance_status(r: aioredis.Redis, aid: str, head: int | None) -> ApplianceStatus:
    pipe = r.pipeline(transaction=False)
    for what in ("desired", "apply_seq", "active", "rejected", "heartbeat", "fabric"):
        pipe.get(keys.appliance(aid, what))
    pipe.xrevrange(keys.appliance(aid, "tm:frame"), count=1)
    desired, apply_seq, active, rejected, hb, fabric, last = await pipe.execute()
    heartbeat = None
    age = None
    if hb:
        try:
            heartbeat = Heartbeat.model_validate_json(hb)
            if heartbeat.ts_ns:
                age = max(0.0, time.time() - heartbeat.ts_ns / 1e9)
        except ValueError:
            heartbeat = Heartbeat()
    d, a = _int_or_none(desired), _int_or_none(active)
    return ApplianceStatus(
        id=aid, head=head, desired=d, active=a, pending=d is not None and d != a,
        rejected=current_refusal(rejected, d, a, _int_or_none(apply_seq)),
        alive=hb is not None, heartbeat=heartbeat, heartbeat_age_s=age,
        last_frame=parse_frame(*last[0]) if last else None,
        fabric=parse_fabric(fabric) if fabric else None,
    )


async def history(r: aioredis.Redis, aid: str, kind: str, count: int, after: str | None,
                  pair: str | None = None, parse: Callable[[str, dict[str, str]], dict[str, Any]] | None = None,
                  ) -> tuple[list[dict[str, Any]], str | None, int | None]:
    """Most recent entries first-in-time order; `after` = stream id to continue from (exclusive).

    Returns the entries, the id to continue from: the last entry's, or, when a `pair` filter
    found fewer than `count` entries in a full scan window, the last scanned entry's (so a client
    paging forward moves past a stretch without entries of its pair instead of asking for it again),
    and how many entries the stream had ever been given up to and including that id, or None when not known.
    `parse` reads one entry (default: the frame or pair record of `kind`).
    """
    stream = keys.appliance(aid, f"tm:{kind}")
    if parse is None:
        parse = parse_frame if kind == "frame" else parse_pair
    scan = count if pair is None else min(20000, count * 64)
    # One MULTI: the count XINFO gives is the stream's as the page was read.
    pipe = r.pipeline(transaction=True)
    pipe.xinfo_stream(stream)
    if after:
        pipe.xrange(stream, min=f"({after}", max="+", count=scan)
    else:
        pipe.xrevrange(stream, count=scan)
    info, raw = await pipe.execute(raise_on_error=False)
    if isinstance(raw, Exception):
        raise raw
    if not after:
        raw = list(reversed(raw))
    out = [parse(sid, f) for sid, f in raw if pair is None or f.get("pair") == pair]
    entries = out[:count] if after else out[-count:]
    last_id = entries[-1]["id"] if entries else after
    if after and len(out) < count and len(raw) == scan:
        last_id = raw[-1][0]
    # Redis counts the entries ever added to a stream (`entries-added`), not those up to an id: known for its
    # newest id, where a page that read to the stream's end stops. With it the live feed (live_cursor.py) tells
    # entries trimmed after that id, which the client never saw, from the ones up to it, which it did.
    at_end = isinstance(info, dict) and last_id == info["last-generated-id"]
    return entries, last_id, info["entries-added"] if at_end else None


async def latest_per_pair(r: aioredis.Redis, aid: str, npairs: int) -> dict[str, dict[str, Any]]:
    raw = await r.xrevrange(keys.appliance(aid, "tm:pair"), count=max(16, 4 * npairs))
    out: dict[str, dict[str, Any]] = {}
    for sid, f in raw:
        p = f.get("pair")
        if p and p not in out:
            out[p] = parse_pair(sid, f)
    return out
