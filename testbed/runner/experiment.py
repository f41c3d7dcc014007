"""Running one scenario end to end and writing results/<name>.json.

Order: topology up (if it is not already), WLAN emulator, WAN, dataplane,
then bounded iperf3 transfers (each pair alone in turn, or all at once);
everything started is stopped in a finally, in reverse order, and the
topology is taken down again if this run brought it up.

Figures of merit (SPEC §6, 004 §4): utility = Σ ln θ_i (θ in Mbit/s);
bound = Σ ln(β_i S_i / S), β_i the isolated throughputs of the same build
(results/isolated.json, or isolated-uplink.json for uplink), S_i/S = 1/2
for the two alternating equal slices of the lab.
"""
from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import backend as backend_mod
from . import groundtruth, iperf, mixed, processes, result_file, signals, slice_overflow, topology, wan, wlan
from .build_commit import build_commit
from .scenarios import PAIRS, Scenario

RESULTS = Path(__file__).resolve().parents[1] / "results"
BASE_PORT = 5201
MAX_DURATION_S = 3600.0   # seconds per transfer


@dataclass
class PairResult:
    ap: str
    sta: str
    direction: str
    throughput_mbps: float
    mean_ampdu: float | None = None
    mean_phy_mbps: float | None = None
    mean_drain_ms: float | None = None
    series: list[tuple[float, float]] = field(default_factory=list)  # (s, Mbit/s)


def _transfer(tb: topology.Testbed, s: Scenario, index: int, ap: str, sta: str,
              duration_s: float, cc: str) -> iperf.Transfer:
    sta_ip = topology.STAS[sta][0]
    if s.direction == "downlink":
        return iperf.Transfer(f"{ap}-{sta}", tb.ns("server"), tb.ns(sta), sta_ip,
                              BASE_PORT + index, duration_s, cc)
    return iperf.Transfer(f"{ap}-{sta}", tb.ns(sta), tb.ns("server"), topology.SERVER_IP,
                          BASE_PORT + index, duration_s, cc)


def utility(throughputs: list[float]) -> float | None:
    if not throughputs or any(t <= 0 for t in throughputs):
        return None
    return sum(math.log(t) for t in throughputs)


def utility_bound(isolated: list[float], n_pairs: int) -> float | None:
    """Σ ln(β_i S_i/S) with S_i/S = 1/n (equal slices, pairs alternate)."""
    if len(isolated) != n_pairs or any(b <= 0 for b in isolated):
        return None
    return sum(math.log(b / n_pairs) for b in isolated)


def isolated_throughputs(results_dir: Path, s: Scenario, own: list[float]) -> list[float] | None:
    if s.alone:
        return own
    ref = results_dir / f"{s.isolated_reference}.json"
    try:
        doc = json.loads(ref.read_text())
        return [float(p["throughput_mbps"]) for p in doc["pairs"]]
    except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


def _run_transfers(tb: topology.Testbed, s: Scenario, duration_s: float,
                   cc: str) -> dict[str, dict[str, Any]]:
    transfers = [_transfer(tb, s, i, ap, sta, duration_s, cc) for i, (ap, sta) in enumerate(PAIRS)]
    reports: dict[str, dict[str, Any]] = {}
    if s.alone:
        for t in transfers:
            reports[t.label] = iperf.finish(iperf.start(tb.run_dir, t))
            time.sleep(1.0)  # let queues drain between the isolated runs
    else:
        running = [iperf.start(tb.run_dir, t) for t in transfers]
        for rt in running:
            reports[rt.transfer.label] = iperf.finish(rt)
    return reports


# Two-sided 95 % Student t quantiles by degrees of freedom (n - 1), for the
# confidence interval of a mean over n repeated runs (the paper's "±95% CI"):
# every n a scenario may repeat (run() takes up to MAX_REPEATS). The normal
# 1.96 is no stand-in at these n: it is still 12 % short at n = 11.
MAX_REPEATS = 20
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
       10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101,
       19: 2.093}


def ci95(values: list[float]) -> float | None:
    """Half-width of the 95 % confidence interval of the mean (None for one value)."""
    n = len(values)
    if n < 2:
        return None
    if n - 1 not in T95:
        raise ValueError(f"ci95 of {n} values: the t table covers 2..{MAX_REPEATS}")
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return T95[n - 1] * sd / math.sqrt(n)


