"""Report section: the air each batch's first MPDU takes alone under downlink
time-slicing (issue 4's utility goal), from results/batch-starts.json
(`python -m runner.batch_starts`; the reading is in findings/downlink-uplink.md, "downlink-20ms
against the goals")."""
from __future__ import annotations

from pathlib import Path

from .jsonl import derived_from_committed_run, result_doc
from .report_cells import num


def section_lines(results_dir: Path) -> list[str]:
    lines = ["## Downlink slicing: the air a batch's first MPDU takes alone (issue 4)", ""]
    doc = result_doc(results_dir / "batch-starts.json", "downlink-20ms")
    if doc is None:
        return lines + ["not measured yet (`python -m runner.batch_starts` reads the kept ground truth of "
                        "`downlink-20ms`)", ""]
    lines += ["A batch released into an idle AP: its first packet arrives alone and goes on the air at once "
              "(802.11 immediate access after AIFS), a one-MPDU A-MPDU, and the rest of the batch waits for it, "
              "its BlockAck and the next channel access. Lone starts = such PPDUs in the emulator's ground truth; "
              "cost = the air from each to the next PPDU, less its own MPDU's airtime; active = the pair's data "
              "PPDUs and the gaps between them under 2.5 ms; 'if full' = goodput × active / (active − cost), "
              "the utility if that air had carried data like the pair's other PPDUs (an estimate). "
              "See testbed/findings/downlink-uplink.md.", "",
              "| scenario | pair | data PPDUs | lone starts | µs each | cost % of active | Mbit/s | if full | "
              "utility | if full | bound | same run |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, sc in doc.items():
        for pair, p in (sc.get("pairs") or {}).items():
            lines.append(f"| {name} | {pair} | {p.get('ppdus')} | {p.get('lone_starts')} | "
                         f"{num(p.get('cost_us_each'), 0)} | "
                         f"{num((p.get('cost_frac_of_active') or 0) * 100, 2)} | "
                         f"{num(p.get('mbps'), 1)} | {num(p.get('mbps_if_full'), 1)} | "
                         f"{num(sc.get('utility'), 3)} | {num(sc.get('utility_if_full'), 3)} | "
                         f"{num(sc.get('utility_bound'), 3)} | "
                         f"{'yes' if derived_from_committed_run(sc, results_dir, name) else 'no'} |")
    return lines + [""]
