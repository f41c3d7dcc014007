"""Requests started together, for the tests of edits that race each other."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def at_once(*calls: Callable[[], Any]) -> list[Any]:
    """Runs each call in its own thread, all released by one barrier; returns their results in order."""
    barrier = threading.Barrier(len(calls))
    out: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(i: int, call: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            out[i] = call()
        except BaseException as exc:  # re-raised in the test's thread below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return out
