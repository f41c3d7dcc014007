"""Table cells of REPORT.md: a number to the digits asked for, or "–" where there is none."""
from __future__ import annotations

import time
from typing import Any


def num(v: Any, digits: int = 1) -> str:
    return f"{v:.{digits}f}" if isinstance(v, (int, float)) else "–"


def against(value: float, limit: float, digits: int = 2, most: int = 6) -> tuple[str, str]:
    """`value` and the `limit` it is judged against, each to the fewest digits (at least `digits`) at which
    they compare as the unrounded figures do: the met / not met beside them is then what the numbers shown
    say (a utility of 7.5375 against 7.5382 is not met, and shown as 7.54 against 7.54 it would read as met)."""
    def sign(x: float) -> int:
        return (x > 0) - (x < 0)

    d = digits
    while d < most and sign(round(value, d) - round(limit, d)) != sign(value - limit):
        d += 1
    return f"{value:.{d}f}", f"{limit:.{d}f}"


def provenance(doc: dict[str, Any]) -> str:
    """When a result was run and at which commit (`build_commit`, recorded since 2026-11-27 20:00 UTC)."""
    started = doc.get("started_unix")
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(started)) if isinstance(started, (int, float)) else "?"
    commit = doc.get("build_commit")
    return f"run {when} at commit {commit}" if commit else f"run {when} (its commit not recorded)"
