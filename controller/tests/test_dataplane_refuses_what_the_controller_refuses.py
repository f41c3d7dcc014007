"""adwiser-dp --check-config refuses exactly the documents the controller refuses.

One schema for configuration: the controller's models, the JSON Schema generated from them (which ansible
validates with), and the dataplane's loader and core check (dataplane/dp/config_json.c, dataplane/core/config.c)
must draw the same line. Every variant of the lab document with every optional field set (schema_variants: one
change on either side of each constraint of the schema) and every cross-field rule of the models is given to the
built dataplane; it must refuse the variant if and only if the schema or the models refuse it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from lab_document import full_lab
from cross_field_edits import CROSS_FIELD, Edit
from schema_variants import Variant, Walk

from adwiser_controller import configfile, schema
from adwiser_controller.configfile import ConfigInvalid

ADWISER_DP = Path(__file__).resolve().parents[2] / "dataplane" / "build" / "adwiser-dp"
SCHEMA = json.loads(schema.DEFAULT_PATH.read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def _walk() -> Walk:
    return Walk(SCHEMA, full_lab())


def _cases() -> list[Variant | Edit]:
    seen: dict[str, Variant | Edit] = {}
    for case in [*_walk().variants(), *CROSS_FIELD]:
        seen.setdefault(case.label(), case)
    return list(seen.values())


def controller_refusal(doc: dict[str, Any]) -> str | None:
    """Why the controller refuses doc (the schema ansible validates with, then the models), or None."""
    errors = sorted(VALIDATOR.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        return f"schema: {'.'.join(map(str, errors[0].absolute_path))}: {errors[0].message}"[:300]
    try:
        configfile.validate_data(doc, "variant")
    except ConfigInvalid as exc:
        return f"models: {exc}"[:300]
    return None


def dataplane_refusal(doc: Any, tmp_path: Path) -> str | None:
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    res = subprocess.run([str(ADWISER_DP), "--check-config", str(path)], capture_output=True, text=True, timeout=30)
    assert res.returncode in (0, 1), res.stderr
    return (res.stdout + res.stderr).strip() if res.returncode else None


@pytest.fixture(scope="module")
def adwiser_dp() -> Path:
    if not ADWISER_DP.exists():
        pytest.fail(f"{ADWISER_DP} is not built (make -C dataplane build)")
    return ADWISER_DP


def test_every_field_of_the_schema_is_in_the_full_lab_document():
    walk = _walk()
    list(walk.variants())
    assert walk.uncovered == set()
    everything = {(name, key) for name, d in SCHEMA["$defs"].items() for key in d.get("properties", {})}
    everything |= {("(document)", key) for key in SCHEMA["properties"]}
    assert everything - walk.covered == set()


def test_the_full_lab_document_is_valid_for_the_controller_and_the_dataplane(adwiser_dp, tmp_path):
    assert controller_refusal(full_lab()) is None
    assert dataplane_refusal(full_lab(), tmp_path) is None


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c.label())
def test_adwiser_dp_check_config_refuses_exactly_what_the_controller_refuses(case, adwiser_dp, tmp_path):
    doc = case.applied_to(full_lab())
    controller = controller_refusal(doc)
    dataplane = dataplane_refusal(doc, tmp_path)
    if controller is None:
        assert dataplane is None, f"the controller accepts {case.label()}, adwiser-dp refuses it: {dataplane}"
    else:
        assert dataplane is not None, f"the controller refuses {case.label()} ({controller}), adwiser-dp accepts it"


def test_adwiser_dp_accepts_the_stored_form_of_every_document_the_models_accept(adwiser_dp, tmp_path):
    """The controller stores what its models made of a document (store.py: model_dump), not what it was sent: the
    models' normalisations (20.0 -> 20 for an integer, stripped spaces, normalised addresses) must give a document adwiser-dp loads."""
    refused = []
    for case in _cases():
        try:
            cfg = configfile.validate_data(case.applied_to(full_lab()), "variant")
        except ConfigInvalid:
            continue
        why = dataplane_refusal(cfg.model_dump(mode="json"), tmp_path)
        if why is not None:
            refused.append(f"{case.label()}: {why}")
    assert refused == []
