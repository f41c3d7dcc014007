"""The appliance status reports the dataplane's refusal only while it is current: the refused version is the
desired one and is not running. The `rejected` key keeps the dataplane's last refusal for good (REDIS.md), so
a later apply that goes live, or a return to the running version, must not leave it reported as current."""

from __future__ import annotations

import json

from lab_document import lab_doc
from reference_dataplane import ReferenceDataplane


def new_version(api, aid: str, slice_ms: int) -> int:
    doc = lab_doc(aid)
    doc["slice_map"]["slices"][0]["duration_ms"] = slice_ms
    return api("operator").post("/api/v1/versions", json={"doc": doc}).json()["version"]


def status(api, aid: str) -> dict:
    one = api("viewer").get(f"/api/v1/appliances/{aid}").json()
    listed = [a for a in api("viewer").get("/api/v1/appliances").json() if a["id"] == aid]
    assert len(listed) == 1 and listed[0]["rejected"] == one["rejected"], (listed, one)
    return one


def test_a_refusal_is_not_reported_once_a_later_version_runs(api, appliance, redis_server, rdb):
    aid, v1 = appliance
    v2, v3 = new_version(api, aid, 25), new_version(api, aid, 30)
    dp = ReferenceDataplane(redis_server.url, aid, telemetry=False, refuse_versions={v2}).start()
    try:
        assert api("operator").post(f"/api/v1/versions/{v1}/apply", params={"wait_ms": 3000}).json()["acknowledged"]
        refused = api("operator").post(f"/api/v1/versions/{v2}/apply", params={"wait_ms": 3000}).json()
        assert refused["status"]["rejected"]["version"] == v2, refused
        res = api("operator").post(f"/api/v1/versions/{v3}/apply", params={"wait_ms": 3000}).json()
    finally:
        dp.stop()
    assert res["acknowledged"] is True and res["status"]["rejected"] is None, res
    st = status(api, aid)
    assert st["active"] == v3 and st["pending"] is False and st["rejected"] is None, st
    # The dataplane's key itself is left as it wrote it.
    assert json.loads(rdb.get(f"adwiser:appliance:{aid}:rejected"))["version"] == v2


def test_a_refusal_is_not_reported_once_the_running_version_is_applied_again(api, appliance, rdb):
    aid, v1 = appliance
    v2 = new_version(api, aid, 25)
    rdb.set(f"adwiser:appliance:{aid}:active", v1)
    rdb.set(f"adwiser:appliance:{aid}:desired", v2)
    rdb.set(f"adwiser:appliance:{aid}:rejected", json.dumps({"version": v2, "error": "refused"}))
    assert status(api, aid)["rejected"] == {"version": v2, "error": "refused", "apply_seq": None}
    rdb.set(f"adwiser:appliance:{aid}:desired", v1)  # the operator withdrew v2 by applying what runs
    st = status(api, aid)
    assert st["pending"] is False and st["rejected"] is None, st


def test_a_refusal_of_a_version_that_runs_now_is_not_reported(api, appliance, rdb):
    # Refused once (say its ports were missing at the time), applied again later and running.
    aid, v1 = appliance
    rdb.set(f"adwiser:appliance:{aid}:active", v1)
    rdb.set(f"adwiser:appliance:{aid}:desired", v1)
    rdb.set(f"adwiser:appliance:{aid}:rejected", json.dumps({"version": v1, "error": "refused then"}))
    assert status(api, aid)["rejected"] is None


def test_a_refusal_of_the_desired_version_is_reported_while_the_dataplane_runs_its_file(api, appliance, rdb):
    aid, v1 = appliance
    rdb.set(f"adwiser:appliance:{aid}:active", 0)
    rdb.set(f"adwiser:appliance:{aid}:desired", v1)
    rdb.set(f"adwiser:appliance:{aid}:rejected", json.dumps({"version": v1, "error": "refused"}))
    assert status(api, aid)["rejected"] == {"version": v1, "error": "refused", "apply_seq": None}


def test_a_refusal_of_an_earlier_apply_is_not_reported_once_the_version_is_applied_again(api, appliance, rdb):
    # v2 was refused, the operator went back to v1, then applied v2 again (say after fixing the host): until the
    # dataplane answers this apply, the old refusal is no answer to it.
    aid, v1 = appliance
    v2 = new_version(api, aid, 25)
    rdb.set(f"adwiser:appliance:{aid}:active", v1)
    api("operator").post(f"/api/v1/versions/{v2}/apply")
    seq = rdb.get(f"adwiser:appliance:{aid}:apply_seq")
    assert seq is not None, "an apply is not counted"
    rdb.set(f"adwiser:appliance:{aid}:rejected", json.dumps({"version": v2, "error": "refused", "apply_seq": int(seq)}))
    assert status(api, aid)["rejected"]["version"] == v2
    api("operator").post(f"/api/v1/versions/{v1}/apply")
    api("operator").post(f"/api/v1/versions/{v2}/apply")
    st = status(api, aid)
    assert st["pending"] is True and st["rejected"] is None, st
    # The dataplane's answer to this apply is reported.
    seq = int(rdb.get(f"adwiser:appliance:{aid}:apply_seq"))
    rdb.set(f"adwiser:appliance:{aid}:rejected", json.dumps({"version": v2, "error": "refused", "apply_seq": seq}))
    assert status(api, aid)["rejected"] == {"version": v2, "error": "refused", "apply_seq": seq}
