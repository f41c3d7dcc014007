"""Mixed-traffic rounds (004 §6.3, §6.4): a downlink bulk TCP transfer at
AP1-STA1 (iperf3) while STA2 loads web pages (`mix="http"`) or talks packet
voice (`mix="voice"`); `mix="voice-only"` is the voice with STA1 idle.

`run_round` starts everything by PID, waits for it (bounded), stops it and
returns the per-pair reports the experiment runner reads: the iperf3 JSON for
ap1-sta1, and for ap2-sta2 the application's goodput at STA2 in the shape of
iperf3's summary ({"end": {"sum_received": {"bits_per_second": ...}}}), so
the pair table reads both alike. The application's own results go into
`app_docs` (one per round), which `summary` turns into the document's "http"
or "voice" section.
"""
from __future__ import annotations

import bisect
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from . import http_load, http_server, iperf, processes, topology, voice
from .scenarios import Scenario

TESTBED = Path(__file__).resolve().parents[1]
BULK_PORT = 5201
VOICE_PORT = 5060
VOICE_PHASE_MS = {"server": 0.0, "sta2": 10.0}  # the two directions alternate (004 §6.4)
VOICE_LEAD_S = 1.0   # the bulk transfer is under way before the first voice packet


def _python_in(run_dir: Path, name: str, ns: str, module: str, args: list[str]) -> processes.ManagedProcess:
    """Starts `python -m runner.<module>` of this checkout inside namespace ns."""
    return processes.start(run_dir, name, ns, [sys.executable, "-m", f"runner.{module}", *args],
                           env={"PYTHONPATH": str(TESTBED)})


def _wait(proc: processes.ManagedProcess, timeout_s: float) -> None:
    try:
        proc.popen.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        pass
    rc = processes.stop(proc)
    if rc != 0:
        raise RuntimeError(f"{proc.name} failed (exit {rc}): {proc.log_tail()}")


def _bulk(tb: topology.Testbed, duration_s: float, cc: str) -> iperf.Transfer:
    sta_ip = topology.STAS["sta1"][0]
    return iperf.Transfer("ap1-sta1", tb.ns("server"), tb.ns("sta1"), sta_ip, BULK_PORT, duration_s, cc)


def _goodput_report(nbytes: int, seconds: float) -> dict[str, Any]:
    return {"end": {"sum_received": {"bits_per_second": nbytes * 8.0 / seconds if seconds > 0 else 0.0}},
            "intervals": []}


