"""The fabric manager's status key (`adwiser:appliance:<id>:fabric`, issue 10) in the appliance status
of the API, against the real redis-server and controller: mode, reason and since-when as written, null
when no manager has written it (or its 3 s expiry passed), and an unreadable value reported, not hidden."""

from __future__ import annotations

import json
import time

import redis

from adwiser_controller import keys
from adwiser_controller.fabric.liveness import LivenessJudge
from adwiser_controller.fabric.manager import FabricManager
from adwiser_controller.fabric.ovs import Ovs
from adwiser_controller.models import AdwiserConfig
from lab_document import lab_doc


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
    assert fabric["refused"] is None  # a status without the field (a manager that predates it) still parses
    listed = {a["id"]: a for a in api("viewer").get("/api/v1/appliances").json()}
    assert listed[aid]["fabric"]["mode"] == "bypass"


def test_the_api_reads_what_the_fabric_manager_itself_writes(api, appliance, redis_server, tmp_path):
    # The manager's own status writer (no OVS command runs: only its Redis side is used), so a change
    # of its field names breaks this test rather than the dashboard.
    aid, _ = appliance
    client = redis.Redis.from_url(redis_server.url)
    mgr = FabricManager(Ovs(tmp_path, "br-t"), AdwiserConfig.model_validate(lab_doc(aid)), "uplink0", client,
                        LivenessJudge())
    mgr.mode, mgr.reason, mgr.switches = "steered", "dataplane healthy (pid 99)", 3
    mgr.refused = {"version": 7, "error": "topology.aps.0.port: port 'ap9' does not exist in this network namespace"}
    mgr._publish_status(time.time_ns(), True)
    client.close()
    fabric = api("viewer").get(f"/api/v1/appliances/{aid}").json()["fabric"]
    assert fabric["mode"] == "steered" and fabric["reason"] == "dataplane healthy (pid 99)"
    assert fabric["since_ns"] == mgr.mode_since_ns and fabric["switches"] == 3 and fabric["bridge"] == "br-t"
    assert fabric["refused"] == mgr.refused


def test_the_api_serves_the_managers_flag_of_a_topology_possibly_stale(api, appliance, redis_server, tmp_path):
    # Set by the manager while the dataplane runs its --config file (active 0, fabric/manager.py).
    aid, _ = appliance
    client = redis.Redis.from_url(redis_server.url)
    mgr = FabricManager(Ovs(tmp_path, "br-t"), AdwiserConfig.model_validate(lab_doc(aid)), "uplink0", client,
                        LivenessJudge())
    mgr.topology_possibly_stale = True
    mgr._publish_status(time.time_ns(), True)
    client.close()
    assert api("viewer").get(f"/api/v1/appliances/{aid}").json()["fabric"]["topology_possibly_stale"] is True


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


def test_the_api_serves_the_managers_failure_to_program_ovs(api, appliance, redis_server, tmp_path):
    # A manager that is alive but cannot program OVS (ovs-vswitchd down) says so; the API dropped the field, so the
    # dashboard showed the last mode and reason as if the flows were in force.
    aid, _ = appliance
    client = redis.Redis.from_url(redis_server.url)
    mgr = FabricManager(Ovs(tmp_path, "br-t"), AdwiserConfig.model_validate(lab_doc(aid)), "uplink0", client,
                        LivenessJudge())
    mgr.ovs_error = {"error": "flow table rewrite failed: ovs-ofctl timed out after 5 s", "since_ns": 123}
    mgr._publish_status(time.time_ns(), True)
    client.close()
    fabric = api("viewer").get(f"/api/v1/appliances/{aid}").json()["fabric"]
    assert fabric["ovs_error"] == mgr.ovs_error
    fabric_status_only = fabric_status("steered", "ok", 1, 1)  # a manager that predates the field
    client = redis.Redis.from_url(redis_server.url)
    client.set(keys.appliance(aid, "fabric"), fabric_status_only, px=3000)
    client.close()
    assert api("viewer").get(f"/api/v1/appliances/{aid}").json()["fabric"]["ovs_error"] is None
