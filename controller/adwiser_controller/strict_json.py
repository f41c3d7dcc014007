"""JSON text read as the dataplane's loader reads it (jansson with JSON_REJECT_DUPLICATES, dp/config_json.c).

Python's json module takes more than JSON: NaN, Infinity and -Infinity, a number too large for a double (read as
inf), an integer beyond 64 bits, and an object naming a member twice (the last value is kept, the first dropped without a word). adwiser-dp
refuses each of these as not valid JSON, so a document the controller reads must not mean something else here.
"""

from __future__ import annotations

import json
import math
from typing import Any


class NotStrictJson(ValueError):
    """The text is JSON to Python but not to jansson; the message says why."""


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise NotStrictJson(f"duplicate key {key!r}")
        out[key] = value
    return out


def _not_a_json_number(name: str) -> float:
    raise NotStrictJson(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise NotStrictJson(f"number {text[:40]} is too large for a double")
    return value


def _int64(text: str) -> int:
    # The length first: Python refuses to convert an integer of more than 4300 digits, with a ValueError.
    if len(text.lstrip("-")) > 19 or not -(2**63) <= int(text) < 2**63:
        raise NotStrictJson(f"integer {text[:40]} does not fit in 64 bits")
    return int(text)


def loads(text: str | bytes) -> Any:
    """The JSON value of text; json.JSONDecodeError for a syntax error, NotStrictJson for the above."""
    try:
        return json.loads(text, object_pairs_hook=_unique_members, parse_constant=_not_a_json_number,
                          parse_float=_finite, parse_int=_int64)
    except RecursionError:
        # Python's reader recurses once per array or object level and gives up near a thousand (jansson at
        # 2048): no document comes near either, and a RecursionError reached the API as a bare 400 and the
        # CLI as a traceback.
        raise NotStrictJson("arrays and objects nested too deeply") from None
