"""Export the JSON Schema of the configuration document from the models.

The committed file `configs/schema/adwiser-config.schema.json` is this
output; `make test` checks it is up to date. Cross-field rules (references,
conflicts in a slice, coverage) are not expressible in JSON Schema: they are
listed in the schema's description and enforced by `adwiser_controller
validate` and the API.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .models import AdwiserConfig

SCHEMA_ID = "https://adwiser.invalid/schema/adwiser-config.schema.json"
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "configs" / "schema" / "adwiser-config.schema.json"

CROSS_FIELD_RULES = (
    "Rules beyond this schema, checked by the controller: ids, MACs and IPs unique; every STA's ap exists; "
    "every pair 'ap/sta' names a STA associated with that AP; every managed pair is in at least one slice; "
    "no two conflicting pairs share a slice; a pair appears at most once per slice and at most once in "
    "policies.dynamic_slicing.pairs and policies.aggregation_target.pairs; "
    "r_min_pkts <= r_init_pkts <= r_max_pkts; q_min_pkts <= q_max_pkts; frame length (sum of duration_ms) <= 1000 ms."
)


def build_schema() -> dict[str, Any]:
    schema = AdwiserConfig.model_json_schema(mode="validation")
    out: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "ADWISER appliance configuration",
        "description": CROSS_FIELD_RULES,
    }
    out.update({k: v for k, v in schema.items() if k not in ("title", "description")})
    return out


def schema_text() -> str:
    return json.dumps(build_schema(), indent=2, sort_keys=True) + "\n"


def write(path: Path = DEFAULT_PATH) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(schema_text(), encoding="utf-8")
    return path


def is_current(path: Path = DEFAULT_PATH) -> bool:
    return path.exists() and path.read_text(encoding="utf-8") == schema_text()
