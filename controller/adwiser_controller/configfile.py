"""Read configuration documents (YAML or JSON files) and validate them whole.

A document is either valid and returned as an `AdwiserConfig`, or refused
with `ConfigInvalid` listing every problem with the field it is in; nothing
is ever half-accepted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from . import strict_json
from .field_errors import FieldError, flatten
from .models import AdwiserConfig


class ConfigInvalid(Exception):
    def __init__(self, source: str, errors: list[FieldError]):
        self.source = source
        self.errors = errors
        lines = [f"{source}: {e.field}: {e.message}" for e in errors]
        super().__init__("\n".join(lines))


class _UniqueKeyLoader(yaml.SafeLoader):
    """safe_load that refuses a mapping naming a key twice (plain safe_load keeps the last value)."""

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, yaml.Node] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # `<<:` merges; keys written next to it override merged ones on purpose
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:
                    continue  # unhashable key: the base constructor refuses it
                if first is not key_node:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r} (first at line {first.start_mark.line + 1})",
                        key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def _no_json_type(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    """YAML types JSON has not (sets, ordered maps, pairs, binary): the document is read as JSON would be, so
    a `!!set` conflict pair must not pass as a list in some order (the schema refuses it: not an array)."""
    tag = node.tag.replace("tag:yaml.org,2002:", "!!")
    raise yaml.constructor.ConstructorError(
        None, None, f"{tag} has no JSON type: write a list, a mapping, a string, a number, true/false or null",
        node.start_mark)


for _tag in ("set", "omap", "pairs", "binary"):
    _UniqueKeyLoader.add_constructor(f"tag:yaml.org,2002:{_tag}", _no_json_type)
# An unquoted date (`name: 2026-11-27`) is its text, as in YAML 1.2's JSON schema, not a datetime no field takes.
_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_scalar)

# PyYAML reads YAML 1.1, the dashboard's import (and most other readers) YAML 1.2, and some plain scalars mean
# different things to the two: 036 is 30 in 1.1 and 36 in 1.2; 0b101, 1_000 and 1:30 are numbers in 1.1 and
# strings in 1.2; yes, no, on and off are booleans in 1.1 and strings in 1.2. A configuration must mean one thing
# to every reader, so such a scalar is refused, with its line, rather than read one of the two ways.
_INT_BOTH = re.compile(r"[-+]?(0|[1-9][0-9]*)|0x[0-9a-fA-F]+")   # YAML 1.2's hexadecimal has no sign
_BOOL_BOTH = {"true", "True", "TRUE", "false", "False", "FALSE"}


def _ambiguous(node: yaml.Node, value_11: Any, value_12: Any, write: str) -> yaml.constructor.ConstructorError:
    def shown(v: Any) -> str:
        return str(v).lower() if isinstance(v, bool) else f"the text {v!r}" if isinstance(v, str) else str(v)
    return yaml.constructor.ConstructorError(
        None, None, f"{node.value} is {shown(value_11)} in YAML 1.1 and {shown(value_12)} in YAML 1.2 (the "
        f"dashboard's import): write {write}", node.start_mark)


def _int_one_meaning(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> int:
    value = loader.construct_yaml_int(node)
    if not _INT_BOTH.fullmatch(node.value):
        leading_zeros = re.fullmatch(r"[-+]?0[0-9]+", node.value)
        raise _ambiguous(node, value, int(node.value, 10) if leading_zeros else node.value,
                         "the number in decimal without leading zeros, or quote it for text")
    return value


def _float_one_meaning(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> float:
    value = loader.construct_yaml_float(node)
    if "_" in node.value or ":" in node.value:
        raise _ambiguous(node, value, node.value, "the number without '_' or ':', or quote it for text")
    return value


def _bool_one_meaning(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> bool:
    value = loader.construct_yaml_bool(node)
    if node.value not in _BOOL_BOTH:
        raise _ambiguous(node, value, node.value, "true or false, or quote it for text")
    return value


_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:int", _int_one_meaning)
_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:float", _float_one_meaning)
_UniqueKeyLoader.add_constructor("tag:yaml.org,2002:bool", _bool_one_meaning)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def parse_text(text: str, source: str) -> Any:
    """The document in text: JSON read as JSON, anything else as YAML.

    JSON text is not left to the YAML reader, which reads YAML 1.1: there a number with an exponent is a string
    unless it has a point and a signed exponent (1e3, 1E+3 and 1.0e3 are strings, 1.0e+3 is a number), and no
    numeric field takes a string, while the schema, the API and adwiser-dp read the same file as the number.
    Read strictly, as adwiser-dp reads it (strict_json)."""
    if text.startswith("\ufeff") and _is_json(text[1:]):
        # The YAML reader skips the mark and would take the JSON after it, which adwiser-dp refuses ("'[' or '{'
        # expected"): a file called valid here that the appliance does not start on.
        raise ConfigInvalid(source, [FieldError(field="(document)", message="not valid JSON: it begins with a UTF-8 "
                                                "byte-order mark, which adwiser-dp does not read; save it without one",
                                                type="json")])
    try:
        return strict_json.loads(text)
    except strict_json.NotStrictJson as exc:
        raise ConfigInvalid(source, [FieldError(field="(document)", message=f"not valid JSON: {exc}",
                                                type="json")]) from None
    except json.JSONDecodeError:
        pass  # not JSON: YAML
    try:
        return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except RecursionError:
        # PyYAML composes a node per level by recursion (strict_json says the same of JSON)
        raise ConfigInvalid(source, [FieldError(field="(document)", message="not valid YAML: sequences and "
                                                "mappings nested too deeply", type="yaml")]) from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f"line {where.line + 1} column {where.column + 1}" if where else "(document)"
        raise ConfigInvalid(source, [FieldError(field=at, message=f"not valid YAML: {exc}", type="yaml")]) from None


def validate_data(data: Any, source: str) -> AdwiserConfig:
    if not isinstance(data, dict):
        raise ConfigInvalid(
            source, [FieldError(field="(document)", message="the document must be a mapping", type="dict_type")]
        )
    try:
        return AdwiserConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigInvalid(source, flatten(exc.errors())) from None


def load(path: str | Path) -> AdwiserConfig:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigInvalid(str(p), [FieldError(field="(file)", message=str(exc), type="io")]) from None
    except UnicodeDecodeError as exc:
        line = exc.object[:exc.start].count(b"\n") + 1
        message = f"not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at line {line} (offset {exc.start})"
        raise ConfigInvalid(str(p), [FieldError(field="(file)", message=message, type="encoding")]) from None
    return validate_data(parse_text(text, str(p)), str(p))


def render_json(cfg: AdwiserConfig) -> str:
    """The validated, normalised document as the dataplane and ansible read it."""
    return json.dumps(cfg.model_dump(mode="json"), indent=2, sort_keys=False) + "\n"
