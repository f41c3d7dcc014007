"""`apply?wait_ms=` ends its wait when the dataplane refuses the version, not only when it acknowledges it."""

from __future__ import annotations

import json
import time

from lab_document import lab_doc
from reference_dataplane import ReferenceDataplane


def second_version(api, aid: str) -> int:
    doc = lab_doc(aid)
    doc["slice_map"]["slices"][0]["duration_ms"] = 25
    return api("operator").post("/api/v1/versions", json={"doc": doc}).json()["version"]


def test_apply_of_a_version_the_dataplane_refuses_answers_once_refused_not_after_wait_ms(
        api, appliance, redis_server):
    aid, v1 = appliance
    v2 = second_version(api, aid)
    dp = ReferenceDataplane(redis_server.url, aid, telemetry=False, refuse_versions={v2}).start()
    try:
        assert api("operator").post(f"/api/v1/versions/{v1}/apply", params={"wait_ms": 3000}).json()["acknowledged"]
        t0 = time.monotonic()
        res = api("operator").post(f"/api/v1/versions/{v2}/apply", params={"wait_ms": 8000}).json()
        took = time.monotonic() - t0
    finally:
        dp.stop()
    assert res["acknowledged"] is False and res["status"]["rejected"]["version"] == v2, res
    assert res["status"]["active"] == v1
    assert took < 4, f"the refusal was known within a frame but the call waited {took:.1f} s"


def test_an_earlier_refusal_of_the_same_version_does_not_end_the_wait(api, appliance, redis_server, rdb):
    # The dataplane keeps its last refusal in `rejected`; a version refused before and applied again
    # (say after its dataplane was fixed) is waited for until this apply's answer.
    aid, v1 = appliance
    rdb.set(f"adwiser:appliance:{aid}:rejected", json.dumps({"version": v1, "error": "an earlier refusal"}))
    dp = ReferenceDataplane(redis_server.url, aid, telemetry=False).start()
    try:
        res = api("operator").post(f"/api/v1/versions/{v1}/apply", params={"wait_ms": 5000}).json()
    finally:
        dp.stop()
    assert res["acknowledged"] is True and res["status"]["active"] == v1, res
