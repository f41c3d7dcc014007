"""Table cells of REPORT.md: a number to the digits asked for, or "–" where there is none."""
from __future__ import annotations

from typing import Any


def num(v: Any, digits: int = 1) -> str:
    return f"{v:.{digits}f}" if isinstance(v, (int, float)) else "–"
