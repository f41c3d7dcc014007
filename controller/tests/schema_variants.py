"""Variants of a configuration document, one change each, generated from the JSON Schema.

For every constraint the schema puts on a field the document has (type, required or optional, bounds, exclusive
bounds, const, pattern, format, length, item counts, unique items, unknown members) the walk yields the smallest
changes on both sides of it: a value just outside (nextafter for a number's bound, one more item, ...) and the
value on the bound. Whether each variant is valid is not decided here: the caller asks the schema and the models.

A pattern or format cannot be inverted in general, so they have hand-written examples below (PATTERN_EXAMPLES,
FORMAT_EXAMPLES); a pattern the schema gains without examples makes the walk raise.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from adwiser_controller import models

DELETE = object()  # a variant's value: the member is removed


@dataclass(frozen=True)
class Variant:
    path: tuple[str | int, ...]
    value: Any  # or DELETE

    def label(self) -> str:
        where = models.dotted(list(self.path)) or "(document)"
        return f"{where} deleted" if self.value is DELETE else f"{where} = {_short(self.value)}"

    def applied_to(self, doc: dict[str, Any]) -> Any:
        if not self.path:
            return copy.deepcopy(self.value)
        out = copy.deepcopy(doc)
        parent = out
        for key in self.path[:-1]:
            parent = parent[key]
        if self.value is DELETE:
            del parent[self.path[-1]]
        elif isinstance(parent, list) and self.path[-1] == len(parent):
            parent.append(self.value)
        else:
            parent[self.path[-1]] = self.value
        return out


def _short(value: Any) -> str:
    if isinstance(value, str) and len(value) > 24 and len(set(value)) == 1:
        return f"{value[0]!r}*{len(value)}"
    if isinstance(value, list) and len(value) > 4:
        return f"[{len(value)} items: {_short(value[0])}, ...]"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# Strings that break each pattern (first) and strings on its edge that match it (second).
_ID_BAD = ["", "-ap", "_ap", ".ap", "ap 1", "ap/1", "ap:1", "ap\u00e9", "a" * 65]
# Around a value that is valid alone: the schema (and adwiser-dp) refuse it, so the models must not strip it off.
# A final "\n" is not matched by the pattern's "$" in JSON Schema's (ECMA-262) regular expressions, though it is in
# Python's re, which jsonschema uses.
_PADDED = [" {}", "{} ", "\t{}", "{}\n", "{}\u00a0", "{}\u2028"]


def _padded(value: str) -> list[str]:
    return [p.format(value) for p in _PADDED]


_ID_BAD += _padded("ap1")
PATTERN_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    models.ID_PATTERN: (_ID_BAD, ["a" * 64, "A0_.-z"]),
    models.PAIR_PATTERN: (["ap1", "ap1/", "/sta1", "ap1/sta1/x", "ap1 /sta1", "ap1/-sta1", "ap1/" + "s" * 65,
                            *_padded("ap1/sta1")], []),
    models.UNICAST_MAC_PATTERN: (
        ["01:ad:00:00:01:01", "ff:ff:ff:ff:ff:ff", "02:ad:00:00:01", "02:ad:00:00:01:01:01", "02-ad-00-00-01-01",
         "02:ad:00:00:01:0g", "02:ad:00:00:01:011", "2:ad:00:00:01:01", "02ad.0000.0101",
         *_padded("02:ad:00:00:01:01")],
        ["02:AD:00:00:01:01", "fe:ff:ff:ff:ff:fe"],
    ),
    models.PORT_PATTERN: (
        ["", "-ap1", "_ap1", "ap 1", "ap1/0", "ap1;x", "ap1\u00e9", "p" * 129, *_padded("ap1")],
        ["p" * 128, "0000:3b:00.1", "net_ring0,iface=ap1", "net_af_packet0,iface=ap1,qpairs=1", "3"],
    ),
}
FORMAT_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "ip": (
        ["198.18.0.300", "198.18.0", "198.018.0.11", "198.18.0.11/32", "fe80::1%eth0", "1::2::3", "12345::",
         "::ffff:198.18.0", "localhost", "[::1]", *_padded("198.18.0.11"), *_padded("2001:db8::11")],
        ["2001:db8::11", "::ffff:198.18.0.11", "::", "0.0.0.0", "1:2:3:4:5:6:7::",
         "0000:0000:0000:0000:0000:ffff:255.255.255.255"],
    ),
}

# Array element factories for item counts: element k of a list of distinct, valid elements, for arrays where
# repeating the first element would break another rule (the count alone is then what is tested).
Factory = Callable[[int], Any]


def _mac(k: int) -> str:
    return f"02:00:00:00:{k >> 8:02x}:{k & 0xFF:02x}"


DISTINCT_ITEMS: dict[str, Factory] = {
    "topology.aps": lambda k: {"id": f"extra{k}", "channel": 36, "port": f"extra{k}"},
    "topology.stas[].ips": lambda k: f"198.19.{k >> 8}.{k & 0xFF}",
    "slice_map.slices": lambda k: {"duration_ms": 1, "pairs": ["ap1/sta1" if k % 2 else "ap2/sta2"]},
    "policies.realtime.dscp": lambda k: k % 64,
    "policies.realtime.udp_ports": lambda k: 1 + k,
}


def _array_key(path: tuple[str | int, ...]) -> str:
    return models.dotted([p if isinstance(p, str) else "[]" for p in path]).replace(".[]", "[]")


class Walk:
    """The variants of `doc` under `schema`; `covered` collects the schema's properties the walk reached."""

    def __init__(self, schema: dict[str, Any], doc: dict[str, Any]):
        self.schema = schema
        self.doc = doc
        self.covered: set[tuple[str, str]] = set()
        self.uncovered: set[tuple[str, str]] = set()

    def variants(self) -> Iterator[Variant]:
        yield from self._node(self.schema, self.doc, ())

    def _resolve(self, node: dict[str, Any]) -> tuple[dict[str, Any], str]:
        ref = node.get("$ref", "")
        name = ref.rsplit("/", 1)[-1] if ref else "(document)"
        return (self.schema["$defs"][name] if ref else node), name

    def _node(self, node: dict[str, Any], value: Any, path: tuple[str | int, ...]) -> Iterator[Variant]:
        node, name = self._resolve(node)
        branches = node.get("anyOf", [])
        if branches and all("type" in b for b in branches):
            # nullable: null is valid; the other branch's constraints apply to any other value
            yield Variant(path, None)
            (node,) = [b for b in branches if b["type"] != "null"]
            if value is None:
                return
            yield from self._typed(node, value, path, nullable=True, name=name)
        else:
            yield from self._typed(node, value, path, nullable=False, name=name)

    def _typed(self, node: dict[str, Any], value: Any, path: tuple[str | int, ...], nullable: bool,
               name: str) -> Iterator[Variant]:
        kind = node.get("type")
        if not nullable:
            yield Variant(path, None)
        wrong = {"object": [[]], "array": [{}], "string": [7], "integer": ["7", True], "number": ["7", True],
                 "boolean": ["true", 1]}
        yield from (Variant(path, w) for w in wrong[kind])
        if "const" in node:
            yield Variant(path, node["const"] + 1)
        handler = getattr(self, f"_{kind}")
        yield from handler(node, value, path, name)

    def _object(self, node: dict[str, Any], value: dict[str, Any], path: tuple[str | int, ...],
                name: str) -> Iterator[Variant]:
        yield Variant(path + ("unknown_member",), 1)
        for key, sub in sorted(node.get("properties", {}).items()):
            if key not in value:
                self.uncovered.add((name, key))
                continue
            self.covered.add((name, key))
            yield Variant(path + (key,), DELETE)  # refused when required, the default otherwise
            yield from self._node(sub, value[key], path + (key,))

    def _array(self, node: dict[str, Any], value: list[Any], path: tuple[str | int, ...],
               name: str) -> Iterator[Variant]:
        lo, hi = node.get("minItems", 0), node.get("maxItems")
        if lo > 0:
            yield Variant(path, value[: lo - 1])
        elif value:
            yield Variant(path, [])
        if hi is not None:
            make = DISTINCT_ITEMS.get(_array_key(path))
            items = [make(k) for k in range(hi + 1)] if make else [value[k % len(value)] for k in range(hi + 1)]
            yield Variant(path, items[:hi])
            yield Variant(path, items)
        if node.get("uniqueItems") and value:
            yield Variant(path, value + value[:1])
        if "prefixItems" in node:
            for i, sub in enumerate(node["prefixItems"]):
                yield from self._node(sub, value[i], path + (i,))
        elif value:
            yield from self._node(node["items"], value[0], path + (0,))

    def _string(self, node: dict[str, Any], value: str, path: tuple[str | int, ...],
                name: str) -> Iterator[Variant]:
        examples: list[str] = []
        if "pattern" in node:
            bad, good = PATTERN_EXAMPLES[node["pattern"]]
            examples += bad + good
        branches = node.get("anyOf", [])
        if branches:
            assert {b.get("format") for b in branches} == {"ipv4", "ipv6"}, branches
            bad, good = FORMAT_EXAMPLES["ip"]
            examples += bad + good
        if "maxLength" in node and "pattern" not in node:
            examples += ["x" * node["maxLength"], "x" * (node["maxLength"] + 1), "\u00e9" * node["maxLength"],
                         "x" * node["maxLength"] + " ", " x "]
        if "minLength" in node:
            examples += ["x" * (node["minLength"] - 1)]
        yield from (Variant(path, e) for e in examples)

    def _integer(self, node: dict[str, Any], value: int, path: tuple[str | int, ...],
                 name: str) -> Iterator[Variant]:
        if "minimum" in node:
            yield from (Variant(path, v) for v in (node["minimum"] - 1, node["minimum"], float(node["minimum"])))
        if "maximum" in node:
            yield from (Variant(path, v) for v in (node["maximum"], node["maximum"] + 1, float(node["maximum"])))
        yield Variant(path, value + 0.5)

    def _number(self, node: dict[str, Any], value: float, path: tuple[str | int, ...],
                name: str) -> Iterator[Variant]:
        for key, outward in (("minimum", -math.inf), ("exclusiveMinimum", -math.inf), ("maximum", math.inf),
                             ("exclusiveMaximum", math.inf)):
            if key in node:
                edge = float(node[key])
                yield from (Variant(path, v) for v in (edge, math.nextafter(edge, outward),
                                                       math.nextafter(edge, -outward)))

    def _boolean(self, node: dict[str, Any], value: bool, path: tuple[str | int, ...],
                 name: str) -> Iterator[Variant]:
        yield from (Variant(path, v) for v in (True, False))
