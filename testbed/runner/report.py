"""results/REPORT.md: our measured rows beside the paper's (004 Tables 3 and
4) and matplotlib figures like its Figs 2, 8, 10 and 11.

Only what is in results/*.json (and the ground-truth logs under
results/runs/<scenario>/) is reported; missing scenarios are listed as such.
"""
from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from . import (groundtruth, report_ack_burst, report_aggtarget, report_batch_starts,  # noqa: E402
               report_bottleneck, report_downlink_goals, report_mixed, report_overflow, report_sta_frames,
               result_file)
from .experiment import RESULTS  # noqa: E402
from .jsonl import kept_run_is_committed, result_doc, telemetry_records  # noqa: E402
from .report_cells import against, num, provenance  # noqa: E402

# 004 §6, Table 3 (downlink) and Table 4 (uplink): θ1, V1, θ2, V2, utility.
PAPER: dict[str, dict[str, tuple[float, float | None, float, float | None, float]]] = {
    "downlink": {
        "Isolated": (79.6, None, 103.5, None, 7.63),   # utility column: the bound
        "Together": (21.7, None, 25.7, None, 6.32),
        "S=100ms": (38.3, 99.64, 50.9, 99.28, 7.59),
        "S=20ms": (36.6, 19.65, 47.5, 19.51, 7.46),
        "WAN S=20ms": (34.9, 19.6, 46.7, 19.53, 7.4),
    },
    "uplink": {
        "Isolated": (75.6, None, 103.0, None, 7.56),
        "Together": (29.7, None, 41.2, None, 7.10),
        "S=100ms": (36.5, 99.80, 49.1, 99.70, 7.49),
        "S=20ms": (31.9, 19.9, 44.4, 19.56, 7.25),
        "WAN S=20ms": (31.8, 19.72, 43.9, 19.83, 7.24),
    },
}
ROWS = {  # table rows in the paper's order: (scenario, paper row)
    "downlink": [("isolated", "Isolated"), ("together", "Together"),
                 ("downlink-100ms", "S=100ms"), ("downlink-20ms", "S=20ms"),
                 ("downlink-wan-20ms", "WAN S=20ms"), ("downlink-20ms-nfqueue", "S=20ms")],
    "uplink": [("isolated-uplink", "Isolated"), ("together-uplink", "Together"),
               ("uplink-100ms", "S=100ms"), ("uplink-20ms", "S=20ms"),
               ("uplink-wan-20ms", "WAN S=20ms")],
}


# Issue 3's calibration targets (004 Table 3 and §4.1/Fig 8): per pair, the
# throughput target and its tolerance, and the A-MPDU / PHY-rate conditions.
@dataclass(frozen=True)
class CalibrationTarget:
    throughput: tuple[float, float]  # θ1, θ2 (Mbit/s)
    tolerance: float                 # allowed relative deviation of θ
    ampdu: tuple[str, float]         # ("near" | "under" | "above", MPDUs)
    phy: tuple[str, float]           # ("near" | "under" | "above", Mbit/s)


NEAR = 0.15  # "near" a calibration target: within ±15 % of it

CALIBRATION = {
    "isolated": CalibrationTarget((79.6, 103.5), 0.05, ("near", 19.0), ("above", 100.0)),
    "together": CalibrationTarget((21.7, 25.7), 0.20, ("under", 9.0), ("under", 60.0)),
}


