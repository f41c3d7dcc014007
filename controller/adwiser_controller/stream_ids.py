"""Redis stream ids given as query parameters (`after`, `before`): range checks the pattern cannot make.

An id is `<ms>-<seq>`, each part at most 2^64-1; Redis refuses larger parts, an exclusive
start after the largest id and an exclusive end before `0-0`, which would otherwise reach
the client as 503 "store unavailable" instead of 422 naming the parameter. `After` and
`Before` are the query parameters the routes take: the pattern first, then the range check.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query
from pydantic import AfterValidator

U64_MAX = 2**64 - 1
STREAM_ID = r"^([0-9]{1,20}-[0-9]{1,20})?$"  # empty = none


def _parts(value: str) -> tuple[int, int]:
    ms, seq = (int(x) for x in value.split("-"))
    if ms > U64_MAX or seq > U64_MAX:
        raise ValueError(f"stream id {value!r}: each part must be at most {U64_MAX}")
    return ms, seq


def after_id(value: str) -> str:
    if value and _parts(value) == (U64_MAX, U64_MAX):
        raise ValueError(f"stream id {value!r} is the largest there is: nothing can come after it")
    return value


def before_id(value: str) -> str:
    if value and _parts(value) == (0, 0):
        raise ValueError("stream id '0-0' is the smallest there is: nothing can come before it")
    return value


After = Annotated[str, Query(pattern=STREAM_ID, description="Only entries after this stream id."),
                  AfterValidator(after_id)]
Before = Annotated[str, Query(pattern=STREAM_ID, description="Only entries older than this id (paging)."),
                   AfterValidator(before_id)]
