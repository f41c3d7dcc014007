"""Running `ip`, `ethtool` and `sysctl`, optionally inside a network namespace.

Every command is run with an explicit argument list (no shell) and a timeout,
and a failure raises with the command and its stderr, so a topology step that
goes wrong names itself.
"""
from __future__ import annotations

import subprocess
from collections.abc import Sequence


class CommandError(RuntimeError):
    """A command exited non-zero; the message carries the command and stderr."""


def run(argv: Sequence[str], *, check: bool = True, timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout)
    if check and proc.returncode != 0:
        raise CommandError(f"{' '.join(argv)!r} failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc


def ns_argv(ns: str | None, argv: Sequence[str]) -> list[str]:
    """argv run inside namespace `ns` (or in the caller's namespace if None)."""
    return (["ip", "netns", "exec", ns] if ns else []) + list(argv)


def ns_run(ns: str | None, argv: Sequence[str], *, check: bool = True,
           timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
    return run(ns_argv(ns, argv), check=check, timeout=timeout)
