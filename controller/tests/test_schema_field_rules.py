"""A value the models refuse on its own (not by relating two fields) is refused by the generated schema too.

Ansible validates the dataplane's document with that schema on the control node
(roles/dataplane/files/validate_config.py), before anything on the appliance changes; a value the schema lets
through is refused only later, on the appliance, by adwiser-dp --check-config (or, with no adwiser-dp
installed there, not at all), so the schema should refuse what it can express.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from adwiser_controller import configfile, schema
from adwiser_controller.configfile import ConfigInvalid

ROOT = Path(__file__).resolve().parents[2]
VALIDATOR = ROOT / "ansible" / "roles" / "dataplane" / "files" / "validate_config.py"


def ansible_errors(doc: dict[str, Any]) -> list[str]:
    spec = importlib.util.spec_from_file_location("validate_config", VALIDATOR)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.errors_of(json.loads(schema.DEFAULT_PATH.read_text()), doc)


def lab_with(path: list[str | int], value: Any) -> dict[str, Any]:
    doc = yaml.safe_load((ROOT / "configs" / "lab-2ap-2sta.yaml").read_text())
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return doc


@pytest.mark.parametrize(
    "path,value",
    [
        (["topology", "stas", 0, "mac"], "01:00:5e:00:00:01"),  # multicast: the dataplane refuses it
        (["topology", "stas", 0, "ips"], ["not-an-ip"]),  # inet_pton refuses it
        (["topology", "stas", 0, "ips"], ["198.18.0.300"]),
        (["topology", "stas", 0, "ips"], ["fe80::1%eth0"]),  # a zone: inet_pton refuses it
        (["policies", "realtime", "dscp"], [46, 46]),
        (["policies", "realtime", "udp_ports"], [5004, 5004]),
        # JSON Schema's "$" (ECMA-262) is the end of the text; Python's re also matches it before a final newline.
        (["appliance_id"], "lab\n"),
        (["topology", "stas", 0, "mac"], "02:ad:00:00:01:01\n"),
        (["topology", "aps", 0, "port"], "ap1\n"),
        (["slice_map", "slices", 0, "pairs"], ["ap1/sta1\n"]),
    ],
    ids=["multicast-mac", "not-an-address", "ipv4-octet-300", "scoped-ipv6", "dscp-repeat", "udp-port-repeat",
         "id-newline", "mac-newline", "port-newline", "pair-newline"],
)
def test_value_the_models_refuse_is_refused_by_the_schema_ansible_validates_with(path, value):
    doc = lab_with(path, value)
    with pytest.raises(ConfigInvalid):
        configfile.validate_data(doc, "test")
    field = ".".join(str(p) for p in path)
    assert [e for e in ansible_errors(doc) if e.startswith(field)], f"the schema accepts {field} = {value!r}"


def test_the_lab_document_and_valid_addresses_pass_the_schema():
    doc = lab_with(["topology", "stas", 0, "ips"], ["198.18.0.11", "2001:db8::11", "::ffff:198.18.0.11"])
    doc["topology"]["stas"][0]["mac"] = "02:AD:00:00:01:01"
    doc["policies"]["realtime"]["udp_ports"] = [5004, 5005]
    configfile.validate_data(doc, "test")
    assert ansible_errors(doc) == []



@pytest.mark.parametrize("member", ['"a_pkts_per_ms": NaN', '"a_pkts_per_ms": 40, "a_pkts_per_ms": 1'],
                         ids=["nan", "duplicate-key"])
def test_the_ansible_validator_refuses_json_text_adwiser_dp_does_not_read(member, tmp_path):
    # Python's json takes both (NaN passes any minimum and maximum; of two keys the last wins, the other is
    # dropped); adwiser-dp's jansson refuses each as not JSON.
    doc = lab_with(["policies", "ts_abr_qd", "a_pkts_per_ms"], "@member@")
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc).replace('"a_pkts_per_ms": "@member@"', member))
    res = subprocess.run([sys.executable, str(VALIDATOR), str(schema.DEFAULT_PATH), str(path)],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 1 and "not a readable JSON document" in res.stderr, (res.stdout, res.stderr)
