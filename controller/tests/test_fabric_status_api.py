"""The fabric manager's status key (`adwiser:appliance:<id>:fabric`, issue 10) in the appliance status
of the API, against the real redis-server and controller: mode, reason and since-when as written, null
when no manager has written it (or its 3 s expiry passed), and an unreadable value reported, not hidden."""

from __future__ import annotations

import json
import time

from adwiser_controller import keys


def fabric_status(mode: str, reason: str, since_ns: int, version: int) -> str:
    # The field set FabricManager._publish_status writes (fabric/manager.py).
    return json.dumps({"mode": mode, "since_ns": since_ns, "reason": reason, "version": version, "switches": 1,
                       "dp_pid": 4242, "bridge": "br-adw", "ts_ns": time.time_ns()})


def test_appliance_status_carries_the_fabric_mode_reason_and_since(api, appliance, rdb):
    aid, v = appliance
    since = time.time_ns() - 5_000_000_000
    rdb.set(keys.appliance(aid, "fabric"), fabric_status("bypass", "heartbeat stale (3.1 s)", since, v), px=3000)
    one = api("viewer").get(f"/api/v1/appliances/{aid}")
    assert one.status_code == 200, one.text
    fabric = one.json()["fabric"]
    assert fabric["mode"] == "bypass" and fabric["reason"] == "heartbeat stale (3.1 s)"
    assert fabric["since_ns"] == since and fabric["version"] == v and fabric["bridge"] == "br-adw"
    listed = {a["id"]: a for a in api("viewer").get("/api/v1/appliances").json()}
    assert listed[aid]["fabric"]["mode"] == "bypass"


def test_fabric_is_null_without_a_manager_status(api, appliance, rdb):
    aid, _ = appliance
    rdb.delete(keys.appliance(aid, "fabric"))
    assert api("viewer").get(f"/api/v1/appliances/{aid}").json()["fabric"] is None


def test_an_unreadable_fabric_status_is_reported_as_unknown(api, appliance, rdb):
    aid, _ = appliance
    rdb.set(keys.appliance(aid, "fabric"), json.dumps({"mode": "sideways"}), px=3000)
    fabric = api("viewer").get(f"/api/v1/appliances/{aid}").json()["fabric"]
    assert fabric["mode"] == "unknown" and "unreadable fabric status" in fabric["reason"]


def test_openapi_documents_the_fabric_status(api):
    spec = api(None).get("/openapi.json").json()
    props = spec["components"]["schemas"]["ApplianceStatus"]["properties"]
    assert "fabric" in props
    fabric = spec["components"]["schemas"]["FabricStatus"]["properties"]
    assert {"mode", "reason", "since_ns"} <= set(fabric)
