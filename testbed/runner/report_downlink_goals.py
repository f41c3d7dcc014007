"""Report section: issue 4's goals for downlink time-slicing, met or not, per
sliced downlink run (nothing is tuned to meet them):

- utility Σ ln θ_i >= bound - 0.08, bound = Σ ln(β_i/2);
- each pair's θ_i >= 93 % of β_i/2;
- slice overflow (the pair's airtime outside its slices, fixed grid) < 2 % of its slice time;
- mean V within 3 % of S.

β_i are the throughputs of the isolated run on disk now. A run whose
`utility_bound` was taken from another isolated run (isolated.json re-run
since) is judged on neither bound: the row says so instead of a verdict.
Figures are shown to as many digits as it takes for them to compare as the
unrounded ones do (report_cells.against)."""
from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from .experiment import utility
from .report_cells import against

UTILITY_MARGIN = 0.08
PAIR_FRACTION = 0.93
OVERFLOW_LIMIT = 0.02
V_TOLERANCE = 0.03
ISOLATED = "isolated"


def _verdict(met: bool | None) -> str:
    return "–" if met is None else "yes" if met else "no"


def _sliced_downlink(d: dict[str, Any]) -> bool:
    return (d.get("slice_ms") is not None and d.get("mix") is None
            and all(p.get("direction") == "downlink" for p in d.get("pairs") or []))


def scenario_rows(name: str, d: dict[str, Any], beta: list[float]) -> list[str]:
    rows: list[str] = []

    def row(goal: str, measured: str, met: bool | None) -> None:
        rows.append(f"| {name} | {goal} | {measured} | {_verdict(met)} |")

    pairs = d["pairs"]
    bound = sum(math.log(b / len(pairs)) for b in beta)
    stored = d.get("utility_bound")
    if isinstance(stored, (int, float)) and abs(stored - bound) > 5e-4:
        row("utility ≥ bound − 0.08", f"stale: the run's bound {stored:.4f} is not {bound:.4f} from "
            f"{ISOLATED}.json on disk (re-run since)", None)
        return rows
    u = d.get("utility")
    exact = utility([p["throughput_mbps"] for p in pairs])
    # The run keeps Σ ln θ_i of its throughputs to four digits: rounded, a utility just under the limit
    # can come out at or over it, so it is judged unrounded (when it is that sum)
    if isinstance(u, (int, float)) and exact is not None and round(exact, 4) == u:
        u = exact
    if isinstance(u, (int, float)):
        shown, limit = against(u, bound - UTILITY_MARGIN, 2)
        row("utility ≥ bound − 0.08", f"{shown} against {limit} (bound {bound:.4f})", u >= bound - UTILITY_MARGIN)
    for p, b in zip(pairs, beta):
        pair, t = f"{p['ap']}/{p['sta']}", p["throughput_mbps"]
        shown, limit = against(t, PAIR_FRACTION * b / 2, 1)
        pct, _ = against(t / (b / 2) * 100, PAIR_FRACTION * 100, 1)
        row(f"{pair} θ ≥ 93 % of β/2", f"{shown} against {limit} Mbit/s ({pct} % of {b / 2:.2f})",
            t >= PAIR_FRACTION * b / 2)
    for p in pairs:
        pair = f"{p['ap']}/{p['sta']}"
        ov = (d.get("slice_overflow") or {}).get(pair)
        if ov is None:
            row(f"{pair} slice overflow < 2 %", "not computed", None)
        else:
            shown, limit = against(ov * 100, OVERFLOW_LIMIT * 100, 2)
            row(f"{pair} slice overflow < 2 %", f"{shown} % of its slice time", ov < OVERFLOW_LIMIT)
    s = d["slice_ms"]
    for p in pairs:
        pair, v = f"{p['ap']}/{p['sta']}", p.get("mean_drain_ms")
        if not isinstance(v, (int, float)) or not math.isfinite(v):
            row(f"{pair} mean V within 3 % of S", "no V", None)
            continue
        # judged on the decimal figures the JSON holds: in binary floating point |19.4 - 20| / 20 is
        # 0.030000000000000072, and a V on the goal's edge read as missed
        dev = abs(Decimal(repr(v)) - Decimal(repr(s))) / Decimal(repr(s))
        shown, limit = against(float(dev * 100), V_TOLERANCE * 100, 1)
        row(f"{pair} mean V within 3 % of S", f"V {v:.2f} ms, {shown} % from S {s:g} ms",
            dev <= Decimal(repr(V_TOLERANCE)))
    return rows


def section_lines(docs: dict[str, dict[str, Any]]) -> list[str]:
    lines = ["### Issue 4 goals against these measurements (downlink time-slicing)", ""]
    runs = {n: d for n, d in docs.items() if _sliced_downlink(d)}
    iso = docs.get(ISOLATED)
    if not runs:
        return lines + ["(no sliced downlink run yet)", ""]
    if iso is None:
        return lines + [f"(not judged: no {ISOLATED}.json for β)", ""]
    beta = [float(p["throughput_mbps"]) for p in iso["pairs"]]
    lines += [f"β from {ISOLATED}.json ({', '.join(f'{b:.2f}' for b in beta)} Mbit/s); slice overflow on the "
              "fixed slice grid; figures to as many digits as it takes for them to compare as the unrounded ones do. "
              "The issue sets these goals for 20 ms slices on the LAN (downlink-20ms, and downlink-20ms-nfqueue on "
              "the other backend); the 100 ms and WAN runs are held to the same figures for comparison only (for "
              "them the issue asks to report and explain the shortfall).",
              "", "| scenario | goal | measured | met |", "|---|---|---|---|"]
    for name, d in runs.items():
        lines += scenario_rows(name, d, beta)
    return lines + [""]
