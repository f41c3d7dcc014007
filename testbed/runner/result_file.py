"""Writing a file the testbed keeps (results/<scenario>.json, REPORT.md, a shipped model, the testbed's state)
whole or not at all.

It is written beside its final name and renamed over it, so a run interrupted
(Ctrl-C, SIGTERM, a full disk) while it writes leaves the previous file as it
was, never half of the new one; the partial file is removed.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")   # not *.json: the report never reads it as a result
    try:
        tmp.write_text(text)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: Path, doc: Any, indent: int | None = 1) -> None:
    write_text(path, json.dumps(doc, indent=indent) + "\n")