def _slice_overflow(run_out: Path, emu_stats: dict[str, Any]) -> tuple[dict[str, float | None] | None,
                                                                        dict[str, float | None] | None]:
    """Per pair, airtime outside its slices / slice time (slice_overflow.py), on the fixed slice grid and on the
    slices as released, from one read of the logs; (None, None) when the emulator's stats do not say when its
    clock started."""
    t0 = emu_stats.get("t0_unix_ns")
    tel, gt = run_out / "adwiser-dp.telemetry.jsonl", run_out / "groundtruth.jsonl"
    if not isinstance(t0, int) or not tel.exists() or not gt.exists():
        return None, None
    frames, ppdus = slice_overflow.read_frames(tel), groundtruth.read(gt)
    # unrounded: the report judges them against the goal's 2 %, and rounded to five digits an overflow of
    # 1.9996 % was stored as 0.02, not under it (the report shows them to the digits that compare)
    return (slice_overflow.overflow_fraction(frames, ppdus, t0),
            slice_overflow.overflow_fraction(frames, ppdus, t0, as_released=True))


def _stop_all(steps: list[tuple[str, Any]]) -> list[str]:
    """Runs every cleanup step even if an earlier one fails; returns the failures."""
    errors = []
    for what, step in steps:
        try:
            step()
        except Exception as e:  # noqa: BLE001 - every step must run; errors are re-raised after
            errors.append(f"{what}: {e}")
    return errors