def calibration_lines(docs: dict[str, dict[str, Any]]) -> list[str]:
    """Each calibration target beside what this build measured, met or not."""
    out = ["| scenario | pair | measured | target | met |", "|---|---|---|---|---|"]
    for name, c in CALIBRATION.items():
        d = docs.get(name)
        if d is None:
            out.append(f"| {name} | – | not run | – | – |")
            continue
        for p, target in zip(d["pairs"], c.throughput):
            pair = f"{p['ap']}-{p['sta']}"
            t, tol = p["throughput_mbps"], c.tolerance
            ok = abs(t - target) <= tol * target
            dev = (t / target - 1) * 100
            shown, _ = against(abs(dev), tol * 100, 1)
            out.append(f"| {name} | {pair} | θ {t:.1f} Mbit/s ({'-' if dev < 0 else '+'}{shown} %) "
                       f"| {target} ± {tol * 100:.0f} % | {'yes' if ok else 'no'} |")
            for key, label, (rel, bound) in (("mean_ampdu", "A-MPDU", c.ampdu),
                                             ("mean_phy_mbps", "PHY Mbit/s", c.phy)):
                v = p[key]
                if v is None:
                    out.append(f"| {name} | {pair} | {label} – | {rel} {bound:g} | no emulator |")
                    continue
                met = {"above": v > bound, "under": v < bound, "near": abs(v - bound) <= NEAR * bound}[rel]
                # to the digits at which the figure sits on the same side of the limit as its unrounded value
                edge = bound + (NEAR * bound if v > bound else -NEAR * bound) if rel == "near" else bound
                out.append(f"| {name} | {pair} | {label} {against(v, edge, 1)[0]} | {rel} {bound:g} "
                           f"| {'yes' if met else 'no'} |")
    return out


def emu_us(v: Any) -> str:
    """A wlan-emu timing quantile (µs): a number, or ">=20000" when it lies past the emulator's histogram, which
    keeps only that it is at least that much (testbed/emu/README.md, Stats)."""
    return f"≥ {v[2:]}" if isinstance(v, str) and v.startswith(">=") else str(v)


def summary_line(doc: dict[str, Any]) -> str:
    pairs = ", ".join(f"{p['ap']}-{p['sta']} {p['throughput_mbps']:.1f} Mbit/s" for p in doc["pairs"])
    return (f"{doc['scenario']}: {pairs}; utility {num(doc['utility'], 2)} "
            f"(bound {num(doc['utility_bound'], 2)})")


def load_results(results_dir: Path = RESULTS) -> dict[str, dict[str, Any]]:
    docs = {}
    for p in sorted(results_dir.glob("*.json")):
        try:
            doc = json.loads(p.read_text())
        except json.JSONDecodeError:
            continue
        if isinstance(doc, dict) and "scenario" in doc and "pairs" in doc:
            docs[doc["scenario"]] = doc
    return docs


def markdown_table(docs: list[dict[str, Any]] | dict[str, dict[str, Any]], direction: str) -> str:
    by_name = docs if isinstance(docs, dict) else {d["scenario"]: d for d in docs}
    head = ("| setting (scenario) | θ1 Mbit/s | paper | A-MPDU1 | PHY1 Mbit/s | V1 ms | paper "
            "| θ2 Mbit/s | paper | A-MPDU2 | PHY2 Mbit/s | V2 ms | paper | utility | paper "
            "| bound |\n" + "|---" * 16 + "|\n")
    rows = []

    def thr(d: dict[str, Any], i: int) -> str:
        p = d["pairs"][i]
        ci = (d.get("throughput_ci95_mbps") or {}).get(f"{p['ap']}/{p['sta']}")
        return num(p["throughput_mbps"]) + (f" ± {ci:.1f}" if ci is not None else "")

    for name, row in ROWS[direction]:
        paper = PAPER[direction][row]
        d = by_name.get(name)
        if d is None:
            continue
        p1, p2 = d["pairs"]
        paper_u = f"bound {paper[4]:.2f}" if row == "Isolated" else num(paper[4], 2)
        rows.append(
            f"| {row} ({name}) | {thr(d, 0)} | {num(paper[0])} | {num(p1['mean_ampdu'])} "
            f"| {num(p1['mean_phy_mbps'])} | {num(p1['mean_drain_ms'], 2)} | {num(paper[1], 2)} "
            f"| {thr(d, 1)} | {num(paper[2])} | {num(p2['mean_ampdu'])} "
            f"| {num(p2['mean_phy_mbps'])} | {num(p2['mean_drain_ms'], 2)} | {num(paper[3], 2)} "
            f"| {num(d['utility'], 2)} | {paper_u} | {num(d['utility_bound'], 2)} |")
    if not rows:
        return f"(no {direction} results yet)\n"
    return head + "\n".join(rows) + "\n"


