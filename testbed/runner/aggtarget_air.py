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
from typing import Any, Iterator

from .jsonl import json_records


Pairs = list[tuple[str, str]]


def _names(pairs: Pairs) -> set[str]:
    return {f"{ap}/{sta}" for ap, sta in pairs}


def data_ppdus(gt_path: Path, pairs: Pairs) -> list[dict[str, Any]]:
    """The ground truth's data PPDUs (AC_BE, with MPDUs) of `pairs`, each with its `pair` ("ap/sta"), in
    start order; [] if the log cannot be read. Read once per run: the functions below take this list."""
    wanted = _names(pairs)
    try:
        recs = [dict(rec, pair=f"{rec.get('src')}/{rec.get('dst')}") for rec in json_records(gt_path)]
    except OSError:
        return []
    out = [rec for rec in recs if rec["pair"] in wanted and rec.get("ac") == "BE" and rec.get("mpdus")]
    return sorted(out, key=lambda rec: int(rec["start_us"]))


def _midpoint_us(ppdus: list[dict[str, Any]]) -> float:
    """The middle of the span in which the pairs carried data (`ppdus` in start order, not empty)."""
    return (int(ppdus[0]["start_us"]) + int(ppdus[-1]["start_us"])) / 2


def airtime_second_half(ppdus: list[dict[str, Any]], pairs: Pairs) -> dict[str, float]:
    """Each downlink pair's airtime (µs of its data PPDUs) over the second half of the span in which the
    pairs carried data: the steady state, without the start-up (the loop's, or a TCP start
    stalled by retransmission timeouts while rate control settles)."""
    if not ppdus:
        return {}
    mid = _midpoint_us(ppdus)
    out = {p: 0.0 for p in sorted(_names(pairs))}
    for r in ppdus:
        if int(r["start_us"]) >= mid:
            out[r["pair"]] += int(r["duration_us"])
    return out


def second_half_rounds(ppdus: list[dict[str, Any]], pairs: Pairs) -> dict[str, dict[str, float]]:
    """Per downlink pair, over the second half of the span its pairs carried data (the midpoint
    of `airtime_second_half`): `round_ms`, the mean time between the starts of the
    pair's data A-MPDUs (the AP's scheduling round c + wᵀμ_N, which 000 §VI-B calls the mean
    delay); `mpdus_per_ampdu`; `new_mpdus_per_ampdu` (MPDUs whose packet was not on the air
    before; the model's N_f+1 = P_f of 000 §IV-C); `retx_frac`, the share of MPDUs that are
    retransmissions; `ampdu_airtime_us`, the mean airtime of its data PPDUs (wᵀμ_N's share of the round
    that is this pair's). So round_ms = new_mpdus_per_ampdu / x, and μ̃_N / x = round_ms / (1 - retx_frac)."""
    if not ppdus:
        return {}
    wanted = _names(pairs)
    mid = _midpoint_us(ppdus)
    seen: dict[str, set[int]] = {p: set() for p in wanted}
    starts: dict[str, list[int]] = {p: [] for p in wanted}
    sizes: dict[str, list[int]] = {p: [] for p in wanted}
    new: dict[str, list[int]] = {p: [] for p in wanted}
    airtime: dict[str, list[int]] = {p: [] for p in wanted}
    for r in ppdus:
        t, pair, ids = int(r["start_us"]), r["pair"], [int(i) for i in r.get("ids") or []]
        fresh = sum(1 for i in ids if i not in seen[pair])
        seen[pair].update(ids)
        if t >= mid:
            starts[pair].append(t)
            sizes[pair].append(len(ids))
            new[pair].append(fresh)
            airtime[pair].append(int(r["duration_us"]))
    out: dict[str, dict[str, float]] = {}
    for pair in sorted(wanted):
        if len(starts[pair]) < 2 or not sum(sizes[pair]):
            continue
        out[pair] = {"round_ms": round((starts[pair][-1] - starts[pair][0]) / (len(starts[pair]) - 1) / 1000, 4),
                     "mpdus_per_ampdu": round(statistics.fmean(sizes[pair]), 3),
                     "new_mpdus_per_ampdu": round(statistics.fmean(new[pair]), 3),
                     "retx_frac": round(1 - sum(new[pair]) / sum(sizes[pair]), 4),
                     "ampdu_airtime_us": round(statistics.fmean(airtime[pair]), 1)}
    return out


