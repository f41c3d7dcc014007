"""What the aggregation loop regulates, set beside what the probes measure (issue 9).

The loop's (43) settles where ν = G(x) = T̄ x_1, and its inner loop (45) makes μ̃_N follow
N_target = ν, so it holds μ̃_N / x = T̄: the mean AP delay of 000 (9), μ_T = μ_N / x, with
μ̃_N as the STA sees it (every MPDU of each A-MPDU, retransmissions included). The probes
measure one-way delay from the appliance to the STA instead: the wait for the next A-MPDU,
the A-MPDU's own airtime up to the probe, and every retransmission, including the STA's
in-order hold behind an earlier lost MPDU. These figures come from the emulator's ground
truth and the loop's history, over the second half of the run (after the start-up ramp).
"""
from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from .jsonl import json_records


def data_ppdus(gt_path: Path, wanted: set[str]) -> list[dict[str, Any]]:
    """The ground truth's data PPDUs (AC_BE, with MPDUs) of the pairs in `wanted` ("ap/sta"), each with its
    `pair`, in start order; [] if the log cannot be read."""
    try:
        recs = [dict(rec, pair=f"{rec.get('src')}/{rec.get('dst')}") for rec in json_records(gt_path)]
    except OSError:
        return []
    out = [rec for rec in recs if rec["pair"] in wanted and rec.get("ac") == "BE" and rec.get("mpdus")]
    return sorted(out, key=lambda rec: int(rec["start_us"]))


def second_half_rounds(gt_path: Path, pairs: list[tuple[str, str]]) -> dict[str, dict[str, float]]:
    """Per downlink pair, over the second half of the span its pairs carried data (the midpoint
    of `aggtarget.airtime_second_half`): `round_ms`, the mean time between the starts of the
    pair's data A-MPDUs (the AP's scheduling round c + wᵀμ_N, which 000 §VI-B calls the mean
    delay); `mpdus_per_ampdu`; `new_mpdus_per_ampdu` (MPDUs whose packet was not on the air
    before; the model's N_f+1 = P_f of 000 §IV-C); `retx_frac`, the share of MPDUs that are
    retransmissions. So round_ms = new_mpdus_per_ampdu / x, and μ̃_N / x = round_ms / (1 - retx_frac)."""
    wanted = {f"{ap}/{sta}" for ap, sta in pairs}
    ppdus = [(int(r["start_us"]), r["pair"], [int(i) for i in r.get("ids") or []])
             for r in data_ppdus(gt_path, wanted)]
    if not ppdus:
        return {}
    mid = (ppdus[0][0] + ppdus[-1][0]) / 2
    seen: dict[str, set[int]] = {p: set() for p in wanted}
    starts: dict[str, list[int]] = {p: [] for p in wanted}
    sizes: dict[str, list[int]] = {p: [] for p in wanted}
    new: dict[str, list[int]] = {p: [] for p in wanted}
    for t, pair, ids in ppdus:
        fresh = sum(1 for i in ids if i not in seen[pair])
        seen[pair].update(ids)
        if t >= mid:
            starts[pair].append(t)
            sizes[pair].append(len(ids))
            new[pair].append(fresh)
    out: dict[str, dict[str, float]] = {}
    for pair in sorted(wanted):
        if len(starts[pair]) < 2 or not sum(sizes[pair]):
            continue
        out[pair] = {"round_ms": round((starts[pair][-1] - starts[pair][0]) / (len(starts[pair]) - 1) / 1000, 4),
                     "mpdus_per_ampdu": round(statistics.fmean(sizes[pair]), 3),
                     "new_mpdus_per_ampdu": round(statistics.fmean(new[pair]), 3),
                     "retx_frac": round(1 - sum(new[pair]) / sum(sizes[pair]), 4)}
    return out


def second_half_loop_delay_ms(loop: list[dict[str, Any]]) -> float | None:
    """Mean μ̃_N over mean x over the second half of the loop's paced steps, in ms: 000 (9)'s
    μ_T = μ_N / x as the loop measures it, the delay (43) holds at T̄."""
    steps = [h for h in loop if h.get("x_pps") and h.get("mu_n") is not None]
    tail = steps[len(steps) // 2:]
    if not tail:
        return None
    x = statistics.fmean(float(h["x_pps"]) for h in tail)
    return round(statistics.fmean(float(h["mu_n"]) for h in tail) / x * 1000, 3) if x > 0 else None
