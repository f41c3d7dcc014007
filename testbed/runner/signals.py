"""Ctrl-C and SIGTERM in the runner's entry points: they stop a run, never its cleanup.

Every entry point that starts namespaces or processes calls `exit_on_signals`
first, and runs each cleanup (a `finally` stopping what it started, `down`)
inside `stopping()`:

- a signal before any cleanup: the first SIGINT raises KeyboardInterrupt and
  the first SIGTERM SystemExit(143) in the main thread, so every `finally`
  stops what it started and removes the namespaces (Python's default SIGTERM
  ends the interpreter without running any);
- a signal while a cleanup runs (the run was finishing normally, and
  `timeout` fired then): it is held until the outermost `stopping()` block has
  finished and raised then, so the cleanup completes and the entry point still
  ends as interrupted (a later repeat or scenario does not start);
- any signal after the first one raised or held: reported and otherwise
  ignored, since it would cut short the teardown the first one started.

SIGKILL still ends the process. A SIGINT the process was started with ignored
(a background job of a script) stays ignored. The handlers are Python
functions, so programs started later get the default dispositions back at exec.
"""
from __future__ import annotations

import signal
import sys
from types import TracebackType


class _State:
    raised = False           # the first signal has been raised: the rest are ignored
    held: int | None = None  # a signal that came during a cleanup, raised when it has finished
    depth = 0                # `stopping()` blocks being run


def _raise(signum: int) -> None:
    _State.raised = True
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


def _on_signal(signum: int, frame: object) -> None:
    name = signal.Signals(signum).name
    if _State.raised or _State.held is not None:
        print(f"{name} again: still stopping what was started", file=sys.stderr, flush=True)
    elif _State.depth:
        _State.held = signum
        print(f"{name}: stopping once the cleanup under way has finished", file=sys.stderr, flush=True)
    else:
        _raise(signum)


def exit_on_signals() -> None:
    """Installs the handlers for SIGTERM and (unless it is ignored) SIGINT (module docstring)."""
    signal.signal(signal.SIGTERM, _on_signal)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _on_signal)


class stopping:  # noqa: N801 - used as `with signals.stopping():`
    """A cleanup: a signal during it is raised once the outermost such block has finished."""

    def __enter__(self) -> None:
        _State.depth += 1

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        _State.depth -= 1
        if _State.depth == 0 and _State.held is not None:
            signum, _State.held = _State.held, None
            _raise(signum)
