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

from adwiser_controller import configfile, models, schema
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
    models' normalisations (20.0 -> 20 for an integer, normalised addresses and MACs) must give a document adwiser-dp loads."""
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



# JSON text as written, for what the controller's file reader and jansson could read differently: numbers with an
# exponent (YAML 1.1 reads 1e2, 1E+2 and 1.0e2 as strings), the non-numbers Python's json takes, a double's
# overflow, an integer beyond 64 bits.
RAW_VALUES = {
    ("schema_version",): ["1e0", "1.0e0"],
    ("topology", "aps", 0, "channel"): ["2.33e2", "3.6E+1", "233e0", "18446744073709551653"],
    ("topology", "aps", 0, "ampdu_ceiling_mpdus"): ["4.8e1", "NaN", "Infinity", "-Infinity", "1e400"],
    ("topology", "stas", 0, "phy_rate_mbps"): ["1e4", "1E+4", "1.0e4", "5e-324"],
    ("policies", "realtime", "hold_max_fraction"): ["0e0", "-1e-400", "1e0"],
    ("policies", "realtime", "dscp"): ["[4.6e1]"],
    ("policies", "queue_sizing", "q_max_pkts"): ["1.048576e6", "1e6"],
    ("policies", "aggregation_target", "delta_s"): ["1e-2", "6e1"],
}


def _raw_cases() -> list[tuple[str, str]]:
    cases = []
    for path, raws in RAW_VALUES.items():
        for raw in raws:
            doc = full_lab()
            parent = doc
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = "@raw@"
            cases.append((f"{models.dotted(list(path))} = {raw}", json.dumps(doc).replace('"@raw@"', raw, 1)))
    # A member named twice: the last value alone is valid.
    text = json.dumps(full_lab())
    cases.append(("channel twice", text.replace('"channel": 36', '"channel": 999, "channel": 36', 1)))
    return cases


@pytest.mark.parametrize("label,text", _raw_cases(), ids=[label for label, _ in _raw_cases()])
def test_a_json_file_is_refused_by_validate_exactly_when_adwiser_dp_refuses_it(label, text, adwiser_dp, tmp_path):
    doc = tmp_path / "doc.json"
    doc.write_text(text)
    try:
        configfile.load(doc)
        controller = None
    except ConfigInvalid as exc:
        controller = str(exc)
    res = subprocess.run([str(ADWISER_DP), "--check-config", str(doc)], capture_output=True, text=True, timeout=30)
    assert res.returncode in (0, 1), res.stderr
    dataplane = (res.stdout + res.stderr).strip() if res.returncode else None
    assert (controller is None) == (dataplane is None), f"{label}: validate: {controller}; adwiser-dp: {dataplane}"