def _http_round(tb: topology.Testbed, duration_s: float, cc: str,
                app_docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    run_dir = tb.run_dir
    server = http_server.start(run_dir, tb.ns("server"), topology.SERVER_IP)
    bulk: iperf.RunningTransfer | None = None
    client: processes.ManagedProcess | None = None
    out = run_dir / f"http-load-{len(app_docs)}.json"
    out.unlink(missing_ok=True)
    try:
        bulk = iperf.start(run_dir, _bulk(tb, duration_s, cc))
        client = _python_in(run_dir, "http-load", tb.ns("sta2"), "http_load",
                            ["--base-url", server.base_url, "--duration", f"{duration_s:g}",
                             "--seed", str(1 + len(app_docs)), "--out", str(out)])
        started = time.monotonic()
        _wait(client, duration_s + 40.0)
        elapsed = time.monotonic() - started
        report = iperf.finish(bulk)
        bulk = None
    finally:
        if client is not None:
            processes.stop(client)
        if bulk is not None:
            processes.stop(bulk.client)
            processes.stop(bulk.server)
        http_server.stop(server)
    doc: dict[str, Any] = json.loads(out.read_text())
    app_docs.append(doc)
    got = sum(int(p["bytes"]) for p in doc["pages"])
    return {"ap1-sta1": report, "ap2-sta2": _goodput_report(got, elapsed)}


def _voice_round(tb: topology.Testbed, duration_s: float, cc: str, app_docs: list[dict[str, Any]],
                 with_bulk: bool = True) -> dict[str, dict[str, Any]]:
    run_dir = tb.run_dir
    ips = {"server": topology.SERVER_IP, "sta2": topology.STAS["sta2"][0]}
    outs = {end: run_dir / f"voice-{end}-{len(app_docs)}.json" for end in ips}
    bulk = iperf.start(run_dir, _bulk(tb, duration_s + 2 * VOICE_LEAD_S, cc)) if with_bulk else None
    ends: list[processes.ManagedProcess] = []
    try:
        start_unix = time.time() + VOICE_LEAD_S
        for end, peer in (("server", "sta2"), ("sta2", "server")):
            outs[end].unlink(missing_ok=True)
            ends.append(_python_in(run_dir, f"voice-{end}", tb.ns(end), "voice",
                                   ["--bind", ips[end], "--peer", ips[peer], "--port", str(VOICE_PORT),
                                    "--start-unix", f"{start_unix:.6f}", "--duration", f"{duration_s:g}",
                                    "--phase-ms", f"{VOICE_PHASE_MS[end]:g}", "--out", str(outs[end])]))
        for p in ends:
            _wait(p, duration_s + VOICE_LEAD_S + 20.0)
        # Only voice (004 Table 6, first row): STA1 idle, its θ is zero.
        report = iperf.finish(bulk) if bulk is not None else _goodput_report(0, duration_s)
    finally:
        for p in ends:
            processes.stop(p)
        if bulk is not None:
            processes.stop(bulk.client)
            processes.stop(bulk.server)
    docs = {end: json.loads(outs[end].read_text()) for end in ips}
    app_docs.append(docs)
    got = len(docs["sta2"]["received"]) * voice.PAYLOAD.size
    return {"ap1-sta1": report, "ap2-sta2": _goodput_report(got, duration_s)}


def run_round(tb: topology.Testbed, s: Scenario, duration_s: float, cc: str,
              app_docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    if s.mix == "http":
        return _http_round(tb, duration_s, cc, app_docs)
    if s.mix == "voice":
        return _voice_round(tb, duration_s, cc, app_docs)
    if s.mix == "voice-only":
        return _voice_round(tb, duration_s, cc, app_docs, with_bulk=False)
    raise ValueError(f"scenario {s.name}: no mixed traffic {s.mix!r}")


def voice_air(groundtruth: Path, bulk_ap: str = "ap1", voice_ap: str = "ap2") -> dict[str, Any] | None:
    """From the emulator's ground truth (one record per PPDU): how many of the
    voice AP's AC_VO transmissions started while the bulk AP was on the air.
    The two APs cannot hear each other (004 Table 2), and a frame whose
    preamble starts during the other AP's transmission is lost at the STA
    (004 §4.1), so this is where downlink voice losses come from.

    First attempts are counted per MPDU (the record's `ids`), not per PPDU:
    AP2 sometimes aggregates two voice MPDUs into one A-MPDU (two packets that
    reached its queue together, or a retry with the next packet), and counting
    distinct `ids` tuples took such a pair for one frame (9,976 "first
    attempts" for 10,000 voice packets in the 25 s x8 run). `vo_dropped` are
    the MPDUs no attempt delivered (the emulator's retry limit): the air's
    share of the voice lost."""
    try:
        f = groundtruth.open(errors="replace")
    except OSError:
        return None
    bulk: list[tuple[int, int]] = []
    vo: list[tuple[int, list[int], str]] = []
    with f:
        for line in f:
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r.get("src") == bulk_ap:
                bulk.append((int(r["start_us"]), int(r["start_us"]) + int(r["duration_us"])))
            elif r.get("src") == voice_ap and r.get("ac") == "VO":
                ids = [int(i) for i in r.get("ids") or ()]
                vo.append((int(r["start_us"]), ids, str(r.get("ok_mask") or "")))
    if not vo:
        return None
    bulk.sort()
    starts = [b[0] for b in bulk]

    def on_air(t: int) -> bool:
        i = bisect.bisect_right(starts, t) - 1
        return i >= 0 and bulk[i][1] > t

    vo.sort(key=lambda v: v[0])
    delivered: dict[int, bool] = {}  # MPDU id -> some attempt delivered it (in order of first attempt)
    first_busy = busy = 0
    for t, ids, ok_mask in vo:
        b = on_air(t)
        busy += b
        for k, mpdu in enumerate(ids):
            if mpdu not in delivered:
                delivered[mpdu] = False
                first_busy += b
            if ok_mask[k:k + 1] == "1":
                delivered[mpdu] = True
    return {"vo_attempts": len(vo), "vo_attempts_during_" + bulk_ap: busy,
            "vo_first_attempts": len(delivered), "vo_first_attempts_during_" + bulk_ap: first_busy,
            "vo_dropped": sum(not d for d in delivered.values())}


def summary(s: Scenario, app_docs: list[dict[str, Any]], run_out: Path | None = None) -> dict[str, Any]:
    """The document's "http" or "voice" section over every round."""
    if s.mix == "http":
        return {"http": http_load.summarise(app_docs)}
    merged: dict[str, dict[str, Any]] = {}
    for end, peer in (("server", "sta2"), ("sta2", "server")):
        sent = sum(int(d[end]["sent"]) for d in app_docs)
        late = sum(int(d[end].get("late_sends", 0)) for d in app_docs)
        # Rounds are merged by offsetting sequence numbers, so a packet of one
        # round is never taken for another's: what this end received carries
        # its peer's numbers, so the offset is what the peer sent before.
        received: list[list[int]] = []
        base = 0
        for d in app_docs:
            received += [[r[0] + base, r[1], r[2]] for r in d[end]["received"]]
            base += int(d[peer]["sent"])
        merged[end] = {"sent": sent, "received": received, "late_sends": late}
    # Downlink: the server sends, STA2 receives; uplink the other way round.
    air = voice_air(run_out / "groundtruth.jsonl") if run_out is not None else None
    down = voice.summarise(merged["server"], merged["sta2"])
    up = voice.summarise(merged["sta2"], merged["server"])
    # Per round: held downlink voice waits for the next slice start, and the
    # 20 ms voice clock keeps one phase to the 20 ms slice clock for a whole
    # round, so each round's delay sits near one value in [0, 20] ms + air.
    down["round_mean_delay_ms"] = [voice.summarise(d["server"], d["sta2"])["mean_delay_ms"] for d in app_docs]
    up["round_mean_delay_ms"] = [voice.summarise(d["sta2"], d["server"])["mean_delay_ms"] for d in app_docs]
    return {"voice": {"down": down, "up": up, "air": air}}


def reassignments(telemetry: Path) -> dict[str, Any] | None:
    """Dynamic slicing as the dataplane logged it (004 §6.3): frames, slice
    reassignments, and to which pair the reassigned slices went, from the
    `frame` telemetry records ("reassignments", "slices[].given_to")."""
    try:
        lines = telemetry.read_text(errors="replace").splitlines()
    except OSError:
        return None
    frames = total = 0
    given: dict[str, int] = {}
    for line in lines:
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(rec, dict) or rec.get("type") != "frame":
            continue
        frames += 1
        total += int(rec.get("reassignments") or 0)
        for sl in rec.get("slices") or []:
            for pair in sl.get("given_to") or []:
                given[str(pair)] = given.get(str(pair), 0) + 1
    return {"frames": frames, "reassignments": total, "slices_given_to": given}
