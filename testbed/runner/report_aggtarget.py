"""The aggregation-target section of results/REPORT.md (issue 9): per scenario,
the controlled run beside plain CUBIC and BBR through the same 11ac air (rate,
one-way delay appliance -> STA, A-MPDU size, airtime), the goals as measured,
and a rate/delay time-series plot like 001 Fig 16."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .aggtarget import AFTER_STOP_S, PROBE_PPS
from .aggtarget_scenarios import MODES, SCENARIOS
from .aggtarget_air import air_per_round
from .aggtarget_repeats import report_line as repeats_line
from .report_cells import num, provenance


def _load(results_dir: Path) -> dict[str, dict[str, Any]]:
    docs = {}
    for name in SCENARIOS:
        try:
            docs[name] = json.loads((results_dir / f"{name}.json").read_text())
        except (OSError, json.JSONDecodeError):
            continue
    return docs


def plot(doc: dict[str, Any], out: Path) -> Path | None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [(m, doc["runs"][m]) for m in MODES if m in doc["runs"] and "pairs" in doc["runs"][m]]
    if not runs:
        return None
    fig, (ax_r, ax_d) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for mode, r in runs:
        for p in r["pairs"]:
            label = f"{mode} {p['sta']}"
            if p.get("series"):
                ax_r.plot([t for t, _ in p["series"]], [v for _, v in p["series"]], label=label)
            ds = p.get("delay_series") or []
            if ds:
                t0 = ds[0][0]
                ax_d.plot([t - t0 for t, _ in ds], [v for _, v in ds], label=label, linewidth=0.8)
    ax_r.set_ylabel("rate (Mbit/s)")
    ax_d.set_ylabel("delay appliance→STA (ms)")
    ax_d.set_yscale("log")
    ax_d.axhline(doc["t_bar_ms"], color="k", linestyle="--", linewidth=0.8, label="T̄")
    ax_d.set_xlabel("time (s)")
    ax_r.legend(fontsize=7)
    ax_d.legend(fontsize=7)
    fig.suptitle(f"{doc['scenario']}: aggregation target vs CUBIC and BBR (like 001 Fig 16)")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def _half_mbps(run: dict[str, Any]) -> float | None:
    rates = [p.get("throughput_second_half_mbps") for p in run.get("pairs") or []]
    return sum(rates) if rates and all(isinstance(r, int | float) for r in rates) else None


def _repeated(doc: dict[str, Any], mode: str) -> bool:
    """Whether the mode's row is the last of a scenario's repeated runs (the controlled mode; the straight mode
    too once each controlled run had a straight run of its own, runner/aggtarget.py _run_order)."""
    reps = doc.get("repeats") or []
    if mode == "aggtarget":
        return bool(reps)
    straight = {r.get("straight_started_unix") for r in reps}
    return mode == SCENARIOS[doc["scenario"]].straight_mode and len(straight) > 1


def round_lines(docs: dict[str, dict[str, Any]]) -> list[str]:
    """The AP's round in the runs with several pairs (aggtarget_air.air_per_round), each controlled run set
    against its straight run: the goodput ratio split into how much of the round carries data and whose."""
    rows = []
    for name, doc in docs.items():
        straight = doc["runs"].get(SCENARIOS[name].straight_mode) or {}
        base, straight_got = air_per_round(straight.get("pairs") or []), _half_mbps(straight)
        for mode in MODES:
            run = doc["runs"].get(mode) or {}
            air = air_per_round(run.get("pairs") or [])
            if air is None:
                continue
            ratios = "| | |"
            got = _half_mbps(run)
            if mode == "aggtarget" and base is not None and straight_got and got is not None:
                share = air["data_share"] / base["data_share"]
                phy = air["phy_mbps_by_airtime"] / base["phy_mbps_by_airtime"]
                ratios = f"| {share:.3f} x {phy:.3f} = {share * phy:.3f} | {got / straight_got:.3f} |"
            rows.append(f"| {name} | {mode} | {air['round_ms']:.2f} | "
                        f"{', '.join(f'{a:.0f}' for a in air['ampdu_airtime_us'])} | {air['data_share']:.3f} | "
                        f"{air['rest_ms']:.2f} | {air['phy_mbps_by_airtime']:.0f} | {num(got)} {ratios}")
    if not rows:
        return []
    return ["The AP's round with several pairs, second half of each run (`aggtarget_air.air_per_round`, from the "
            "ground truth): round = mean time between a pair's A-MPDU starts; A-MPDU = mean airtime of each pair's "
            "data PPDUs; data share = the part of the time they fill; rest = the round's remainder (channel "
            "access, BlockAcks, the STAs' TCP ACKs: 000 §IV's c); PHY = the pairs' PHY rates weighted by their "
            "airtime. Goodput is about data share x PHY x the MAC's efficiency, so for a controlled run the "
            "ratio of the first two to its straight run's is set beside the measured ratio of second-half goodput.",
            "",
            "| scenario | mode | round ms | A-MPDU µs per pair | data share | rest ms | PHY Mbit/s by airtime "
            "| 2nd half Mbit/s | share x PHY vs straight | goodput vs straight |",
            "|---|---|---|---|---|---|---|---|---|---|", *rows, ""]


def c_hat_at_stop(run: dict[str, Any]) -> tuple[float, float] | None:
    """ĉ (µs) at the loop's last step before the transfers ended and at its last step read AFTER_STOP_S
    later (the first pair's: ĉ is the AP's), or None for a run without those steps (straight, or before
    `loop_after_stop` was recorded)."""
    pairs = run.get("pairs") or [{}]
    after = pairs[0].get("loop_after_stop") or []
    if not after:
        return None
    before = [h for h in pairs[0].get("loop") or [] if h["unix"] < after[0]["unix"] and h.get("c_hat_us")]
    if not before or after[-1].get("c_hat_us") is None:
        return None
    return before[-1]["c_hat_us"], after[-1]["c_hat_us"]


def ack_estimate_line(doc: dict[str, Any]) -> str | None:
    """The dataplane's ACK-burst estimate against the ground truth in the controlled run, per pair
    (`ack_estimate`, runner/ack_scale.py), or None for a run without it. Where the loop ran on the estimate
    (mu_source "ack"): true / estimated, with the model's version when the run recorded it; where it ran on the
    ground truth: true / raw segments per burst, what `runner.ack_scale fit` fits the scale on."""
    run = doc["runs"].get("aggtarget") or {}
    pairs = [p for p in run.get("pairs") or [] if (p.get("ack_estimate") or {}).get("slots")]
    if not pairs:
        return None
    on_ack = doc.get("mu_source") == "ack"
    key = "truth_over_estimate" if on_ack else "truth_over_raw"
    version = (run.get("ack_model") or {}).get("version")
    source = "the STA-side agents" if doc.get("mu_source") == "agent" else "the ground truth"
    what = (f"the loop ran on it{f', model v{version}' if version else ''}; true / estimated" if on_ack else
            f"the loop ran on {source}; true / raw segments per burst, the scale's fit input")
    return (f"  - ACK-burst estimate ({what}) mean A-MPDU over 0.5 s slots (geometric mean), receiving STAs at the "
            "AP: " + "; ".join(
                f"{p['sta']} {num(p['ack_estimate'][key], 2)} "
                f"({'/'.join(str(k) for k in p['ack_estimate']['stas'])} STAs, {p['ack_estimate']['slots']} slots)"
                for p in pairs))


def sta_agent_line(doc: dict[str, Any]) -> str | None:
    """The STA-side agents' own A-MPDU boundaries against the ground truth in the controlled run, per pair
    (`sta_agent`, runner/sta_frames.py), or None for a run without them."""
    run = doc["runs"].get("aggtarget") or {}
    pairs = [p for p in run.get("pairs") or [] if (p.get("sta_agent") or {}).get("slots")]
    if not pairs:
        return None
    fed = "the loop ran on it" if doc.get("mu_source") == "agent" else "logged only"
    return (f"  - STA-side agent (adwiser-sta-agent, kernel timestamps; {fed}): F1 of its A-MPDU boundaries, its "
            "mean A-MPDU against the truth's decoded / sent MPDUs per PPDU over 0.5 s slots: " + "; ".join(
                f"{p['sta']} F1 {num(p['sta_agent']['f1'], 3)}, {num(p['sta_agent']['est_mean'])} against "
                f"{num(p['sta_agent']['true_ok_mean'])} / {num(p['sta_agent']['true_sent_mean'])}" for p in pairs))


def section_lines(results_dir: Path) -> list[str]:
    docs = _load(results_dir)
    lines = ["## Aggregation-target policy (issue 9: 000 §VI, 001 §5; 802.11ac 80 MHz air)", ""]
    if not docs:
        return lines + ["No `aggtarget-*` results yet (`make experiment SCENARIO=aggtarget-1sta`).", ""]
    lines += ["Controlled = adwiser-dp paces each pair at the rate of the controller's aggregation-loop "
              "(μ̃_N and μ_R from the emulator's ground truth as STA-side agent; μ̃_N in an `-ack` scenario from "
              "the appliance's ACK-burst estimate, in an `-agent` scenario from adwiser-sta-agent on each STA); "
              "cubic/bbr = straight "
              "forwarding with plain TCP; a `-udp` scenario sends iperf3 UDP at a fixed offered rate instead "
              "(paced by the loop, or forwarded straight in mode udp). Delay = one-way, appliance → STA (UDP probes, "
              f"{PROBE_PPS:g}/s, captured at the "
              "AP port and at the STA): AP queueing plus air, retransmissions and the STA's in-order hold. AP queue = the "
              "AP queueing delay of 000 (9) from the ground truth: enqueue to the start of each MPDU's first A-MPDU, "
              "whole run / second half. Mbit/s = receiver goodput of the whole run; 2nd half = "
              "sender rate over its second half (the receiver's in a `-udp` scenario), after the loop's start-up "
              "(`startup_s` in the JSON's goals).", "",
              "| scenario | mode | pair | Mbit/s | 2nd half Mbit/s | delay mean ms | delay p95 ms | AP queue ms "
              "| A-MPDU | PHY Mbit/s | airtime | N_target |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, doc in docs.items():
        for mode in MODES:
            r = doc["runs"].get(mode)
            if r is None:
                continue
            if "skipped" in r:
                lines.append(f"| {name} | {mode} | – | skipped: {r['skipped']} | | | | | | | | |")
                continue
            # The controlled mode's row is the last of its repeats, and so is the straight mode's when each
            # controlled run had one of its own (straight_started_unix); the medians over them are under the table.
            shown = f"{mode} (last of {len(doc['repeats'])})" if _repeated(doc, mode) else mode
            for p in r["pairs"]:
                tgt = (p.get("target") or {}).get("n_target_final")
                lines.append(f"| {name} | {shown} | {p['ap']}/{p['sta']} | {num(p['throughput_mbps'])} | "
                             f"{num(p.get('throughput_second_half_mbps'))} | "
                             f"{num(p['mean_delay_ms'], 2)} | {num(p['p95_delay_ms'], 2)} | "
                             f"{num(p.get('ap_queue_delay_ms'), 2)} / {num(p.get('second_half_ap_queue_delay_ms'), 2)} | "
                             f"{num(p['mean_ampdu'])} | "
                             f"{num(p['mean_phy_mbps'])} | {num(p.get('airtime_frac'), 3)} | {num(tgt)} |")
    lines.append("")
    lines += round_lines(docs)
    for name, doc in docs.items():
        lines.append(f"- `{name}` (T̄ {doc['t_bar_ms']:g} ms, {doc['duration_s']:g} s per run, air `{doc['air']}`"
                     + (f", backhaul {doc['backhaul_mbit']:g} Mbit/s" if doc.get("backhaul_mbit") else "")
                     + f"; {provenance(doc)}): goals as measured"
                     + (f" in the last of {len(doc['repeats'])} controlled runs" if doc.get("repeats") else "")
                     + f" {json.dumps(doc.get('goals'))}")
        stop = c_hat_at_stop(doc["runs"].get("aggtarget") or {})
        if stop:
            lines.append(f"  - ĉ {stop[0]:.0f} µs at the loop's last step before the transfers ended, "
                         f"{stop[1]:.0f} µs {AFTER_STOP_S:g} s after (`loop_after_stop`)")
        for extra in (repeats_line(doc), ack_estimate_line(doc), sta_agent_line(doc)):
            if extra:
                lines.append(extra)
        for ap, c in (doc.get("ap_ceilings") or {}).items():
            if c.get("ampdu_ceiling_us") is not None:
                lines.append(f"  - {ap}'s aggregation ceiling {c['ampdu_ceiling_us']:g} us of A-MPDU airtime "
                             f"({c['ampdu_ceiling_mpdus']:g} MPDUs at {c['pair_phy_mbps']:g} Mbit/s; {c['pair']}: "
                             f"{c['source']}) entered in the topology; each pair's N̄ = 48/64 of the MPDUs it holds "
                             f"at the pair's PHY rate, every step ({c['n_bar']:g} at that rate; 000 §V-A (17), "
                             f"controller aggregation/nbar.py)")
            else:
                lines.append(f"  - {ap}'s aggregation ceiling {c['ampdu_ceiling_mpdus']:g} MPDUs ({c['pair']}: "
                             f"{c['source']}) entered in the topology; N̄ = 48/64 of it = {c['n_bar']:g} (000 §V-A (17))")
        png = plot(doc, results_dir / f"{name}.png")
        if png:
            lines.append(f"\n  ![{name}]({png.name})\n")
    missing = [n for n, s in SCENARIOS.items() if s.unsupported]
    if missing:
        lines.append("")
        lines += [f"- `{n}`: not run here: {SCENARIOS[n].unsupported}" for n in missing]
    return lines + [""]
