"""The commit a result was made at, recorded in every scenario's JSON (`build_commit`) so a result can be traced
to the code that produced it when results of several commits sit side by side in testbed/results/.

A tree with changes to tracked files outside testbed/results/ (results are rewritten by the runs themselves) gives
"<short hash>+changes": the run's code was not that commit's alone.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _git(repo: Path, *args: str) -> str | None:
    try:
        p = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def build_commit(repo: Path = REPO) -> str | None:
    """Short hash of HEAD, with "+changes" for a tree changed outside testbed/results/; None outside a git tree."""
    head = _git(repo, "rev-parse", "--short", "HEAD")
    if not head:
        return None
    changed = _git(repo, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)testbed/results")
    return head + "+changes" if changed else head
