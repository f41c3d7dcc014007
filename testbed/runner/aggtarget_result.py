"""A run of one aggregation-target mode read into its result (runner/aggtarget.py runs it).

Capture is what the run left behind: iperf3's reports, the delay probes' captures, wlan-emu's and wan-emu's
stats, the loop's history and the dataplane's pair telemetry from Redis, the ground-truth log. Air is what
the ground truth says per pair. result() turns both into the mode's document in the scenario's JSON (the
fields are listed in aggtarget.py's docstring and testbed/README.md).
"""
from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import ack_scale, aggtarget_air, delay_probe, iperf, sta_frames, wlan
from . import backend as backend_mod
from .aggtarget_figures import LAB_NBAR, appliance_queue, second_half_delay_ms, second_half_mbps, step_figures
from .aggtarget_scenarios import AggScenario

REPO = Path(__file__).resolve().parents[2]
STA_MODEL = REPO / "configs" / "sta_frame_model.json"


def _mean(xs: list[float]) -> float | None:
    return round(statistics.fmean(xs), 3) if xs else None


def _pct(xs: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in (0, 1]): the ceil(q n)-th smallest of the n values."""
    if not xs:
        return None
    s = sorted(xs)
    return round(s[max(0, math.ceil(q * len(s)) - 1)], 3)


@dataclass
class Capture:
    """What one run of a mode left behind, read into its figures by read_air and result."""
    started: float                                                            # Unix s
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)          # iperf3's, per "ap-sta"
    pcaps: dict[str, tuple[Path, Path]] = field(default_factory=dict)         # probe captures at the AP, at the STA
    sta_udp: dict[str, dict[str, int]] = field(default_factory=dict)          # the STAs' UDP counters over the run
    emu_stats: dict[str, Any] = field(default_factory=dict)                   # wlan-emu's stats file
    wan_stats: dict[str, Any] = field(default_factory=dict)                   # wan-emu's, behind a backhaul
    errors: list[str] = field(default_factory=list)                           # cleanup failures
    history: list[dict[str, Any]] = field(default_factory=list)               # the loop's steps
    pair_entries: list[tuple[float, dict[str, str]]] = field(default_factory=list)  # adwiser-dp's pair telemetry
    after_stop: list[dict[str, Any]] = field(default_factory=list)            # the loop's steps after the transfers
    step_unix: float | None = None                                            # when the mid-run step came
    gt_path: Path | None = None                                               # the ground-truth log


@dataclass
class Air:
    """What the ground truth of one run says per pair (aggtarget_air.py, ack_scale.py, sta_frames.py)."""
    ppdus: list[Any]
    half_air: dict[str, Any]          # each pair's airtime over the second half
    rounds: dict[str, Any]            # the AP's round, A-MPDU sizes, retransmissions over the second half
    ap_queue: dict[str, Any]          # the AP queueing delay of 000 (9)
    ack_slots: list[dict[str, Any]]   # the dataplane's ACK-burst estimate against the truth per Δ slot
    agents: dict[str, dict[str, Any]]  # the STA-side agents' boundaries and levels against the truth
    t0_ns: Any                        # the ground truth's start on the Unix clock (ns), if wlan-emu wrote it


def read_air(sc: AggScenario, mode: str, out: Path, cap: Capture, with_agents: bool) -> Air:
    """The ground truth of the run per pair; the STA-side agents' logs in out are read if they ran."""
    pairs = list(sc.pairs)
    ppdus = aggtarget_air.data_ppdus(cap.gt_path, pairs) if cap.gt_path is not None else []
    t0_ns = cap.emu_stats.get("t0_unix_ns")
    agents: dict[str, dict[str, Any]] = {}
    if with_agents and cap.gt_path is not None and isinstance(t0_ns, int):
        agents = {r["sta"]: r for r in sta_frames.evaluate(out, mode, ppdus, t0_ns, pairs)}
    return Air(ppdus=ppdus, half_air=aggtarget_air.airtime_second_half(ppdus, pairs),
               rounds=aggtarget_air.second_half_rounds(ppdus, pairs),
               ap_queue=aggtarget_air.ap_queue_delays(ppdus, pairs),
               ack_slots=ack_scale.slot_rows(cap.pair_entries, ppdus, t0_ns) if isinstance(t0_ns, int) else [],
               agents=agents, t0_ns=t0_ns)