def run(s: Scenario, duration_s: float, *, prefix: str | None = None,
        backend_cmd: str | None = None, cc: str = "cubic", repeats: int = 1,
        results_dir: Path = RESULTS) -> dict[str, Any]:
    """Runs scenario s (its transfers `repeats` times under one setup) and
    writes <results_dir>/<name>.json; returns the document. Raises
    backend.BackendUnavailable before touching anything if the dataplane the
    scenario needs is not built."""
    if not 0 < duration_s <= MAX_DURATION_S:   # so written, a NaN fails it too
        raise ValueError(f"duration {duration_s!r} s: expected 0 < duration <= {MAX_DURATION_S:g}")
    if not 1 <= repeats <= MAX_REPEATS:
        raise ValueError(f"repeats {repeats!r}: expected 1..{MAX_REPEATS}")
    backend_mod.check_available(s, backend_cmd)
    tb = topology.Testbed(prefix or topology.default_prefix())
    created = not topology.is_up(tb)   # also a half-up testbed, which `up` rebuilds
    run_out = results_dir / "runs" / s.name
    run_out.mkdir(parents=True, exist_ok=True)
    for old in run_out.iterdir():  # nothing from an earlier run may be mistaken for this one's
        if old.is_file():
            old.unlink()
    stats: dict[str, dict[str, Any]] = {"emu": {}, "wan": {}, "dp": {}}
    drains: dict[str, float] = {}
    emu: wlan.WlanEmu | None = None
    w: wan.WanEmu | None = None
    be: backend_mod.Backend | None = None
    rounds: list[dict[str, dict[str, Any]]] = []
    app_docs: list[dict[str, Any]] = []  # mixed traffic: the application's results per round
    started = time.time()

    def stop_backend() -> None:
        if be is not None:
            stats["dp"] = backend_mod.stop(tb, be)
            drains.update(backend_mod.mean_drain_ms(be.telemetry_path))
            if be.telemetry_path.exists():
                be.telemetry_path.replace(run_out / "adwiser-dp.telemetry.jsonl")

    def stop_wan() -> None:
        if w is not None:
            stats["wan"] = wan.stop(w)

    def stop_emu() -> None:
        if emu is not None:
            stats["emu"] = wlan.stop(tb, emu)

    def keep_logs() -> None:
        for kept in [*tb.run_dir.glob("iperf3-*.json"), *tb.run_dir.glob("*.log"),
                     *tb.run_dir.glob("http-load-*.json"), *tb.run_dir.glob("voice-*.json"),
                     *tb.run_dir.glob("*.stats.json")]:
            kept.replace(run_out / kept.name)

    def restore_topology() -> None:
        if created:
            topology.down(tb)
        else:
            topology.set_modes(tb, wan="bridge", wlan="bridge", appl="bridge")

    try:
        topology.up(tb, cc=cc, appl=topology.APPL_FOR_BACKEND[s.backend])
        topology.set_congestion_control(tb, cc)
        emu = wlan.start(tb, run_out)
        if s.wan:
            w = wan.start(tb)
        if s.backend != "none":
            be = backend_mod.start(tb, s, backend_cmd)
        for _ in range(repeats):
            rounds.append(_run_transfers(tb, s, duration_s, cc) if s.mix is None
                          else mixed.run_round(tb, s, duration_s, cc, app_docs))
    finally:
        with signals.stopping():
            errors = _stop_all([("adwiser-dp", stop_backend), ("wan-emu", stop_wan),
                                ("wlan-emu", stop_emu),
                                ("leftover processes", lambda: processes.stop_pidfiles(tb.run_dir)),
                                ("logs", keep_logs),
                                ("topology", restore_topology)])
            for e in errors:
                print(f"runner: cleanup: {e}", file=sys.stderr)
    if errors:
        raise RuntimeError("cleanup failed: " + "; ".join(errors))

    pairs = []
    ci: dict[str, float | None] = {}
    runs: dict[str, list[float]] = {}
    for ap, sta in PAIRS:
        label = f"{ap}-{sta}"
        per_round = [round(iperf.received_mbps(r[label]), 3) for r in rounds]
        runs[f"{ap}/{sta}"] = per_round
        ci[f"{ap}/{sta}"] = ci95(per_round)
        ampdu, phy = wlan.link_figures(stats["emu"], ap, sta, s.direction)
        pairs.append(PairResult(ap, sta, s.direction, round(sum(per_round) / len(per_round), 3),
                                ampdu, phy, drains.get(f"{ap}/{sta}"),
                                iperf.interval_series(rounds[0][label])))
    overflow, overflow_released = _slice_overflow(run_out, stats["emu"]) if be is not None else (None, None)
    thr = [p.throughput_mbps for p in pairs]
    beta = isolated_throughputs(results_dir, s, thr)
    u, bound = utility(thr), utility_bound(beta or [], len(pairs))
    doc: dict[str, Any] = {
        "scenario": s.name,
        "duration_s": duration_s,
        "slice_ms": s.slice_ms,
        "pairs": [{"ap": p.ap, "sta": p.sta, "direction": p.direction,
                   "throughput_mbps": p.throughput_mbps, "mean_ampdu": p.mean_ampdu,
                   "mean_phy_mbps": p.mean_phy_mbps, "mean_drain_ms": p.mean_drain_ms}
                  for p in pairs],
        "utility": round(u, 4) if u is not None else None,
        "utility_bound": round(bound, 4) if bound is not None else None,
        # Context beyond the fields, for the report.
        "slice_overflow": overflow,
        "slice_overflow_as_released": overflow_released,
        "repeats": repeats,
        "throughput_runs_mbps": runs,
        "throughput_ci95_mbps": ci,
        "backend": s.backend,
        "wan": s.wan,
        "alone": s.alone,
        "congestion_control": cc,
        "emulator": "testbed/emu/wlan-emu" if emu is not None else None,
        "started_unix": round(started, 3),
        "build_commit": build_commit(),
        "timeseries": {f"{p.ap}/{p.sta}": p.series for p in pairs},
        "wan_emu": stats["wan"] or None,
        "wlan_emu": stats["emu"] or None,
        "dataplane": stats["dp"] or None,
    }
    if s.mix is not None:
        # 004 §6.3-6.4: ap2/sta2's "throughput" is its application's goodput,
        # so Σ ln θ is no utility to compare with the bulk scenarios'.
        doc["utility"] = doc["utility_bound"] = None
        doc["mix"] = s.mix
        doc.update(mixed.summary(s, app_docs, run_out))
    if s.dynamic_slicing:
        doc["dynamic_slicing"] = mixed.reassignments(run_out / "adwiser-dp.telemetry.jsonl")
    result_file.write_json(results_dir / f"{s.name}.json", doc)
    return doc
