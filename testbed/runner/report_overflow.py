"""Report section: where the uplink and WAN scenarios' slice overflow and
throughput shortfall come from (issue 4), from results/overflow-breakdown.json
(`python -m runner.overflow_breakdown`; the reading is in findings/downlink-uplink.md, "Uplink
and WAN: where the overflow and the shortfall come from")."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .jsonl import derived_from_committed_run


def _doc(results_dir: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads((results_dir / "overflow-breakdown.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return doc if isinstance(doc, dict) and doc else None


def _pct(v: Any) -> str:
    return f"{v * 100:.1f}" if isinstance(v, (int, float)) else "–"


def _num(v: Any) -> str:
    return f"{v:g}" if isinstance(v, (int, float)) else "–"


def section_lines(results_dir: Path) -> list[str]:
    lines = ["## Uplink and WAN: where the overflow and the shortfall come from (issue 4)", ""]
    doc = _doc(results_dir)
    if doc is None:
        return lines + ["not measured yet (`python -m runner.overflow_breakdown` reads the kept run logs)", ""]
    lines += ["Per pair, airtime outside its slices as % of its slice time, split by the emulator's frame numbering: "
              "STA data queued before the slice's ACK batch (backlog), data the batch freed, the AP's own "
              "transmissions; the STA queue wait is a lower bound; the air drain of a batch runs from the slice "
              "start to the last PPDU of the data it freed, V is what the dataplane inferred. From the run logs "
              "kept with each scenario (\"same run\": the one in its JSON). See testbed/findings/downlink-uplink.md.", "",
              "| scenario | pair | overflow % | STA backlog % | batch data % | AP % | retried % | "
              "STA wait mean / p90 ms | air drain p50 ms (over S) | V p50 ms | r p10-p90 | same run |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, sc in doc.items():
        for pair, p in (sc.get("pairs") or {}).items():
            w, d, v, r = (p.get(k) or {} for k in ("sta_wait_lb_ms", "air_drain_ms", "v_ms", "r_pkts"))
            lines.append(f"| {name} | {pair} | {_pct(p.get('overflow'))} | {_pct(p.get('sta_backlog'))} | "
                         f"{_pct(p.get('sta_batch'))} | {_pct(p.get('ap'))} | {_pct(p.get('retried'))} | "
                         f"{_num(w.get('mean'))} / {_num(w.get('p90'))} | {_num(d.get('p50'))} "
                         f"({_pct(d.get('over_slice'))} %) | {_num(v.get('p50'))} | "
                         f"{_num(r.get('p10'))}-{_num(r.get('p90'))} | "
                         f"{'yes' if derived_from_committed_run(sc, results_dir, name) else 'no'} |")
    lines += ["", "Sender's view, last transfer of each run (iperf3): seconds at 0 Mbit/s, retransmissions, "
              "first and largest cwnd, mean srtt, throughput over each half, seconds to 80 % of the second half.", "",
              "| scenario | pair | stalled s | retx | cwnd first / max KB | srtt ms | Mbit/s 1st / 2nd half | "
              "s to 80 % |", "|---|---|---|---|---|---|---|---|"]
    for name, sc in doc.items():
        for pair, f in (sc.get("iperf_last_run") or {}).items():
            lines.append(f"| {name} | {pair} | {_num(f.get('stalled_s'))} | {_num(f.get('retransmits'))} | "
                         f"{_num(f.get('cwnd_kb_first'))} / {_num(f.get('cwnd_kb_max'))} | "
                         f"{_num(f.get('srtt_ms_mean'))} | {_num(f.get('mbps_first_half'))} / "
                         f"{_num(f.get('mbps_second_half'))} | {_num(round(f['s_to_80pct_of_second_half'], 1)) if isinstance(f.get('s_to_80pct_of_second_half'), (int, float)) else '–'} |")
    lines += ["", "Each transfer's first seconds against the rest, from the dataplane's frame telemetry (released packets "
              "× 1448 bytes; V the drain time it inferred), mean over the run's transfers "
              "(`runner/transfer_phases.py`).", "",
              "| scenario | pair | transfers | 0-4 s Mbit/s (V ms) | 4-8 s | 8 s to the end |", "|---|---|---|---|---|---|"]
    for name, sc in doc.items():
        for pair, runs in (sc.get("transfer_phases") or {}).items():
            cells = []
            for key in ("0-4s", "4-8s", "8s-end"):
                got = [r[key] for r in runs if isinstance(r.get(key), dict)]
                mbps = [g["mbps"] for g in got if isinstance(g.get("mbps"), (int, float))]
                v = [g["v_ms"] for g in got if isinstance(g.get("v_ms"), (int, float))]
                cells.append(f"{sum(mbps) / len(mbps):.1f} ({sum(v) / len(v):.1f})" if mbps and v else "–")
            lines.append(f"| {name} | {pair} | {len(runs)} | " + " | ".join(cells) + " |")
    return lines + [""]
