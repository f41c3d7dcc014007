"""The lab document (configs/lab-2ap-2sta.yaml) under another appliance id, for tests to edit."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

LAB = Path(__file__).resolve().parents[2] / "configs" / "lab-2ap-2sta.yaml"


def lab_doc(appliance_id: str) -> dict[str, Any]:
    doc = copy.deepcopy(yaml.safe_load(LAB.read_text()))
    doc["appliance_id"] = appliance_id
    return doc
