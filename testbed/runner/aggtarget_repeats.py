"""The goals of an aggregation-target scenario over several controlled runs.

One 20 s controlled run is one sample of a noisy system: the loop starts from
TCP's slow start, Minstrel's probes and the CSMA draws differ, and the same
build gave aggtarget-1sta a second-half AP queue of 4.5 ms in one run and
8.0 ms in another. `python -m runner.aggtarget <scenario> --repeats N` runs
the controlled mode N times, each after a straight-forwarding run of its own
(the straight run varies too: 239-270 Mbit/s for five STAs on one day); each
run's goals are computed as for one run against its straight run
(aggtarget_figures.goals), and this
module reduces them: per pair (and for `total`, `airtime_*`), every numeric
goal becomes its median, least and largest over the runs, and every yes/no
goal the number of runs that met it. Lists (airtime shares) are left out:
their spread shows in `max_rel_dev_from_equal`. No run is chosen or dropped. The report line counts the
delay goal over the runs it applies to (N-bar not binding, no backhaul limit), from each run's goals.
"""
from __future__ import annotations

import math
import statistics
from typing import Any

from .report_cells import against

# the limits the spreads are shown against (aggtarget_figures.goals judges each run on them)
STRAIGHT_FRACTION = 0.85
EQUAL_AIRTIME_TOLERANCE = 0.10


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def summarize(per_run: list[dict[str, Any]]) -> dict[str, Any]:
    """{group: {goal: {"median", "min", "max", "n"} | {"met", "n"}}} from each run's goals dict; a goal
    counts over the runs that have it (a run whose pair had no value, e.g. no recovery, is left out and
    `n` says how many had one; a None counts as not met for a yes/no goal)."""
    out: dict[str, dict[str, Any]] = {}
    groups = sorted({g for goals in per_run for g in goals})
    for group in groups:
        docs = [goals[group] for goals in per_run if isinstance(goals.get(group), dict)]
        keys = sorted({k for d in docs for k in d})
        summary: dict[str, Any] = {}
        for key in keys:
            values = [d.get(key) for d in docs]
            if any(isinstance(v, bool) for v in values):
                summary[key] = {"met": sum(1 for v in values if v is True), "n": len(values)}
                continue
            nums = [float(v) for v in values if _is_number(v)]
            if nums:
                summary[key] = {"median": statistics.median(nums), "min": min(nums), "max": max(nums),
                                "n": len(nums)}
        out[group] = summary
    return out


def _spread(s: dict[str, Any] | None, digits: int = 2, limit: float | None = None) -> str | None:
    """median [least-largest]; against a limit, to as many digits as it takes for the least and the largest to
    compare with it as the unrounded figures do (0.8499 against 0.85 is 0.8499, not 0.850)."""
    if not s or "median" not in s:
        return None
    if limit is not None:
        digits = max(len(against(s[k], limit, digits)[0].rpartition(".")[2]) for k in ("min", "max"))
    return f"{s['median']:.{digits}f} [{s['min']:.{digits}f}-{s['max']:.{digits}f}]"


def _delay_goal_met(runs: list[dict[str, Any]], pair: str, key: str) -> tuple[int, int]:
    """(runs that met the delay goal `key`, runs it applies to) for one pair: a run in which N-bar binds (or behind a
    backhaul) has `delay_goal_applies` false, and its delay, within 20 % of T-bar or not, meets no goal."""
    applied = [g for g in ((r.get("goals") or {}).get(pair) or {} for r in runs) if g.get("delay_goal_applies")]
    return sum(1 for g in applied if g.get(key) is True), len(applied)


