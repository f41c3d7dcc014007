"""Every change lands in the audit log with who, what, when and from where."""

from __future__ import annotations

import pytest
from lab_document import lab_doc


def test_version_create_and_apply_are_audited_with_user_and_client(api, appliance):
    aid, v1 = appliance
    assert api("operator").post(f"/api/v1/versions/{v1}/apply").status_code == 200
    entries = api("operator").get("/api/v1/audit", params={"count": 50}).json()
    mine = [e for e in entries if e["detail"].get("appliance_id") == aid]
    actions = [(e["action"], e["target"], e["username"]) for e in mine]
    assert ("version.apply", f"version:{v1}", "operator1") in actions
    assert ("version.create", f"version:{v1}", "operator1") in actions
    apply_entry = next(e for e in mine if e["action"] == "version.apply")
    assert apply_entry["client"] == "127.0.0.1" and apply_entry["role"] == "operator"
    assert apply_entry["at"].endswith("Z")


def test_refused_change_creates_no_version_and_no_audit_entry(api, appliance):
    aid, _ = appliance
    before = api("operator").get("/api/v1/audit", params={"count": 1}).json()[0]["id"]
    doc = lab_doc(aid)
    doc["slice_map"]["slices"] = []
    assert api("operator").post("/api/v1/versions", json={"doc": doc}).status_code == 422
    newer = api("operator").get("/api/v1/audit", params={"count": 10}).json()
    assert not [e for e in newer if e["id"] > before and e["detail"].get("appliance_id") == aid]


def test_audit_pages_backwards(api):
    first = api("admin").get("/api/v1/audit", params={"count": 2}).json()
    older = api("admin").get("/api/v1/audit", params={"count": 2, "before": first[-1]["id"]}).json()
    assert older and all(e["id"] < first[-1]["id"] for e in older)


@pytest.mark.parametrize("before", ["0-0", "99999999999999999999-0", "1-18446744073709551616"])
def test_audit_before_out_of_redis_range_is_422_naming_before(api, before):
    # Redis refuses these (nothing before 0-0; a part above 2^64-1): not a store outage.
    res = api("operator").get("/api/v1/audit", params={"before": before})
    assert res.status_code == 422 and res.json()["field"] == "query.before", res.text


def test_audit_before_the_smallest_id_but_one_is_valid(api):
    assert api("operator").get("/api/v1/audit", params={"before": "0-1"}).json() == []


def test_a_rollback_is_audited_with_its_comment_and_the_head_it_replaced(api, appliance):
    # The rollback's new version was audited with neither the comment it was given nor its parent (every other
    # version.create entry has both), so the log could not say why the rollback was made or what it replaced.
    aid, v1 = appliance
    doc = lab_doc(aid)
    doc["slice_map"]["slices"][0]["duration_ms"] = 30
    v2 = api("operator").post("/api/v1/versions", json={"doc": doc}).json()["version"]
    res = api("operator").post(f"/api/v1/versions/{v1}/rollback", json={"comment": "AP1 starved"})
    assert res.status_code == 200, res.text
    v3 = res.json()["version"]
    entries = api("operator").get("/api/v1/audit", params={"count": 20}).json()
    mine = {e["action"]: e for e in entries if e["target"] == f"version:{v3}"}
    assert mine["version.create"]["detail"] == {"appliance_id": aid, "comment": "AP1 starved", "parent": v2,
                                                "rollback_of": v1}
    assert mine["version.rollback"]["detail"] == {"appliance_id": aid, "previous": None, "rollback_to": v1,
                                                  "comment": "AP1 starved"}
