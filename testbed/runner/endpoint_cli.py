"""What the traffic endpoint programs (runner.http_load, runner.voice) share on their command line.

Each runs inside a test namespace for a bounded time and leaves one JSON
result file for the runner, written whole (a reader never sees half of it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

MAX_DURATION_S = 3600.0


def parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """An argument parser whose --help shows the module docstring as written."""
    return argparse.ArgumentParser(prog=prog, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)


def check_duration(ap: argparse.ArgumentParser, duration: float) -> None:
    """Refuses (exit 2, naming it) a --duration outside (0, MAX_DURATION_S]: every traffic loop is bounded."""
    if not 0 < duration <= MAX_DURATION_S:
        ap.error(f"--duration {duration}: expected 0 < duration <= {MAX_DURATION_S:g}")


def write_result(out: Path, doc: dict[str, Any]) -> None:
    """Writes doc as one line of JSON to out through a rename, so out is either absent or complete."""
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc) + "\n")
    tmp.replace(out)
