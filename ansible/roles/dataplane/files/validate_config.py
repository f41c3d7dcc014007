#!/usr/bin/python3
"""Validate an ADWISER configuration document (JSON) against the project's JSON Schema.

Used by the dataplane role on the control node before anything is changed
(the document comes on stdin), where there is no adwiser-dp.  On the
appliance the template's `validate` runs `adwiser-dp --check-config`, which
also checks the cross-field rules a schema cannot express; this validator is
its fall-back there only when no adwiser-dp is installed (source method
without a build).  Every error is printed with the path of the field it is
in; the exit status is 0 only for a valid document.

usage: validate_config.py SCHEMA.json [DOCUMENT.json]   (stdin when absent)
"""

from __future__ import annotations

import json
import sys
from typing import Any

import jsonschema


def field_path(error: jsonschema.ValidationError) -> str:
    parts = [str(p) for p in error.absolute_path]
    return ".".join(parts) if parts else "(document)"


def errors_of(schema: dict[str, Any], document: Any) -> list[str]:
    validator_cls = jsonschema.validators.validator_for(schema)
    validator_cls.check_schema(schema)
    # Formats are checked (the addresses of a STA are "ipv4" or "ipv6"), not only annotated.
    validator = validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)
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
                document = json.load(f)
        else:
            document = json.load(sys.stdin)
    except (OSError, json.JSONDecodeError) as exc:
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