def air_per_round(pairs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """How one AP's scheduling round is spent over the second half of a run with several pairs, from each
    pair's `air_second_half` (second_half_rounds) and `mean_phy_mbps`: `round_ms` (the pairs' mean),
    `ampdu_airtime_us` per pair, `data_share` (Σ_i airtime_i / round_i: the share of the time the AP's data
    PPDUs fill), `rest_ms` (the round's remainder: 000 §IV's c, channel access, BlockAcks and the STAs' TCP
    ACKs) and `phy_mbps_by_airtime` (the pairs' PHY rates weighted by their airtime). The AP's goodput is
    about data_share x phy_mbps_by_airtime x the MAC's efficiency, so setting two runs' figures side by side
    says whether a difference in goodput comes from how much of the round carries data or from whose data
    it carries. None unless every pair has them."""
    figs = [(p.get("air_second_half") or {}, p.get("mean_phy_mbps")) for p in pairs]
    if len(figs) < 2 or any(not a.get("round_ms") or a.get("ampdu_airtime_us") is None
                            or not isinstance(phy, int | float) for a, phy in figs):
        return None
    shares = [a["ampdu_airtime_us"] / 1000 / a["round_ms"] for a, _ in figs]
    round_ms = statistics.fmean(a["round_ms"] for a, _ in figs)
    share = sum(shares)
    return {"round_ms": round(round_ms, 3),
            "ampdu_airtime_us": [a["ampdu_airtime_us"] for a, _ in figs],
            "data_share": round(share, 4),
            "rest_ms": round(round_ms * (1 - share), 3),
            "phy_mbps_by_airtime": round(sum(s * phy for s, (_, phy) in zip(shares, figs)) / share, 1)}


def second_half_loop_delay_ms(loop: list[dict[str, Any]]) -> float | None:
    """Mean μ̃_N over mean x over the second half of the loop's paced steps, in ms: 000 (9)'s
    μ_T = μ_N / x as the loop measures it, the delay (43) holds at T̄."""
    steps = [h for h in loop if h.get("x_pps") and h.get("mu_n") is not None]
    tail = steps[len(steps) // 2:]
    if not tail:
        return None
    x = statistics.fmean(float(h["x_pps"]) for h in tail)
    return round(statistics.fmean(float(h["mu_n"]) for h in tail) / x * 1000, 3) if x > 0 else None


def _mean_ms(xs: list[int]) -> float | None:
    return round(statistics.fmean(xs) / 1000, 4) if xs else None


def first_sends(ppdus: list[dict[str, Any]]) -> Iterator[tuple[str, int, int, int, int]]:
    """(pair, PPDU start µs, PPDU end µs, the MPDU's enq_us, its id) for each MPDU's first transmission, in
    start order; PPDUs of a log without `enq_us` are skipped."""
    seen: dict[str, set[int]] = {}
    for rec in ppdus:
        enq = rec.get("enq_us")
        if not isinstance(enq, list):
            continue
        start, pair = int(rec["start_us"]), rec["pair"]
        end, sent = start + int(rec.get("duration_us") or 0), seen.setdefault(pair, set())
        for i, e in zip((int(i) for i in rec.get("ids") or []), enq):
            if i not in sent:
                sent.add(i)
                yield pair, start, end, int(e), i


def ap_queue_delays(ppdus: list[dict[str, Any]], pairs: Pairs) -> dict[str, dict[str, Any]]:
    """Per downlink pair, the AP queueing delay the goal names and 000 (9)'s μ_T = μ_N / x models, from
    the ground truth's `enq_us` (when each MPDU entered the AP's queue): for each MPDU's first
    transmission, `start_us - enq_us`, its wait in the AP's queue until the A-MPDU that first carried
    it starts. `ap_queue_delay_ms` is the mean over the run, `second_half_ap_queue_delay_ms` over the
    MPDUs first sent in the second half (the midpoint of `second_half_rounds`); the `*_sojourn_ms`
    figures run to that PPDU's end instead (its airtime added). Neither holds the retransmissions nor
    the STA's in-order hold that the probes' one-way delay includes. {} for a log without `enq_us`."""
    if not ppdus:
        return {}
    wanted = _names(pairs)
    mid = _midpoint_us(ppdus)
    wait: dict[str, tuple[list[int], list[int]]] = {p: ([], []) for p in wanted}
    sojourn: dict[str, tuple[list[int], list[int]]] = {p: ([], []) for p in wanted}
    for pair, start, end, enq, _ in first_sends(ppdus):
        if pair not in wanted:
            continue
        for lists, t in ((wait, start), (sojourn, end)):
            lists[pair][0].append(t - enq)
            if start >= mid:
                lists[pair][1].append(t - enq)
    out: dict[str, dict[str, Any]] = {}
    for pair in sorted(wanted):
        whole, tail = wait[pair]
        if not whole:
            continue
        out[pair] = {"ap_queue_delay_ms": _mean_ms(whole), "second_half_ap_queue_delay_ms": _mean_ms(tail),
                     "ap_sojourn_ms": _mean_ms(sojourn[pair][0]),
                     "second_half_ap_sojourn_ms": _mean_ms(sojourn[pair][1]),
                     "mpdus": len(whole), "second_half_mpdus": len(tail)}
    return out


def ap_queue_step(ppdus: list[dict[str, Any]], pair: str, step_us: float, t_bar_ms: float,
                  window_s: float = 1.0, hold_s: float = 1.0) -> dict[str, Any]:
    """The AP queueing delay of `ap_queue_delays` around a step at `step_us` (ground-truth clock): its mean
    over the 5 s before the step and from 3 s after it to the end, the largest `window_s` mean after it,
    and the recovery time: from the step to the first instant, after the first `window_s` mean above 1.2 T̄
    (the disturbance the step made), from which every `window_s` mean (windows starting 0.1 s apart) over
    the next `hold_s` is at most 1.2 T̄, the delay regulated "to below T̄" again (000 §VI-B, Fig. 10(b)-(d))
    with the goal's 20 %; 0.0 if no mean after the step exceeded it, None if it never came back. A later
    excursion shows in the settled mean and the peak, not here. {} without `enq_us`."""
    waits = [(start, start - enq) for p, start, _, enq, _ in first_sends(ppdus) if p == pair]
    if not waits:
        return {}
    before = [w for t, w in waits if step_us - 5e6 <= t < step_us]
    settled = [w for t, w in waits if t >= step_us + 3e6]
    # 0.1 s bins from the step; a window or the hold is a whole number of them
    bins = max(int((max(t for t, _ in waits) - step_us) // 1e5) + 1, 0)
    sums, counts = [0.0] * bins, [0] * bins
    for t, w in waits:
        if t >= step_us:
            k = int((t - step_us) // 1e5)
            sums[k] += w
            counts[k] += 1
    per, hold, limit = round(window_s * 10), round(hold_s * 10), 1.2 * t_bar_ms
    means: list[float | None] = []
    for k in range(0, bins - per + 1):
        n = sum(counts[k:k + per])
        means.append(sum(sums[k:k + per]) / n / 1000 if n else None)
    first_out = next((k for k, m in enumerate(means) if m is not None and m > limit), None)
    recovery: float | None = 0.0
    if first_out is not None:
        recovery = next((round(k * 0.1, 1) for k in range(first_out, len(means) - hold)
                         if all(m is not None and m <= limit for m in means[k:k + hold + 1])), None)
    peaks = [m for m in means if m is not None]
    return {"ap_queue_before_ms": _mean_ms(before), "ap_queue_settled_ms": _mean_ms(settled),
            "ap_queue_peak_ms": round(max(peaks), 3) if peaks else None, "ap_queue_recovery_s": recovery}


def ap_queue_goals(pair: dict[str, Any], t_bar_ms: float) -> dict[str, Any]:
    """The delay goal judged on the AP queueing delay of `ap_queue_delays` (whole run and second half),
    set beside the probe-based `delay_error_frac` / `delay_within_20pct`; for a run with a step, also on
    the delay settled after it (`ap_queue_step`'s mean from 3 s after the step to the end), since the
    second half of such a run starts at the step and holds its transient."""
    g: dict[str, Any] = {}
    figures = [("ap_queue_delay_ms", pair.get("ap_queue_delay_ms"), "ap_queue_delay"),
               ("second_half_ap_queue_delay_ms", pair.get("second_half_ap_queue_delay_ms"),
                "second_half_ap_queue_delay"),
               ("ap_queue_settled_ms", (pair.get("step") or {}).get("ap_queue_settled_ms"), "ap_queue_settled")]
    for key, value, prefix in figures:
        if value is not None:
            err = abs(value - t_bar_ms) / t_bar_ms
            g[key] = value
            g[f"{prefix}_error_frac"] = err
            g[f"{prefix}_within_20pct"] = err <= 0.2
    return g