def pair_entry(sc: AggScenario, controlled: bool, cap: Capture, air: Air, ap: str, sta: str) -> dict[str, Any]:
    """One pair's figures in the result: throughput, the probes' delay, the emulator's link figures, the
    ground truth's, and for a controlled run the loop's history and the dataplane's queue."""
    pair = f"{ap}/{sta}"
    d = delay_probe.delays(delay_probe.read_pcap(cap.pcaps[pair][0], delay_probe.PROBE_PORT),
                           delay_probe.read_pcap(cap.pcaps[pair][1], delay_probe.PROBE_PORT))
    rows = d["rows"]
    assert isinstance(rows, list)
    ampdu, phy = wlan.link_figures(cap.emu_stats, ap, sta, "downlink")
    link = next((lk for lk in cap.emu_stats.get("links", []) if lk.get("src") == ap and lk.get("dst") == sta), {})
    mine = [h for h in cap.history if h["pair"] == pair]
    report = cap.reports[f"{ap}-{sta}"]
    entry: dict[str, Any] = {
        "ap": ap, "sta": sta,
        "throughput_mbps": round(iperf.received_mbps(report), 3),
        "mean_delay_ms": _mean([r[1] for r in rows]),
        "p95_delay_ms": _pct([r[1] for r in rows], 0.95),
        "mean_delay_from_server_ms": _mean([r[2] for r in rows]),
        "probes": {"at_ap": d["probes_at_ap"], "at_sta": d["probes_at_sta"], "matched": len(rows)},
        "mean_ampdu": ampdu, "mean_phy_mbps": phy, "airtime_frac": link.get("airtime_frac"),
        "retx": link.get("retx"), "queue_drops": link.get("queue_drops"),
        # datagrams (probes and a UDP transfer's) the STA's kernel dropped at a full socket buffer
        "sta_udp": cap.sta_udp.get(sta),
        "airtime_second_half_us": air.half_air.get(pair),
        "air_second_half": air.rounds.get(pair),
        **(air.ap_queue.get(pair) or {}),
        "throughput_second_half_mbps": second_half_mbps(iperf.interval_series(report)),
        "series": iperf.interval_series(report),
        # every probe, not the series below (thinned to about 400 points for the plots: 4-5 % off)
        "second_half_delay_ms": second_half_delay_ms([(r[0], r[1]) for r in rows]),
        "delay_series": [(round(r[0], 3), round(r[1], 3)) for r in rows[:: max(1, len(rows) // 400)]],
    }
    if cap.step_unix is not None:
        entry["step"] = _step_entry(sc, cap, pair, rows, mine, air.ppdus, air.t0_ns)
    if controlled:
        entry["target"] = {"t_bar_ms": sc.t_bar_ms,
                           "n_target_final": mine[-1]["n_target"] if mine else None,
                           "loop_steps": len(mine)}
        entry["loop"] = mine
        entry["loop_after_stop"] = [h for h in cap.after_stop if h["pair"] == pair]
        entry["appliance_queue"] = appliance_queue([f for _, f in cap.pair_entries], pair)
        entry["ack_slots"] = [r for r in air.ack_slots if r["pair"] == pair]
        entry["ack_estimate"] = ack_scale.summary(entry["ack_slots"])
        if sta in air.agents:
            entry["sta_agent"] = air.agents[sta]
    return entry


def _step_entry(sc: AggScenario, cap: Capture, pair: str, rows: list[Any], loop: list[dict[str, Any]],
                ppdus: list[Any], t0_ns: Any) -> dict[str, Any]:
    """The pair's figures around the mid-run step: the probes' delay and PHY rate, the AP queue's recovery."""
    assert cap.step_unix is not None
    step = step_figures(rows, cap.step_unix, sc.t_bar_ms, loop)
    if isinstance(t0_ns, int):
        step.update(aggtarget_air.ap_queue_step(ppdus, pair, cap.step_unix * 1e6 - t0_ns / 1e3, sc.t_bar_ms))
    if sc.rss_step_db is not None:
        step["rss_step_db"] = sc.rss_step_db
    if sc.step_pair is not None:
        sap, ssta = sc.step_pair
        step["interferer"] = f"{sap}/{ssta}"
        step["interferer_mbps"] = round(iperf.received_mbps(cap.reports[f"{sap}-{ssta}"]), 3)
    return step


def result(sc: AggScenario, mode: str, cc: str, cap: Capture, air: Air,
           ceilings: dict[str, dict[str, Any]] | None, with_agents: bool) -> dict[str, Any]:
    """The result document of one mode's run (the JSON's runs[mode])."""
    controlled = mode == "aggtarget"
    res = {"mode": mode, "congestion_control": None if sc.udp_offered_mbit is not None else cc,
           "udp_offered_mbit": sc.udp_offered_mbit, "started_unix": round(cap.started, 3),
           "pairs": [pair_entry(sc, controlled, cap, air, ap, sta) for ap, sta in sc.pairs],
           "wlan_emu_links": cap.emu_stats.get("links"), "cleanup_errors": cap.errors}
    if cap.wan_stats:
        # wan-emu's counters per direction: drop_queue is the loss at the backhaul's queue
        res["backhaul"] = cap.wan_stats
    if controlled:
        # what the loop ran with: each AP's ceiling entered in the topology and the N̄ it gave
        res["ap_ceilings"] = ceilings or {}
        # the ACK-burst model adwiser-dp loaded (its agg_est in ack_slots is that model's)
        model = json.loads(backend_mod.ACK_MODEL.read_text())
        res["ack_model"] = {k: model.get(k) for k in ("version", "scale", "scale_by_stas", "gap_by_stas_us")}
        res["n_bar"] = {ap: (ceilings or {}).get(ap, {}).get("n_bar", LAB_NBAR) for ap in {a for a, _ in sc.pairs}}
    if with_agents and STA_MODEL.exists():
        # the classifier the STA-side agents ran (their sta_agent figures are that model's)
        model = json.loads(STA_MODEL.read_text())
        res["sta_model"] = {"version": model.get("version"), "m": model.get("m"),
                            "commit": (model.get("training") or {}).get("commit")}
    return res
