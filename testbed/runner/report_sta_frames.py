"""Report section of the STA-side agent's A-MPDU boundary classifier (SPEC §3.7; 001 §4, like Fig 13):
results/sta-frame-estimator.json, written by `python -m runner.sta_frames fit`."""
from __future__ import annotations

from pathlib import Path

from .jsonl import result_doc


def section_lines(results_dir: Path) -> list[str]:
    lines = ["## STA-side aggregation agent (SPEC §3.7; 001 §4, like Fig 13)", ""]
    doc = result_doc(results_dir / "sta-frame-estimator.json", "per_capture")
    if doc is None:
        return lines + ["(not fitted yet: `python -m runner.aggtarget <scenario> --modes aggtarget --capture-sta`, "
                        "then `python -m runner.sta_frames fit <run dirs>`)", ""]
    sweep = ", ".join(f"m = {r['m']}: {r['f1']:.3f}" for r in doc["m_sweep"])
    lines += [f"adwiser-sta-agent's classifier, fitted on the agents' packet logs of controlled runs labelled from "
              f"wlan-emu's ground truth (a packet belongs to the PPDU on the air when it arrived); out-of-fold F1 "
              f"(5 folds in time per capture), m = {doc['m']} chosen by cross-validation ({sweep}). Mean A-MPDU "
              "over 0.5 s slots: the agent's (packets per A-MPDU it found) against the decoded and the sent MPDUs "
              "per PPDU of the ground truth (PPDUs that delivered an MPDU). Gaps: inter-arrival times inside a PPDU "
              "(p50 / p99) and at a PPDU's first packet (p1 / p50), µs.", "",
              "| capture | packets | PPDUs | F1 | agent's mean A-MPDU | decoded | sent | gaps inside "
              "| gaps at a boundary |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in doc["per_capture"]:
        g = r.get("ceiling_gap_us") or {}
        lines.append(f"| {r['capture']} | {r['packets']} | {r['ppdus']} | {r['f1']:.3f} | {r.get('est_mean')} | "
                     f"{r.get('true_ok_mean')} | {r.get('true_sent_mean')} | {g.get('inside_p50')} / "
                     f"{g.get('inside_p99')} | {g.get('boundary_p1')} / {g.get('boundary_p50')} |")
    return lines + [""]
