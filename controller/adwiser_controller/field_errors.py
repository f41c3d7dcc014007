"""Turn pydantic validation errors into a flat list of (field path, message).

Structural errors carry their path in `loc`. Checks that run on a whole model
(`AdwiserConfig`'s cross references, ordered ranges) raise with the path of
the field at fault in their context (`problems`, `field`), because pydantic
would otherwise report them at the model; this module puts them back on the
field, so every error a user sees names the field to change.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from .models import dotted


class FieldError(BaseModel):
    field: str
    message: str
    type: str


# FastAPI prefixes request errors with where the value came from.
_REQUEST_PARTS = {"body", "query", "path", "header", "cookie"}


def flatten(errors: Iterable[dict[str, Any]], prefix: Sequence[str | int] = ()) -> list[FieldError]:
    out: list[FieldError] = []
    for err in errors:
        loc = list(prefix) + list(err.get("loc", ()))
        ctx = err.get("ctx") or {}
        kind = str(err.get("type", "value_error"))
        if "problems" in ctx:
            for p in ctx["problems"]:
                out.append(FieldError(field=dotted(loc + list(p["loc"])), message=p["message"], type=kind))
            continue
        if "field" in ctx:
            loc = loc + [ctx["field"]]
        out.append(FieldError(field=dotted(loc) or "(document)", message=str(err.get("msg", "")), type=kind))
    return out


def strip_request_part(errors: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop FastAPI's leading 'body' from a loc; keep 'query'/'path'/'header' so the user knows where.

    A body that is not JSON has no field at fault: FastAPI's loc is ('body', character offset of the syntax
    error), which would read as an array element ("[1]"). It is the document's, with the parser's reason
    and the offset in the message."""
    out = []
    for err in errors:
        loc = list(err.get("loc", ()))
        if loc and loc[0] == "body":
            loc = loc[1:]
        if err.get("type") == "json_invalid" and len(loc) == 1 and isinstance(loc[0], int):
            reason = (err.get("ctx") or {}).get("error", "")
            msg = f"{err.get('msg', 'JSON decode error')}: {reason} (at character {loc[0]})"
            out.append({**err, "loc": (), "msg": msg})
            continue
        out.append({**err, "loc": tuple(loc)})
    return out
