"""The models refuse every value the generated JSON Schema refuses, and refuse no value on its type that the schema
takes.

One schema for the configuration: the API and `adwiser_controller validate` read documents with the models, ansible
and the web UI with the schema made from them. The walk (schema_variants) changes one field at a time on both sides
of each constraint of the schema, including a value of each wrong JSON type ("7" for an integer, 1 or "true" for a
boolean, true for a number) and an integral number (20.0) for an integer, which JSON Schema calls an integer.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
from lab_document import full_lab
from pydantic import ValidationError
from schema_variants import Variant, Walk

from adwiser_controller import models, schema

SCHEMA = json.loads(schema.DEFAULT_PATH.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
# pydantic's error types that say the value's type is wrong, not its value or how it relates to another field.
TYPE_ERRORS = {"int_type", "float_type", "bool_type", "string_type", "list_type", "tuple_type", "dict_type",
               "model_type", "literal_error", "none_required"}


def _model_errors(doc: dict[str, Any]) -> list[dict[str, Any]]:
    try:
        models.AdwiserConfig.model_validate(doc)
    except ValidationError as exc:
        return exc.errors()
    return []


def _variants() -> list[tuple[Variant, dict[str, Any]]]:
    return [(v, v.applied_to(full_lab())) for v in Walk(SCHEMA, full_lab()).variants()]


def test_every_value_the_schema_refuses_is_refused_by_the_models():
    accepted = [v.label() for v, doc in _variants() if not VALIDATOR.is_valid(doc) and not _model_errors(doc)]
    assert accepted == []


def test_no_value_the_schema_takes_is_refused_by_the_models_for_its_type():
    refused = [f"{v.label()}: {e['type']} at {models.dotted(list(e['loc']))}"
               for v, doc in _variants() if VALIDATOR.is_valid(doc)
               for e in _model_errors(doc) if e["type"] in TYPE_ERRORS]
    assert refused == []