def _recovery(runs: list[dict[str, Any]], pair: str) -> str | None:
    """The AP-queue recovery after the step over every run that measured it, as median [least-largest] s: a run
    whose queue never came back within 20 % of T-bar counts as the slowest (∞), so the median is not taken over the
    runs that recovered only."""
    goals = [g for g in ((r.get("goals") or {}).get(pair) or {} for r in runs) if "ap_queue_recovery_s" in g]
    if not goals:
        return None
    times = [float(v) if _is_number(v := g["ap_queue_recovery_s"]) else math.inf for g in goals]
    fmt = lambda t: "∞" if math.isinf(t) else f"{t:.1f}"  # noqa: E731
    recovered = sum(1 for t in times if not math.isinf(t))
    within = sum(1 for g in goals if g.get("ap_queue_recovered_within_3s") is True)
    never = ", a run that never recovered counted as ∞" if recovered < len(times) else ""
    return (f"AP queue recovery {fmt(statistics.median(times))} [{fmt(min(times))}-{fmt(max(times))}] s "
            f"(recovered in {recovered} of {len(runs)}, within 3 s in {within}{never})")


def report_line(doc: dict[str, Any]) -> str | None:
    """One line for REPORT.md: the headline goals' median [range] over the controlled runs, or None for a
    result of one run."""
    summary, runs = doc.get("goals_over_repeats"), doc.get("repeats") or []
    if not summary or len(runs) < 2:
        return None
    parts = []
    for pair, s in summary.items():
        if "/" not in pair:
            continue
        figures = []
        # A run with a step (mcs-step, hidden-step) has it at half time: its second half holds the step's
        # transient, and the delay goal is judged on the AP queue settled after it.
        step = "ap_queue_settled_ms" in s
        if step and (settled := _spread(s["ap_queue_settled_ms"])):
            figures.append(f"AP queue from 3 s after the step {settled} ms")
        if queue := _spread(s.get("second_half_ap_queue_delay_ms")):
            figures.append(f"AP queue 2nd half {queue} ms" + (" (the step's transient included)" if step else ""))
        if share := _spread(s.get("throughput_frac_of_straight"), 3, STRAIGHT_FRACTION):
            figures.append(f"throughput {share} of straight")
        if recovery := _recovery(runs, pair):
            figures.append(recovery)
        key = "ap_queue_settled_within_20pct" if step else "second_half_ap_queue_delay_within_20pct"
        met, judged = _delay_goal_met(runs, pair, key)
        if key in s and judged:
            over = f"{judged}" if judged == len(runs) else f"the {judged} runs it applies to"
            figures.append(f"{'settled ' if step else ''}within 20 % of T̄ in {met} of {over}")
        parts.append(f"{pair}: " + ", ".join(figures))
    total = summary.get("total") or {}
    if "throughput_frac_of_straight" in total:
        parts.append(f"total throughput {_spread(total['throughput_frac_of_straight'], 3, STRAIGHT_FRACTION)} of straight "
                     f"(>= 85 % in {total['throughput_ge_85pct']['met']} of {total['throughput_ge_85pct']['n']})")
    air = summary.get("airtime_aggtarget") or {}
    if "second_half_max_rel_dev" in air:
        parts.append(f"airtime 2nd half, largest deviation from equal "
                     f"{_spread(air['second_half_max_rel_dev'], 3, EQUAL_AIRTIME_TOLERANCE)}")
    return f"  - over {len(runs)} controlled runs{_straight_runs(runs)}, median [least-largest]: " + "; ".join(parts)


def _straight_runs(runs: list[dict[str, Any]]) -> str:
    """What the controlled runs' throughput is judged against: a straight run of each one's own (their total
    throughput's spread), or the one straight run of results made before runner/aggtarget.py _run_order paired them."""
    if len({r.get("straight_started_unix") for r in runs}) < len(runs):
        return " against one straight run"
    mbps = [float(r["straight_mbps"]) for r in runs if _is_number(r.get("straight_mbps"))]
    spread = f" ({statistics.median(mbps):.1f} [{min(mbps):.1f}-{max(mbps):.1f}] Mbit/s)" if mbps else ""
    return f", each against the straight run just before it{spread}"
