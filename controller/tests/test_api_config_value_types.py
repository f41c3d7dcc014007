"""Over the API, a configuration value of the wrong JSON type is refused (422 naming the field), not converted.

The JSON Schema generated from the models (configs/schema/adwiser-config.schema.json) refuses "7" for an
integer and 1 or "true" for a boolean, and so do ansible's check and the dataplane's loader; an edit the API
stored after converting such a value would be a document the other readers of the one schema call invalid.
JSON Schema's own leniencies stay: an integer is a number (20 for a float field) and 20.0 is an integer.
"""

from __future__ import annotations

from typing import Any

import pytest
from lab_document import lab_doc


def _versions(api, aid: str) -> int:
    return api("viewer").get("/api/v1/versions", params={"appliance": aid}).json()["total"]


def _refused(res: Any, field: str) -> None:
    assert res.status_code == 422, res.text
    body = res.json()
    assert body["field"] == field, body
    assert [e["field"] for e in body["errors"]] == [field], body


@pytest.mark.parametrize("value", ["30", True, "30.0"], ids=["string", "boolean", "string-float"])
def test_a_slice_map_edit_with_a_non_integer_duration_is_refused_naming_the_field(api, appliance, value):
    aid, v1 = appliance
    sm = api("viewer").get("/api/v1/slice-maps", params={"appliance": aid}).json()["slice_map"]
    sm["slices"][0]["duration_ms"] = value
    res = api("operator").put("/api/v1/slice-maps", params={"appliance": aid},
                              json={"slice_map": sm, "base_version": v1})
    _refused(res, "slice_map.slices[0].duration_ms")
    assert _versions(api, aid) == 1


@pytest.mark.parametrize("key,value", [("early_handover", 1), ("early_handover", "true"), ("r_init_pkts", "7"),
                                       ("a_pkts_per_ms", "1"), ("a_pkts_per_ms", True)])
def test_a_policies_edit_with_a_value_of_the_wrong_type_is_refused_naming_the_field(api, appliance, key, value):
    aid, v1 = appliance
    pol = api("viewer").get("/api/v1/policies", params={"appliance": aid}).json()["policies"]
    pol["ts_abr_qd"][key] = value
    res = api("operator").put("/api/v1/policies", params={"appliance": aid}, json={"policies": pol})
    _refused(res, f"policies.ts_abr_qd.{key}")
    assert _versions(api, aid) == 1


def test_a_new_version_with_a_string_for_an_integer_is_refused_naming_the_field(api, appliance):
    aid, _ = appliance
    doc = lab_doc(aid)
    doc["policies"]["realtime"]["dscp"] = ["46"]
    res = api("operator").post("/api/v1/versions", json={"doc": doc})
    _refused(res, "doc.policies.realtime.dscp[0]")
    assert _versions(api, aid) == 1


def test_an_integer_for_a_float_and_an_integral_number_for_an_integer_are_accepted_as_json_schema_does(
        api, appliance):
    aid, v1 = appliance
    pol = api("viewer").get("/api/v1/policies", params={"appliance": aid}).json()["policies"]
    pol["ts_abr_qd"]["a_pkts_per_ms"] = 2
    pol["ts_abr_qd"]["r_init_pkts"] = 8.0
    res = api("operator").put("/api/v1/policies", params={"appliance": aid},
                              json={"policies": pol, "base_version": v1})
    assert res.status_code == 201, res.text
    stored = api("viewer").get("/api/v1/policies", params={"appliance": aid}).json()["policies"]["ts_abr_qd"]
    assert stored["a_pkts_per_ms"] == 2.0 and stored["r_init_pkts"] == 8 and isinstance(stored["r_init_pkts"], int)


def test_a_topology_edit_keeps_conflicts_given_as_json_arrays(api, appliance):
    aid, v1 = appliance
    topo = api("viewer").get("/api/v1/topology", params={"appliance": aid}).json()["topology"]
    topo["conflicts"] = [["ap1/sta1", "ap2/sta2"]]
    res = api("operator").put("/api/v1/topology", params={"appliance": aid},
                              json={"topology": topo, "base_version": v1})
    assert res.status_code == 201, res.text
    shown = api("viewer").get("/api/v1/topology", params={"appliance": aid}).json()["topology"]
    assert shown["conflicts"] == [["ap1/sta1", "ap2/sta2"]]