def plot_timeseries(docs: dict[str, dict[str, Any]], out: Path) -> Path | None:
    names = [n for n, d in docs.items() if any(d.get("timeseries", {}).values())]
    if not names:
        return None
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 2.2 * len(names)), sharex=True, squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        for pair, series in docs[name]["timeseries"].items():
            if series:
                t, v = zip(*series)
                ax.plot(t, v, label=pair)
        # experiment.py keeps the series of the first of a scenario's repeats only
        repeats = docs[name].get("repeats", 1)
        ax.set_title(name + (f" (first of {repeats} runs)" if repeats > 1 else ""), fontsize=9)
        ax.set_ylabel("Mbit/s")
        ax.legend(fontsize=7, loc="upper right")
        ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time since the pair's transfer started (s)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_isolated_vs_together(docs: dict[str, dict[str, Any]], direction: str, out: Path) -> Path | None:
    """Like 004 Fig 2: per-pair throughput isolated vs together, ours beside the paper's."""
    iso, tog = ROWS[direction][0][0], ROWS[direction][1][0]
    if iso not in docs or tog not in docs:
        return None
    paper = PAPER[direction]
    labels = ["AP1-STA1", "AP2-STA2"]
    x = np.arange(2)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    bars = [("isolated (ours)", [p["throughput_mbps"] for p in docs[iso]["pairs"]], "tab:blue", ""),
            ("isolated (paper)", [paper["Isolated"][0], paper["Isolated"][2]], "tab:blue", "//"),
            ("together (ours)", [p["throughput_mbps"] for p in docs[tog]["pairs"]], "tab:red", ""),
            ("together (paper)", [paper["Together"][0], paper["Together"][2]], "tab:red", "//")]
    for i, (label, vals, color, hatch) in enumerate(bars):
        ax.bar(x + (i - 1.5) * 0.2, vals, 0.2, label=label, color=color, hatch=hatch,
               alpha=0.55 if hatch else 0.9, edgecolor="black")
    ax.set_xticks(x, labels)
    ax.set_ylabel(f"{direction} TCP throughput (Mbit/s)")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def _kept_logs(results_dir: Path, name: str, doc: dict[str, Any] | None) -> Path | None:
    """results/runs/<name>/ when its logs are of the run `doc` (results/<name>.json) reports; None when they are
    of another run (the scenario re-run, or its logs replaced, since), so no figure mixes them with its tables."""
    run = results_dir / "runs" / name
    return run if doc is not None and kept_run_is_committed(doc, run) else None


def _groundtruth(results_dir: Path, name: str, doc: dict[str, Any] | None) -> list[groundtruth.Ppdu]:
    run = _kept_logs(results_dir, name, doc)
    log = run / "groundtruth.jsonl" if run else None
    return groundtruth.read(log) if log and log.exists() else []


