"""Differences between two configuration documents, for review before apply.

`changes` is structural (a path per changed leaf, as the UI highlights it);
`unified` is a line diff of the documents as YAML, for people.
"""

from __future__ import annotations

import difflib
from typing import Any, Literal

import yaml
from pydantic import BaseModel

from .models import dotted


class Change(BaseModel):
    path: str
    op: Literal["added", "removed", "changed"]
    old: Any = None
    new: Any = None


def changes(old: Any, new: Any, loc: list[str | int] | None = None) -> list[Change]:
    loc = loc or []
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[Change] = []
        for k in list(old) + [k for k in new if k not in old]:
            if k not in new:
                out.append(Change(path=dotted(loc + [k]), op="removed", old=old[k]))
            elif k not in old:
                out.append(Change(path=dotted(loc + [k]), op="added", new=new[k]))
            else:
                out += changes(old[k], new[k], loc + [k])
        return out
    if isinstance(old, list) and isinstance(new, list):
        out = []
        for i in range(max(len(old), len(new))):
            if i >= len(new):
                out.append(Change(path=dotted(loc + [i]), op="removed", old=old[i]))
            elif i >= len(old):
                out.append(Change(path=dotted(loc + [i]), op="added", new=new[i]))
            else:
                out += changes(old[i], new[i], loc + [i])
        return out
    if old != new:
        return [Change(path=dotted(loc) or "(document)", op="changed", old=old, new=new)]
    return []


# libyaml's dumper where PyYAML was built with it: the same text as the pure-Python one (tests/test_diff_yaml.py),
# about 4 times as fast, and the diff of two campus documents is rendered on the API's event loop.
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def yaml_text(doc: Any) -> str:
    """doc as YAML for people, keys in document order: a name as typed ("Bâtiment", not "B\\xE2timent"), and a
    long string on one line (folded, a changed word showed as a change of several lines, and the two dumpers fold
    differently)."""
    return yaml.dump(doc, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, width=1_000_000)


def unified(old: Any, new: Any, old_name: str, new_name: str) -> str:
    a = yaml_text(old).splitlines(keepends=True)
    b = yaml_text(new).splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, fromfile=old_name, tofile=new_name))
