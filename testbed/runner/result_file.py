"""Writing a results document (results/<scenario>.json) whole or not at all.

It is written beside its final name and renamed over it, so a run interrupted
(Ctrl-C, SIGTERM, a full disk) while it writes leaves the previous document as
it was, never half of the new one; the partial file is removed.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_json(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")   # not *.json: the report never reads it as a result
    try:
        tmp.write_text(json.dumps(doc, indent=1) + "\n")
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
