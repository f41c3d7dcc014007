#!/usr/bin/python3
"""Validate an ADWISER configuration document (JSON) against the project's JSON Schema.

Used by the dataplane role on the control node before anything is changed
(the document comes on stdin), where there is no adwiser-dp.  On the
appliance the staged document's `validate` runs `adwiser-dp --check-config`, which
also checks the cross-field rules a schema cannot express; this validator is
its fall-back there only when no adwiser-dp is installed (source method
without a build).  The document is read as the JSON standard and adwiser-dp read it:
NaN, Infinity and a key given twice make it unreadable, and a pattern's "$"
is the end of the text (JSON Schema's regular expressions are ECMA-262's).
The controller reads documents the same way (adwiser_controller/strict_json.py,
which also refuses numbers past a double or 64-bit integers; here the schema's
bounds refuse those); this file stands alone because it runs where the
controller package is not installed.
Every error is printed with the path of the field it is in; the exit status
is 0 only for a valid document.

usage: validate_config.py SCHEMA.json [DOCUMENT.json]   (stdin when absent)
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from typing import Any

import jsonschema


class NotJson(ValueError):
    """What Python's json takes and JSON (and adwiser-dp's jansson) does not."""


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    # json keeps the last of two equal keys and drops the first; adwiser-dp refuses the document.
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise NotJson(f"duplicate key {key!r}")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    # NaN is neither below a minimum nor above a maximum, so the schema would take it for any number.
    raise NotJson(f"{name} is not a JSON number")


def load_json(f: Any) -> Any:
    return json.load(f, object_pairs_hook=_unique_members, parse_constant=_no_constant)


def _end_anchored(pattern: str) -> str:
    """pattern with each "$" (outside a class, not escaped) made the end of the text, as in JSON Schema's
    ECMA-262 regular expressions: Python's "$" also matches before a final newline, so "ap1\n" matched an id."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "$":
            c = r"\Z"
        out.append(c)
        i += 1
    return "".join(out)


def _pattern(validator: Any, pattern: str, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not re.search(_end_anchored(pattern), instance):
        yield jsonschema.ValidationError(f"{instance!r} does not match {pattern!r}")


def field_path(error: jsonschema.ValidationError) -> str:
    parts = [str(p) for p in error.absolute_path]
    return ".".join(parts) if parts else "(document)"


def errors_of(schema: dict[str, Any], document: Any) -> list[str]:
    validator_cls = jsonschema.validators.validator_for(schema)
    validator_cls.check_schema(schema)
    checking = jsonschema.validators.extend(validator_cls, {"pattern": _pattern})
    # Formats are checked (the addresses of a STA are "ipv4" or "ipv6"), not only annotated.
    validator = checking(schema, format_checker=validator_cls.FORMAT_CHECKER)
    found = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{field_path(e)}: {e.message}" for e in found]


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    source = argv[2] if len(argv) == 3 else "(stdin)"
    try:
        if len(argv) == 3:
            with open(argv[2], encoding="utf-8") as f:
                document = load_json(f)
        else:
            document = load_json(sys.stdin)
    except (OSError, ValueError) as exc:
        print(f"{source}: not a readable JSON document: {exc}", file=sys.stderr)
        return 1
    problems = errors_of(schema, document)
    for p in problems:
        print(f"{source}: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"{source}: valid against {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