def plot_cdfs(docs: dict[str, dict[str, Any]], names: list[str], results_dir: Path,
              out: Path) -> Path | None:
    """Like 004 Fig 8 / Fig 10: CDFs of the PHY rate and the A-MPDU size of
    the data PPDUs (AP->STA for downlink, STA->AP for uplink)."""
    curves = []
    for name in names:
        if name not in docs:
            continue
        downlink = docs[name]["pairs"][0]["direction"] == "downlink"
        frames = [p for p in _groundtruth(results_dir, name, docs[name]) if p.src.startswith("ap") == downlink]
        for ap, sta in (("ap1", "sta1"), ("ap2", "sta2")):
            src, dst = (ap, sta) if downlink else (sta, ap)
            sel = [p for p in frames if p.src == src and p.dst == dst]
            if sel:
                curves.append((f"{name} {ap}-{sta}", [p.phy_mbps for p in sel], [p.mpdus for p in sel]))
    if not curves:
        return None
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.5))
    for label, phy, ampdu in curves:
        for ax, vals in ((a1, phy), (a2, ampdu)):
            v = np.sort(np.asarray(vals, dtype=float))
            ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=label)
    a1.set_xlabel("PHY rate (Mbit/s)")
    a2.set_xlabel("MPDUs per A-MPDU")
    for ax in (a1, a2):
        ax.set_ylabel("CDF")
        ax.grid(alpha=0.3)
    a2.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def plot_slicing_timeseries(results_dir: Path, name: str, out: Path) -> Path | None:
    """Like 004 Fig 11, from the dataplane's per-pair telemetry of the run results/<name>.json reports: packets
    released per slice, EWMA throughput per pair, and Σ ln of those EWMAs."""
    run = _kept_logs(results_dir, name, result_doc(results_dir / f"{name}.json", "pairs"))
    tel = run / "adwiser-dp.telemetry.jsonl" if run else None
    recs = telemetry_records(tel, "pair") if tel and tel.exists() else []
    if not recs:
        return None
    t0 = min(r["ts_ns"] for r in recs)
    by_pair: dict[str, list[dict[str, Any]]] = {}
    for r in recs:
        by_pair.setdefault(str(r.get("pair")), []).append(r)
    fig, (a1, a2, a3) = plt.subplots(3, 1, figsize=(8, 7), sharex=True)
    latest: dict[str, float] = {}
    util_t, util_v = [], []
    for r in sorted(recs, key=lambda r: r["ts_ns"]):
        tput = r.get("tput_mbps")
        if isinstance(tput, (int, float)) and tput > 0:
            latest[str(r["pair"])] = float(tput)
            if len(latest) == len(by_pair):
                util_t.append((r["ts_ns"] - t0) / 1e9)
                util_v.append(sum(np.log(v) for v in latest.values()))
    for pair, rs in by_pair.items():
        t = [(r["ts_ns"] - t0) / 1e9 for r in rs]
        a1.plot(t, [r.get("released_pkts") or 0 for r in rs], lw=0.8, label=pair)
        a2.plot(t, [r.get("tput_mbps") or 0 for r in rs], label=pair)
    a3.plot(util_t, util_v, color="black")
    a1.set_ylabel("packets released\nper slice")
    a2.set_ylabel("EWMA throughput\n(Mbit/s)")
    a3.set_ylabel("utility Σ ln θ")
    a3.set_xlabel(f"time (s), scenario {name}")
    for ax in (a1, a2, a3):
        ax.grid(alpha=0.3)
    a1.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


# Issue 10's faults, in the order the fabric tests inject them (controller/tests/fabric).
FAILOPEN_EVENTS = [
    ("sigkill", "dataplane SIGKILL"),
    ("restart_steer_back", "dataplane restarted (steered back)"),
    ("sigstop", "dataplane hung (SIGSTOP)"),
    ("forwarding_hang", "forwarding stalled, heartbeat alive"),
    ("controller_killed", "fabric manager killed"),
    ("redis_restart", "Redis restarted"),
    ("ovs_vswitchd_restart", "ovs-vswitchd restarted"),
]


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) else None


def failopen_lines(results_dir: Path = RESULTS) -> list[str]:
    """The interruption times measured by the fabric fault tests (results/failopen.json)."""
    doc = _read_json(results_dir / "failopen.json")
    if not doc or not doc.get("runs"):
        return ["(no fail-open figures yet: they are written by `make -C controller test-fabric`, as root)", ""]
    lines = [f"Written by the fabric fault tests (`make -C controller test-fabric`), last at {doc.get('updated_at')}. "
             f"Interruption = the largest gap between arrivals of a {doc.get('probe_rate_hz')} Hz UDP probe stream "
             f"({doc.get('probe_path')}) while bulk TCP runs; target {doc.get('target_ms')} ms. Baseline = the "
             "largest gap before the fault (what the path does anyway); switch = fault to the manager's flow swap.",
             "", "| fault | dataplane | interruption ms | baseline ms | switch ms (to) | lost probes | TCP completed |"
             " TCP Mbit/s |", "|---|---|---|---|---|---|---|---|"]
    for event, title in FAILOPEN_EVENTS:
        for kind, events in sorted(doc["runs"].items()):
            f = events.get(event)
            if not f:
                continue
            sw = "–" if f.get("switch_ms") is None else f"{f['switch_ms']} ({f.get('switch_to')})"
            lines.append(f"| {title} | {kind} | {f.get('interruption_ms')} | {f.get('baseline_gap_ms')} | {sw} | "
                         f"{f.get('lost_probes')} | {'yes' if f.get('tcp_completed') else 'no'} | {f.get('tcp_mbps')} |")
    return lines + [""]


def apply_lines(results_dir: Path = RESULTS) -> list[str]:
    """Apply -> active through the real controller and adwiser-dp under traffic (results/apply-under-traffic.json)."""
    doc = _read_json(results_dir / "apply-under-traffic.json")
    if not doc:
        return ["(not measured yet: written by the fabric test of a slice-map apply under traffic, "
                "`make -C controller test-fabric`, as root)", ""]
    ms = doc.get("apply_to_active_ms") or []
    lines = [f"Measured {doc.get('measured_at')}: {doc.get('what')}.", "",
             f"- apply -> active ({len(ms)} applies): " + (", ".join(f"{v:g}" for v in ms) + " ms" if ms else "–"),
             f"- frame length before/after: {doc.get('frame_ms_before')} / {doc.get('frame_ms_after')} ms "
             "(from adwiser-dp's tm:frame telemetry)",
             f"- probes sent {doc.get('probes_sent')}, received {doc.get('probes_received')}, "
             f"dataplane drops {doc.get('dataplane_drops')}; TCP {doc.get('tcp_mbps')} Mbit/s", ""]
    return lines


def write_report(results_dir: Path = RESULTS) -> Path:
    docs = load_results(results_dir)
    figs: list[tuple[str, Path | None]] = [
        ("Throughput over time (iperf3 intervals; a repeated scenario's first run)", plot_timeseries(docs, results_dir / "throughput_timeseries.png")),
        ("Isolated vs together, downlink (like Fig 2)",
         plot_isolated_vs_together(docs, "downlink", results_dir / "isolated_vs_together.png")),
        ("Isolated vs together, uplink",
         plot_isolated_vs_together(docs, "uplink", results_dir / "isolated_vs_together_uplink.png")),
        ("PHY rate and A-MPDU size CDFs, isolated vs together (like Fig 8)",
         plot_cdfs(docs, ["isolated", "together"], results_dir, results_dir / "cdf_isolated_together.png")),
        ("PHY rate and A-MPDU size CDFs under time-slicing (like Fig 10)",
         plot_cdfs(docs, ["downlink-100ms", "downlink-20ms"], results_dir, results_dir / "cdf_slicing.png")),
        ("Time-slicing over time, downlink 20 ms (like Fig 11)",
         plot_slicing_timeseries(results_dir, "downlink-20ms", results_dir / "slicing_timeseries.png")),
    ]
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                timeout=10, cwd=results_dir).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = ["# ADWISER testbed report", "", f"Written {when} at commit {commit}.", "",
             "Generated by `make report` from `testbed/results/*.json`. Throughput θ is the iperf3 "
             "receiver's goodput, the mean over the scenario's repeats, and θ ± x is that mean ± the half-width "
             "of its 95 % confidence interval (Student t over the repeats; each run's θ is under Runs); "
             "utility = Σ ln θ_i (Mbit/s); bound = Σ ln(β_i/2) from the isolated "
             "throughputs of the same build; A-MPDU and PHY figures come from the WLAN emulator's "
             "stats (– where the emulator did not run); V is the mean drain time the dataplane "
             "inferred. The paper's columns are 004 Tables 3 and 4.", ""]
    lines += ["## Calibration (issue 3: Table 3 isolated/together rows only)", "",
              "\"near 19\" is read as within ±15 %; nothing here is fitted by the harness.", "",
              *calibration_lines(docs), ""]
    for direction, title in (("downlink", "Downlink TCP (like Table 3)"), ("uplink", "Uplink TCP (like Table 4)")):
        lines += [f"## {title}", "", markdown_table(docs, direction)]
        if direction == "downlink":
            lines += report_downlink_goals.section_lines(docs)
    lines += report_overflow.section_lines(results_dir)
    lines += report_batch_starts.section_lines(results_dir)
    lines += report_mixed.section_lines(docs)
    lines += report_aggtarget.section_lines(results_dir)
    lines += report_ack_burst.section_lines(results_dir)
    lines += report_sta_frames.section_lines(results_dir)
    lines += report_bottleneck.section_lines(results_dir)
    lines += ["## Fail-open (issue 10: interruption when something fails)", "", *failopen_lines(results_dir)]
    lines += ["## Slice-map apply under traffic (issue 6: apply -> dataplane running the version)", "",
              *apply_lines(results_dir)]
    lines += ["## Runs", ""]
    for name, d in docs.items():
        emu = d.get("emulator") or "none (veth bridges, no air model)"
        lines.append(f"- `{name}`: {d['duration_s']:g} s per transfer, backend {d.get('backend')}, "
                     f"WAN {d.get('wan')}, CC {d.get('congestion_control')}, WLAN emulator: {emu}; "
                     f"{provenance(d)}")
        emu_stats = d.get("wlan_emu")
        if emu_stats:
            te = emu_stats.get("timing_error_us") or {}
            lines.append(f"  - wlan-emu: CPU {num(emu_stats.get('cpu_percent'))} % of one core, delivery "
                         f"timing error p50 {emu_us(te.get('p50'))} µs, p99 {emu_us(te.get('p99'))} µs, "
                         f"max {te.get('max')} µs")
        dp = d.get("dataplane")
        if dp and isinstance(dp.get("slice_start_error"), dict):
            se = dp["slice_start_error"]
            lines.append(f"  - adwiser-dp ({dp.get('backend')}): slice-start error p50 {se.get('p50_us')} µs, "
                         f"p99 {se.get('p99_us')} µs")
        if d.get("backend") not in (None, "none"):
            ov, ov_rel = d.get("slice_overflow"), d.get("slice_overflow_as_released")
            lines.append("  - slice overflow (airtime outside the pair's slices / its slice time): " + (
                ", ".join(f"{k} {v * 100:.2f} %" for k, v in ov.items() if v is not None) if ov
                else "not computed (the wlan-emu stats carry no t0_unix_ns to align its clock)"))
            if ov_rel and ov_rel != ov:
                lines.append("  - of the slices as released (a slice starting when the one before drained with no "
                             "time left for a refill, `early_ms`): " +
                             ", ".join(f"{k} {v * 100:.2f} %" for k, v in ov_rel.items() if v is not None))
        if d.get("repeats", 1) > 1:
            lines.append(f"  - {d['repeats']} repeats, per-run throughputs (Mbit/s): {d.get('throughput_runs_mbps')}")
        wan_stats = d.get("wan_emu")
        if wan_stats:
            ab = wan_stats["a_to_b"]
            lines.append(f"  - wan-emu server->appliance: {ab['tx_frames']} frames, drops "
                         f"{ab['drop_queue']}, departure lateness p50 {ab['late_p50_us']} µs, "
                         f"p99 {ab['late_p99_us']} µs")
    lines += ["", "## Figures", ""]
    for title, path in figs:
        lines.append(f"### {title}\n\n![{title}]({path.name})\n" if path
                     else f"### {title}\n\n(not available: the scenarios it needs, or their kept logs of the run "
                          "in each scenario's JSON, are missing)\n")
    out = results_dir / "REPORT.md"
    result_file.write_text(out, "\n".join(lines) + "\n")
    return out
