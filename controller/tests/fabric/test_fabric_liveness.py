"""The watchdog's verdicts on the dataplane's liveness (no root needed: real child processes stand in
for the dataplane's pid, port samples are given), and the manager following the active topology
against a fake OVS, Redis and host."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adwiser_controller import keys
from adwiser_controller.configfile import load
from adwiser_controller.fabric import links
from adwiser_controller.fabric import manager as manager_mod
from adwiser_controller.fabric.liveness import (
    Heartbeat, HeartbeatInvalid, LivenessJudge, PortSample, parse_heartbeat, process_state)
from adwiser_controller.fabric.manager import FabricManager
from adwiser_controller.fabric.ovs import OvsError
from adwiser_controller.telemetry import FabricStatus, Rejection

MS = 1_000_000
T0 = 1_800_000_000 * 1_000_000_000


def ports(into: int = 0, out: int = 0, down: tuple[str, ...] = ()) -> PortSample:
    return PortSample(all_up=not down, down=down, into_dp=into, out_of_dp=out)


@pytest.fixture
def child() -> Iterator[int]:
    p = subprocess.Popen(["sleep", "30"])
    try:
        yield p.pid
    finally:
        p.kill()
        p.wait()


def beat(pid: int, at_ns: int) -> Heartbeat:
    return Heartbeat(ts_ns=at_ns, pid=pid, version=1, backend="dpdk")


def test_fresh_heartbeat_of_a_running_process_is_healthy(child: int) -> None:
    v = LivenessJudge().judge(T0, beat(child, T0 - 150 * MS), True, ports())
    assert v.healthy, v.reason


def test_without_the_pid_check_a_heartbeat_older_than_stale_ms_is_dead_long_before_the_key_expires() -> None:
    v = LivenessJudge(stale_ms=600, check_pid=False).judge(T0, beat(12345, T0 - 700 * MS), True, ports())
    assert not v.healthy and "stale (700 ms old)" in v.reason


def test_a_late_heartbeat_of_a_visibly_running_process_is_put_down_to_a_busy_host(child: int) -> None:
    j = LivenessJudge(stale_ms=600, stale_ms_local=2000)
    assert j.judge(T0, beat(child, T0 - 1500 * MS), True, ports()).healthy
    v = j.judge(T0, beat(child, T0 - 2100 * MS), True, ports())
    assert not v.healthy and "stale (2100 ms old)" in v.reason


def test_missing_heartbeat_is_dead(child: int) -> None:
    v = LivenessJudge().judge(T0, None, True, ports())
    assert not v.healthy and v.reason == "no heartbeat in Redis"


def test_killed_process_is_seen_at_once_despite_a_fresh_heartbeat() -> None:
    p = subprocess.Popen(["sleep", "30"])
    p.kill()
    p.wait()
    v = LivenessJudge().judge(T0, beat(p.pid, T0), True, ports())
    assert not v.healthy and "is gone" in v.reason


def test_stopped_process_is_hung(child: int) -> None:
    os.kill(child, signal.SIGSTOP)
    try:
        for _ in range(200):  # the signal is delivered asynchronously
            if process_state(child) == "T":
                break
            time.sleep(0.01)
        assert process_state(child) == "T"
        v = LivenessJudge().judge(T0, beat(child, T0), True, ports())
        assert not v.healthy and "is stopped" in v.reason
    finally:
        os.kill(child, signal.SIGCONT)


def test_a_dataplane_port_down_is_dead(child: int) -> None:
    v = LivenessJudge().judge(T0, beat(child, T0), True, ports(down=("fb-ap2",)))
    assert not v.healthy and "fb-ap2" in v.reason


def test_frames_in_and_none_out_for_stall_ms_is_a_stall(child: int) -> None:
    j = LivenessJudge(stall_ms=600)
    assert j.judge(T0, beat(child, T0), True, ports(100, 90)).healthy
    # Frames keep going in, nothing comes out any more.
    for k, into in enumerate(range(110, 200, 10), start=1):
        t = T0 + k * 100 * MS
        v = j.judge(t, beat(child, t), True, ports(into, 90))
    assert not v.healthy and v.stall, v.reason


def test_frames_coming_out_again_end_the_stall_clock(child: int) -> None:
    j = LivenessJudge(stall_ms=600)
    out = 90
    for k, into in enumerate(range(100, 300, 10)):
        t = T0 + k * 100 * MS
        out += 10 if k % 5 == 0 else 0  # a frame-long hold (slicing), then a release
        v = j.judge(t, beat(child, t), True, ports(into, out))
        assert v.healthy, v.reason


def test_a_restarted_dataplane_is_not_blamed_for_its_dead_predecessors_stall(child: int) -> None:
    j = LivenessJudge(stall_ms=600)
    dead = child + 1_000_000  # no such process
    assert j.judge(T0, beat(child, T0), True, ports(100, 90)).healthy
    # The old process died; frames kept going into its ports (bypass floods), none came out.
    for k, into in enumerate(range(110, 200, 10), start=1):
        t = T0 + k * 100 * MS
        j.judge(t, beat(dead, t), True, ports(into, 90))
    # A new process beats: its stall clock starts now, so it is healthy at once.
    t = T0 + 20 * 100 * MS
    v = j.judge(t, beat(child, t), True, ports(200, 90))
    assert v.healthy, v.reason


def test_a_dataplane_restarted_with_its_predecessors_pid_is_not_blamed_for_its_stall(child: int) -> None:
    # In a container the dataplane is often pid 1 at every start: only the heartbeat's started_ns tells the
    # restarted one from its predecessor, whose unforwarded frames were counted as the new one's stall.
    j = LivenessJudge(stall_ms=600)
    assert j.judge(T0, Heartbeat(T0, child, 1, "dpdk", started_ns=T0 - 5000 * MS), True, ports(100, 90)).healthy
    for k, into in enumerate(range(110, 200, 10), start=1):
        t = T0 + k * 100 * MS
        j.judge(t, Heartbeat(t, child, 1, "dpdk", started_ns=T0 - 5000 * MS), True, ports(into, 90))
    t = T0 + 20 * 100 * MS
    v = j.judge(t, Heartbeat(t, child, 1, "dpdk", started_ns=t - 50 * MS), True, ports(200, 90))
    assert v.healthy, v.reason


def test_an_idle_dataplane_is_not_stalled(child: int) -> None:
    j = LivenessJudge(stall_ms=600)
    for k in range(20):
        t = T0 + k * 100 * MS
        into = 100 + (1 if k == 10 else 0)  # one frame that the dataplane may drop is no stall
        assert j.judge(t, beat(child, t), True, ports(into, 90)).healthy


def test_unreachable_redis_keeps_a_running_dataplane_healthy(child: int) -> None:
    j = LivenessJudge()
    assert j.judge(T0, beat(child, T0), True, ports()).healthy
    assert j.judge(T0 + 500 * MS, None, False, ports()).healthy
    # Back, but the dataplane has not reconnected yet: a stale beat within the grace is Redis's fault.
    assert j.judge(T0 + 1500 * MS, beat(child, T0), True, ports()).healthy
    # Long after the grace, a stale heartbeat is the dataplane's.
    assert not j.judge(T0 + 5000 * MS, beat(child, T0), True, ports()).healthy


def test_unreachable_redis_and_a_dead_dataplane_is_dead() -> None:
    p = subprocess.Popen(["sleep", "30"])
    j = LivenessJudge()
    assert j.judge(T0, beat(p.pid, T0), True, ports()).healthy
    p.kill()
    p.wait()
    v = j.judge(T0 + 100 * MS, None, False, ports())
    assert not v.healthy and "is gone" in v.reason


def test_without_the_pid_check_a_redis_read_failing_is_no_verdict_until_the_last_heartbeat_read_is_stale() -> None:
    # Without the pid check (dataplane in another pid namespace) one MGET that timed out (0.25 s: a loaded host,
    # an fsync) was "Redis unreachable and no dataplane process known": bypass at once, steered again three
    # polls later, a flow swap each way for a dataplane whose last heartbeat was 100 ms old.
    j = LivenessJudge(stale_ms=600, check_pid=False)
    assert j.judge(T0, beat(12345, T0), True, ports()).healthy
    assert j.judge(T0 + 100 * MS, None, False, ports()).healthy
    assert j.judge(T0 + 500 * MS, None, False, ports()).healthy
    v = j.judge(T0 + 700 * MS, None, False, ports())
    assert not v.healthy and "Redis unreachable" in v.reason
    # A failing Redis does not hide a port that went down or a stall.
    assert not LivenessJudge(check_pid=False).judge(T0, None, False, ports()).healthy
    j = LivenessJudge(stale_ms=600, check_pid=False)
    assert j.judge(T0, beat(12345, T0), True, ports()).healthy
    assert not j.judge(T0 + 100 * MS, None, False, ports(down=("fb-up",))).healthy


def test_no_dataplane_ever_seen_and_no_redis_is_dead() -> None:
    v = LivenessJudge().judge(T0, None, False, ports())
    assert not v.healthy and "no dataplane process known" in v.reason


@pytest.mark.parametrize("raw, message", [
    (b"not json", "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (json.dumps({"pid": 1}).encode(), "ts_ns must be a positive integer"),
    (json.dumps({"ts_ns": "1", "pid": 1}).encode(), "ts_ns must be a positive integer"),
    (json.dumps({"ts_ns": 5, "pid": -3}).encode(), "pid must be a positive integer"),
])
def test_malformed_heartbeat_is_refused_with_the_reason(raw: bytes, message: str) -> None:
    with pytest.raises(HeartbeatInvalid, match=message):
        parse_heartbeat(raw)


def test_heartbeat_of_redis_md_is_parsed() -> None:
    hb = parse_heartbeat(json.dumps({"ts_ns": T0, "pid": 42, "started_ns": T0 - 1, "version": 7,
                                     "backend": "nfqueue"}))
    assert hb == Heartbeat(ts_ns=T0, pid=42, version=7, backend="nfqueue", started_ns=T0 - 1)
    assert hb.instance == (42, T0 - 1)


def test_a_heartbeat_without_started_ns_is_told_apart_by_its_pid_alone() -> None:
    hb = parse_heartbeat(json.dumps({"ts_ns": T0, "pid": 42, "version": 7, "backend": "nfqueue"}))
    assert hb.started_ns is None and hb.instance == (42, None)


# ------------------------------------------------------------ the manager following the topology

LAB = Path(__file__).resolve().parents[3] / "configs" / "lab-2ap-2sta.yaml"


class FakeOvs:
    """The bridge's ports and table; like ovs-ofctl, a table naming a port not on the bridge is refused."""

    bridge = "adw0"

    def __init__(self) -> None:
        self.port_set: set[str] = set()
        self.requests: dict[str, int] = {}  # ofport_request of each port on the bridge
        self.removed: list[str] = []
        self.flows: list[str] = []
        self.unreachable: str | None = None  # why ovs-vswitchd does not answer on the management socket

    def vswitchd_pid(self) -> int:
        return 1

    def check_vswitchd(self) -> None:
        if self.unreachable is not None:
            raise OvsError(self.unreachable)

    def ensure_bridge(self) -> None:
        pass

    def ports(self) -> list[str]:
        return sorted(self.port_set)

    def add_port(self, name: str, ofport: int) -> None:
        self.port_set.add(name)
        self.requests[name] = ofport

    def ofport_requests(self) -> dict[str, int]:
        return dict(self.requests)

    def del_port(self, name: str) -> None:
        if name in self.port_set:
            self.removed.append(name)
        self.port_set.discard(name)
        self.requests.pop(name, None)

    def set_no_flood(self, name: str) -> None:
        pass

    def replace_flows(self, flows: list[str]) -> None:
        for flow in flows:
            for name in re.findall(r"(?:in_port=|output:)([A-Za-z0-9_.-]+)", flow):
                if name not in self.port_set:
                    raise OvsError(f"no port {name} on the bridge")
        self.flows = list(flows)


class FakeRedis:
    def __init__(self) -> None:
        self.kv: dict[str, Any] = {}
        self.h: dict[str, dict[str, bytes]] = {}

    def mget(self, ks: list[str]) -> list[Any]:
        return [self.kv.get(k) for k in ks]

    def hget(self, k: str, f: str) -> bytes | None:
        return self.h.get(k, {}).get(f)

    def set(self, k: str, v: Any, px: int | None = None) -> None:
        self.kv[k] = v


class FakeHost:
    """The network namespace: up0, ap1, ap2, and the veths the manager creates (deletions recorded)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, pid: int) -> None:
        self.ifs = {"up0", "ap1", "ap2"}
        self.deleted: list[str] = []
        self.redis = FakeRedis()
        self.ovs = FakeOvs()
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.pid = pid
        self.started_ns: int | None = None  # the dataplane's start time; None: left out, as by an older dataplane
        monkeypatch.setattr(links, "ensure_link", lambda lk: self.ifs.update({lk.fabric_if, lk.dp_if}))
        monkeypatch.setattr(links, "delete_link", self._delete)
        monkeypatch.setattr(links, "exists", lambda name: name in self.ifs)
        monkeypatch.setattr(links, "disable_offloads", lambda name: None)
        monkeypatch.setattr(links, "make_layer2_only", lambda name: None)
        monkeypatch.setattr(manager_mod, "sample_ports", lambda ifs: PortSample(True, (), 0, 0))

    def _delete(self, lk: links.DpLink) -> None:
        self.deleted.append(lk.fabric_if)
        self.ifs -= {lk.fabric_if, lk.dp_if}

    def beat(self, m: FabricManager, version: int | None = None) -> None:
        """A heartbeat; `version` (what the dataplane runs) is left out unless given, as by an older dataplane."""
        doc: dict[str, Any] = {"ts_ns": time.time_ns(), "pid": self.pid, "backend": "dpdk"}
        if self.started_ns is not None:
            doc["started_ns"] = self.started_ns
        if version is not None:
            doc["version"] = version
        self.redis.kv[m.key("heartbeat")] = json.dumps(doc).encode()

    def steered_manager(self) -> FabricManager:
        m = FabricManager(self.ovs, load(LAB), "up0", self.redis, LivenessJudge(),  # type: ignore[arg-type]
                          log=lambda event, **kw: self.events.append((event, kw)))
        self.beat(m)
        m.setup()
        assert m.mode == "steered"
        return m

    def activate(self, m: FabricManager, n: int, doc: dict[str, Any]) -> None:
        self.redis.h[keys.version(n)] = {"doc": json.dumps(doc).encode()}
        self.redis.kv[m.key("active")] = str(n).encode()
        self.beat(m)
        m.poll()


@pytest.fixture
def host(monkeypatch: pytest.MonkeyPatch, child: int) -> FakeHost:
    return FakeHost(monkeypatch, child)


def without_ap1(doc: dict[str, Any]) -> dict[str, Any]:
    doc["topology"]["aps"] = [a for a in doc["topology"]["aps"] if a["id"] != "ap1"]
    doc["topology"]["stas"] = [s for s in doc["topology"]["stas"] if s["ap"] != "ap1"]
    doc["topology"]["conflicts"] = []
    doc["slice_map"]["slices"] = [s for s in doc["slice_map"]["slices"]
                                  if not any(p.startswith("ap1/") for p in s["pairs"])]
    return doc


def reordered(doc: dict[str, Any]) -> dict[str, Any]:
    doc["topology"]["aps"].reverse()
    return doc


@pytest.mark.parametrize("change", [without_ap1, reordered])
def test_an_ap_that_stays_keeps_its_veths_and_port_number_when_others_go_or_move(host: FakeHost, change) -> None:
    # Before, each link's port number came from the AP's position and a link was compared with it: ap2's
    # fb-ap2/dp-ap2 were deleted and recreated, and the dataplane's socket stayed bound to the deleted one.
    m = host.steered_manager()
    ap2 = m.plan.dp_aps["ap2"]
    host.activate(m, 2, change(load(LAB).model_dump(mode="json")))
    assert m.version_seen == 2 and not [e for e in host.events if e[0].startswith("topology_")]
    assert "fb-ap2" not in host.deleted and "fb-ap2" not in host.ovs.removed
    assert m.plan.dp_aps["ap2"] == ap2
    assert host.deleted == (["fb-ap1"] if change is without_ap1 else [])
    assert "priority=200,in_port=fb-ap2,actions=output:ap2" in host.ovs.flows
    assert m.mode == "steered"


def with_ap3(doc: dict[str, Any]) -> dict[str, Any]:
    doc["topology"]["aps"].append(dict(doc["topology"]["aps"][1], id="ap3", port="ap3", name="AP3"))
    return doc


def test_a_version_whose_ap_port_is_missing_on_the_host_is_refused_whole_and_fail_open_still_works(
        host: FakeHost) -> None:
    # Before, the missing port raised after the new configuration had been swapped in and the old links
    # deleted: every later table named ports not on the bridge and failed, the switch to bypass included.
    m = host.steered_manager()
    cfg, plan, flows, ifs = m.cfg, m.plan, host.ovs.flows, set(host.ifs)
    host.activate(m, 2, with_ap3(load(LAB).model_dump(mode="json")))
    refused = [kw for event, kw in host.events if event == "topology_refused"]
    assert refused == [{"version": 2, "error": "topology.aps.2.port: port 'ap3' does not exist in this network "
                                               "namespace"}]
    assert m.cfg is cfg and m.plan is plan and host.ovs.flows == flows and host.ifs == ifs
    assert not host.deleted and not host.ovs.removed
    del host.redis.kv[m.key("heartbeat")]  # the dataplane dies
    m.poll()
    assert m.mode == "bypass"
    assert "priority=100,in_port=up0,vlan_tci=0x0000/0x1000,dl_dst=02:ad:00:00:01:01,actions=output:ap1" \
        in host.ovs.flows


def test_a_refused_version_is_reported_beside_the_version_the_flows_still_follow_and_not_retried(
        host: FakeHost) -> None:
    # Before, the refused version was recorded as the one followed before the checks ran: the status said
    # version 3 while the flows kept following version 2's topology.
    m = host.steered_manager()
    m.opts.status_every_s = 0  # a status at every poll
    host.activate(m, 2, reordered(load(LAB).model_dump(mode="json")))
    flows = host.ovs.flows
    host.activate(m, 3, with_ap3(load(LAB).model_dump(mode="json")))
    status = FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")])
    assert status.version == 2 and host.ovs.flows == flows
    assert status.refused == Rejection(
        version=3, error="topology.aps.2.port: port 'ap3' does not exist in this network namespace")
    host.beat(m)
    m.poll()  # the same refused version again: not looked up and refused once more
    assert [event for event, _ in host.events if event.startswith("topology_")] == ["topology_refused"]
    assert FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")]).version == 2
    host.activate(m, 4, without_ap1(load(LAB).model_dump(mode="json")))
    status = FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")])
    assert status.version == 4 and status.refused is None


def test_a_version_refused_for_a_missing_port_is_followed_once_the_port_exists_and_one_for_its_document_never(
        host: FakeHost) -> None:
    # Before, a version refused because ap3 was not there yet stayed refused until `active` named another.
    m = host.steered_manager()
    host.activate(m, 2, with_ap3(load(LAB).model_dump(mode="json")))
    assert m.version is None and m.refused is not None
    host.ifs.add("ap3")
    host.beat(m)
    m.poll()
    assert m.version == 2 and m.refused is None and "priority=200,in_port=fb-ap3,actions=output:ap3" in host.ovs.flows
    other = load(LAB).model_dump(mode="json")
    other["appliance_id"] = "elsewhere"
    host.activate(m, 3, other)
    for _ in range(3):
        host.beat(m)
        m.poll()
    assert [kw["version"] for event, kw in host.events if event == "topology_refused"] == [2, 3]
    assert m.version == 2


def test_active_0_keeps_the_topology_in_force_and_is_no_refusal(host: FakeHost) -> None:
    # active 0: the dataplane runs its --config file after an operator's SIGHUP (REDIS.md). There is no version 0:
    # looking it up logged topology_refused ("adwiser:version:0 has no doc") and the status named version 0.
    m = host.steered_manager()
    host.activate(m, 2, without_ap1(load(LAB).model_dump(mode="json")))
    flows = host.ovs.flows
    host.redis.kv[m.key("active")] = b"0"
    host.beat(m)
    m.poll()
    assert not [e for e in host.events if e[0].startswith("topology_")]
    assert m.version_seen == 2 and host.ovs.flows == flows and m.mode == "steered"


def test_while_the_dataplane_runs_its_config_file_the_status_flags_the_topology_as_possibly_stale(
        host: FakeHost) -> None:
    # The flows keep version 2's topology while the dataplane runs a file the manager cannot see; the status
    # went on naming version 2 as if the flows matched what the dataplane forwards.
    m = host.steered_manager()
    host.activate(m, 2, without_ap1(load(LAB).model_dump(mode="json")))
    assert json.loads(host.redis.kv[m.key("fabric")])["topology_possibly_stale"] is False
    host.redis.kv[m.key("active")] = b"0"
    host.beat(m)
    m.poll()
    status = json.loads(host.redis.kv[m.key("fabric")])
    assert status["topology_possibly_stale"] is True and status["version"] == 2 and status["mode"] == "steered"
    assert ("dataplane_file", {"flows_follow": 2}) in host.events
    host.beat(m)
    m.poll()
    assert [e for e, _ in host.events].count("dataplane_file") == 1
    host.redis.kv[m.key("active")] = b"2"   # the operator publishes version 2 again
    host.beat(m)
    m.poll()
    assert json.loads(host.redis.kv[m.key("fabric")])["topology_possibly_stale"] is False
    assert ("dataplane_file_ended", {"active": 2}) in host.events


def test_an_ovs_failure_while_following_a_topology_keeps_the_old_one_and_is_retried(
        host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    m = host.steered_manager()
    cfg, flows = m.cfg, host.ovs.flows
    host.ifs.add("ap3")
    add_port = host.ovs.add_port

    def busy(name: str, ofport: int) -> None:
        raise OvsError("ovs-vsctl timed out")

    monkeypatch.setattr(host.ovs, "add_port", busy)
    host.activate(m, 2, with_ap3(load(LAB).model_dump(mode="json")))
    assert [event for event, _ in host.events if event.startswith("topology_")] == ["topology_failed"]
    assert m.cfg is cfg and host.ovs.flows == flows and m.mode == "steered"
    monkeypatch.setattr(host.ovs, "add_port", add_port)
    host.beat(m)
    m.poll()
    assert m.version_seen == 2 and [a.id for a in m.cfg.topology.aps] == ["ap1", "ap2", "ap3"]
    assert "priority=200,in_port=fb-ap3,actions=output:ap3" in host.ovs.flows
    assert not host.deleted and not host.ovs.removed


def test_a_host_port_gone_when_vswitchd_restarts_is_logged_and_fail_open_still_works(
        host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, the port check's PlanError escaped poll(), which caught only OVS and link errors: the watchdog died.
    m = host.steered_manager()
    host.ifs.discard("ap2")
    monkeypatch.setattr(host.ovs, "vswitchd_pid", lambda: 2)
    host.beat(m)
    m.poll()
    missing = [kw["error"] for event, kw in host.events if event == "port_missing"]
    assert missing and missing[0].startswith("topology.aps.1.port: port 'ap2' does not exist")
    del host.redis.kv[m.key("heartbeat")]  # the dataplane dies
    m.poll()
    assert m.mode == "bypass"


def test_a_restarted_manager_takes_up_the_active_topology_without_bypassing_or_dropping_its_ports(
        host: FakeHost) -> None:
    # Before, setup() first synced the bridge to the file given at start, removing the port of an AP only the
    # active version has (its traffic dropped), then followed the version with the table of its initial mode,
    # bypass, before installing the steered one: every restart took managed traffic off a healthy dataplane.
    host.ifs.add("ap3")
    m = host.steered_manager()
    host.activate(m, 2, with_ap3(load(LAB).model_dump(mode="json")))
    assert "priority=200,in_port=fb-ap3,actions=output:ap3" in host.ovs.flows
    tables: list[list[str]] = []
    replace = host.ovs.replace_flows

    def recording(flows: list[str]) -> None:
        replace(flows)
        tables.append(list(flows))

    host.ovs.replace_flows = recording  # type: ignore[method-assign]
    steered = host.ovs.flows
    host.ovs.removed.clear()
    host.steered_manager()  # the manager restarts; the dataplane runs version 2 and beats
    assert tables == [steered]
    assert not host.ovs.removed and not host.deleted


def test_a_restarted_manager_numbers_new_links_against_the_bridge_not_the_file_it_was_started_with(
        host: FakeHost) -> None:
    # Before, a restarted manager numbered the active version's links from the file's plan: ap3's port kept
    # 1001 on the bridge while the plan said 1003, so a later AP was given 1001 too. OVS gave that port another
    # number, the flows were installed with it, and when ap3 went vswitchd renumbered the port to 1001: its
    # flows pointed at a port that no longer existed until the next resync (seen with a real OVS).
    for name in ("ap3", "ap4"):
        host.ifs.add(name)
    m = host.steered_manager()
    host.activate(m, 2, with_aps(load(LAB).model_dump(mode="json"), ["ap2"]))
    host.activate(m, 3, with_aps(load(LAB).model_dump(mode="json"), ["ap2", "ap3"]))
    m = host.steered_manager()  # the manager restarts
    assert m.plan.ofport_requests() == {n: host.ovs.requests[n] for n in m.plan.ofport_requests()}
    host.activate(m, 4, with_aps(load(LAB).model_dump(mode="json"), ["ap2", "ap3", "ap4"]))
    assert m.version == 4
    assert len(set(host.ovs.requests.values())) == len(host.ovs.requests), host.ovs.requests


def with_aps(doc: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """Only the APs `ids` (each on the port of its name), one STA each."""
    ap, sta = doc["topology"]["aps"][1], doc["topology"]["stas"][1]
    doc["topology"]["aps"] = [dict(ap, id=a, port=a, name=a) for a in ids]
    doc["topology"]["stas"] = [dict(sta, id=f"s{a}", mac=f"02:ad:00:00:0{i + 1}:01", ips=[f"198.18.0.{20 + i}"],
                                    ap=a) for i, a in enumerate(ids)]
    doc["topology"]["conflicts"] = []
    doc["slice_map"]["slices"] = [{"duration_ms": 20, "pairs": [f"{a}/s{a}"]} for a in ids]
    return doc


def test_an_ap_port_added_after_another_went_takes_a_number_no_port_on_the_bridge_holds(host: FakeHost) -> None:
    # Before, an AP-facing port's number was 10 + its position in the list: with ap1 gone ap2 was planned at 10
    # but kept 11 on the bridge, and ap3, added next, asked for 11 too. OVS gave ap3 another number, the flows
    # were installed with it, and once ap2 went vswitchd renumbered ap3 to 11: until the next resync its STAs'
    # frames matched no managed flow (in_port was the old number) and crossed by MAC learning, past the
    # dataplane, and the dataplane's frames for ap3 went to a port that no longer existed (seen with a real OVS).
    host.ifs.add("ap3")
    m = host.steered_manager()
    host.activate(m, 2, with_aps(load(LAB).model_dump(mode="json"), ["ap2"]))
    host.activate(m, 3, with_aps(load(LAB).model_dump(mode="json"), ["ap2", "ap3"]))
    assert m.version == 3
    assert len(set(host.ovs.requests.values())) == len(host.ovs.requests), host.ovs.requests
    assert m.plan.ofport_requests() == host.ovs.requests


def test_a_table_reinstalled_in_the_same_mode_keeps_the_reason_the_status_gives_for_that_mode(
        host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    # The status's reason says why the fabric is in its mode. A reinstall that switched nothing (ovs-vswitchd
    # restarted, a new topology) replaced it: a fabric in bypass for a dead dataplane said "ovs-vswitchd
    # restarted (pid 2)", then "topology of version 2", as if those had taken the traffic off the dataplane.
    host.ifs.add("ap3")
    m = host.steered_manager()
    m.opts.status_every_s = 0  # a status at every poll
    del host.redis.kv[m.key("heartbeat")]  # the dataplane dies
    m.poll()
    assert m.mode == "bypass" and m.reason == "no heartbeat in Redis"
    monkeypatch.setattr(host.ovs, "vswitchd_pid", lambda: 2)
    m.poll()
    assert ("flows", {"mode": "bypass", "switch": False, "reason": "ovs-vswitchd restarted (pid 2)", "version": None,
                      "replace_ms": pytest.approx(0, abs=1e3)}) in host.events
    assert m.reason == "no heartbeat in Redis"
    host.redis.h[keys.version(2)] = {"doc": json.dumps(with_ap3(load(LAB).model_dump(mode="json"))).encode()}
    host.redis.kv[m.key("active")] = b"2"
    m.poll()
    assert m.version == 2 and "priority=200,in_port=fb-ap3,actions=output:ap3" in host.ovs.flows
    status = FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")])
    assert status.mode == "bypass" and status.reason == "no heartbeat in Redis" and status.switches == 1


def test_the_first_table_of_a_manager_is_no_mode_switch(host: FakeHost) -> None:
    # The manager starts with no mode of its own ("bypass" as a placeholder): a start on a healthy dataplane
    # logged its first table as a switch and the status counted it, so the dashboard said "1 mode switch" of
    # a fabric that never left steered mode (nor ever had another table from this manager).
    m = host.steered_manager()
    assert [kw["switch"] for event, kw in host.events if event == "flows"] == [False]
    assert json.loads(host.redis.kv[m.key("fabric")])["switches"] == 0
    del host.redis.kv[m.key("heartbeat")]  # the dataplane dies
    m.poll()
    assert m.mode == "bypass" and m.switches == 1


def test_a_restarted_vswitchd_gets_the_dataplane_ports_no_flood_back_while_an_ap_port_is_missing(
        host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    # A restarted ovs-vswitchd forgets the no-flood bits (they are OpenFlow port state, not in the database).
    # The host-port check came first and refused while ap2 was missing, so they were never set again: NORMAL
    # flooded broadcasts into the dataplane's ports (which the stall check counts as frames into it), and the
    # table was reinstalled with two more log lines at every poll (100 ms) for as long as ap2 was away.
    m = host.steered_manager()
    no_flood: list[str] = []
    monkeypatch.setattr(host.ovs, "set_no_flood", no_flood.append)
    host.ifs.discard("ap2")
    monkeypatch.setattr(host.ovs, "vswitchd_pid", lambda: 2)
    for _ in range(3):
        host.beat(m)
        m.poll()
    assert set(no_flood) == {"fb-up", "fb-ap1", "fb-ap2"}
    assert [event for event, _ in host.events].count("vswitchd_restarted") == 1
    assert [event for event, _ in host.events].count("port_missing") == 1
    assert m.mode == "steered"


def test_a_restarted_dataplane_is_steered_back_only_once_it_runs_the_version_the_flows_follow(host: FakeHost) -> None:
    # A restarted adwiser-dp runs its --config file (heartbeat version 0) until it has fetched `desired` and
    # swapped it in at a frame boundary, while `active` still names the version its predecessor ran. The manager
    # steered back after three healthy polls: version 2's flows sent its STAs into a dataplane that did not know
    # them yet (and that never would, had it refused version 2).
    m = host.steered_manager()
    m.opts.status_every_s = 0  # a status at every poll
    host.activate(m, 2, without_ap1(load(LAB).model_dump(mode="json")))
    del host.redis.kv[m.key("heartbeat")]  # the dataplane dies
    m.poll()
    assert m.mode == "bypass"
    for _ in range(5):  # restarted, healthy, still on its file
        host.beat(m, version=0)
        m.poll()
    assert m.mode == "bypass"
    status = FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")])
    assert status.reason == f"dataplane healthy (pid {host.pid}) but runs version 0, not active version 2"
    assert [kw for event, kw in host.events if event == "steer_back_waits"] == [
        {"dataplane_version": 0, "active": 2}]
    del host.redis.kv[m.key("heartbeat")]  # it dies again: the status no longer calls it healthy
    m.poll()
    assert FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")]).reason == "no heartbeat in Redis"
    for _ in range(3):
        host.beat(m, version=2)
        m.poll()
    assert m.mode == "steered" and m.reason == f"dataplane healthy (pid {host.pid})"


def test_a_manager_started_beside_a_dataplane_still_on_its_file_starts_in_bypass(host: FakeHost) -> None:
    # The same wait at start: a manager restarted while the dataplane is itself restarting installed the steered
    # table of the active version for a dataplane running its --config file.
    host.redis.h[keys.version(2)] = {"doc": json.dumps(without_ap1(load(LAB).model_dump(mode="json"))).encode()}
    host.redis.kv[keys.appliance("lab", "active")] = b"2"
    m = FabricManager(host.ovs, load(LAB), "up0", host.redis, LivenessJudge(),  # type: ignore[arg-type]
                      log=lambda event, **kw: host.events.append((event, kw)))
    host.beat(m, version=0)
    m.setup()
    assert m.version == 2 and m.mode == "bypass"
    for _ in range(3):
        host.beat(m, version=2)
        m.poll()
    assert m.mode == "steered"


def vswitchd_down(host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    """ovs-vswitchd killed: its pid file left behind, its management socket gone."""
    def refused(flows: list[str]) -> None:
        raise OvsError("ovs-ofctl: adw0.mgmt: failed to connect to socket (Connection refused)")

    monkeypatch.setattr(host.ovs, "replace_flows", refused)
    host.ovs.unreachable = "ovs-vswitchd unreachable on adw0.mgmt: Connection refused"


def test_a_switch_ovs_refuses_is_in_the_status_and_retried(host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, the OvsError of the switch to bypass escaped poll() before the status was written: after 3 s the
    # API said `fabric: null`, as if no manager ran, while the manager was alive and could not program OVS.
    m = host.steered_manager()
    m.opts.status_every_s = 0  # a status at every poll
    replace = host.ovs.replace_flows
    vswitchd_down(host, monkeypatch)
    del host.redis.kv[m.key("heartbeat")]  # the dataplane dies
    m.poll()
    status = FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")])
    assert status.mode == "steered"  # the table last installed; the switch did not happen
    assert status.ovs_error is not None and status.ovs_error.since_ns is not None
    assert status.ovs_error.error.startswith("switch to bypass (no heartbeat in Redis) failed: ovs-ofctl")
    since = status.ovs_error.since_ns
    m.poll()
    assert FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")]).ovs_error.since_ns == since
    monkeypatch.setattr(host.ovs, "replace_flows", replace)  # vswitchd answers again
    host.ovs.unreachable = None
    m.poll()
    status = FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")])
    assert status.mode == "bypass" and status.reason == "no heartbeat in Redis" and status.ovs_error is None
    assert ("ovs_available", {}) in host.events


def test_an_ovs_that_cannot_be_programmed_shows_in_the_status_though_nothing_switches(
        host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, a failing rewrite of the table was only logged: the status went on saying `steered` with the reason
    # of the last switch while OVS took no flows at all.
    m = host.steered_manager()
    m.opts.status_every_s = 0
    vswitchd_down(host, monkeypatch)
    m._resync_due_ns = 0  # the periodic rewrite of the table is due
    host.beat(m)
    m.poll()
    status = FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")])
    assert status.mode == "steered" and status.ovs_error is not None
    assert status.ovs_error.error.startswith("flow table rewrite failed: ovs-ofctl")


def test_a_dead_vswitchd_shows_in_the_status_at_the_next_poll_though_nothing_is_written(
        host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before, ovs-vswitchd dying was seen only by the next write to OVS: with the dataplane healthy and the
    # periodic rewrite 5 s away, the status said `ovs_error` null for up to 5 s while OVS was gone.
    m = host.steered_manager()
    m.opts.status_every_s = 0
    replace = host.ovs.replace_flows
    vswitchd_down(host, monkeypatch)
    host.beat(m)
    m.poll()
    status = FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")])
    assert status.mode == "steered" and status.ovs_error is not None
    assert status.ovs_error.error == "ovs-vswitchd unreachable on adw0.mgmt: Connection refused"
    since = status.ovs_error.since_ns
    for _ in range(3):  # one line when it starts, not one per poll
        host.beat(m)
        m.poll()
    assert [kw for event, kw in host.events if event == "ovs_unavailable"] == [
        {"what": "ovs-vswitchd check", "error": "ovs-vswitchd unreachable on adw0.mgmt: Connection refused"}]
    assert FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")]).ovs_error.since_ns == since
    monkeypatch.setattr(host.ovs, "replace_flows", replace)  # vswitchd answers again (same pid: not restarted)
    host.ovs.unreachable = None
    host.beat(m)
    m.poll()
    assert FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")]).ovs_error is None
    assert ("ovs_available", {}) in host.events


def test_a_dataplane_restarted_between_two_polls_while_steered_is_bypassed_until_it_runs_the_active_version(
        host: FakeHost) -> None:
    # Before, only the way back from bypass waited for the version: a dataplane that died and came back between
    # two polls (a new pid, healthy at once) was never seen unhealthy, so the flows stayed steered and sent
    # version 2's STAs into a new instance still running its --config file (version 0).
    m = host.steered_manager()
    m.opts.status_every_s = 0
    host.activate(m, 2, without_ap1(load(LAB).model_dump(mode="json")))
    host.beat(m, version=2)
    m.poll()
    assert m.mode == "steered"
    successor = subprocess.Popen(["sleep", "30"])
    try:
        predecessor, host.pid = host.pid, successor.pid
        host.beat(m, version=0)  # the new instance's first beat, on its file
        m.poll()
        assert m.mode == "bypass"
        status = FabricStatus.model_validate_json(host.redis.kv[m.key("fabric")])
        assert status.reason == (f"dataplane restarted (pid {successor.pid}, was {predecessor}) and runs version 0, "
                                 "not active version 2")
        for _ in range(3):
            host.beat(m, version=0)
            m.poll()
        assert m.mode == "bypass"
        host.beat(m, version=2)  # it has swapped in the active version
        m.poll()
        assert m.mode == "steered" and m.reason == f"dataplane healthy (pid {successor.pid})"
    finally:
        successor.kill()
        successor.wait()


def test_a_dataplane_restarted_between_two_polls_already_on_the_active_version_stays_steered(host: FakeHost) -> None:
    m = host.steered_manager()
    host.activate(m, 2, without_ap1(load(LAB).model_dump(mode="json")))
    successor = subprocess.Popen(["sleep", "30"])
    try:
        host.pid = successor.pid
        for _ in range(2):
            host.beat(m, version=2)
            m.poll()
        assert m.mode == "steered" and m.switches == 0
    finally:
        successor.kill()
        successor.wait()


def test_a_dataplane_restarted_between_two_polls_with_its_predecessors_pid_is_bypassed_until_it_runs_the_active_version(
        host: FakeHost) -> None:
    # In a container or pid namespace the dataplane is often pid 1, or another small number, at every start. The
    # manager told a restarted dataplane by its new pid only: one restarted between two polls with the same pid
    # was taken for its predecessor and kept version 2's flows while it ran its --config file (version 0).
    host.started_ns = time.time_ns() - 60 * 1_000_000_000
    m = host.steered_manager()
    host.activate(m, 2, without_ap1(load(LAB).model_dump(mode="json")))
    host.beat(m, version=2)
    m.poll()
    assert m.mode == "steered"
    host.started_ns = time.time_ns()  # the same pid, a new instance on its file
    host.beat(m, version=0)
    m.poll()
    assert m.mode == "bypass", m.reason
    assert m.reason == f"dataplane restarted (pid {host.pid}, was {host.pid}) and runs version 0, not active version 2"
    for _ in range(2):  # it has swapped in the active version: steered back after its healthy polls
        host.beat(m, version=2)
        m.poll()
    assert m.mode == "steered"


def test_a_dataplane_restarted_with_its_predecessors_pid_after_a_stall_is_steered_back_without_the_holddown(
        host: FakeHost, monkeypatch: pytest.MonkeyPatch) -> None:
    # The hold-down after a stall ends early when the dataplane restarted; with the pid alone, a restart that
    # reused the pid (a container's pid 1) kept the traffic in bypass for the whole hold-down.
    host.started_ns = time.time_ns() - 60 * 1_000_000_000
    m = host.steered_manager()
    m.opts.stall_holddown_s = 3600
    m.judge.stall_ns = 0  # the stall is seen at the second poll with frames pending
    sent = {"into": 0}
    monkeypatch.setattr(manager_mod, "sample_ports", lambda ifs: PortSample(True, (), sent["into"], 0))
    for into in (10, 20, 30):
        sent["into"] = into
        host.beat(m)
        m.poll()
    assert m.mode == "bypass" and m.reason.startswith("dataplane stalled")
    host.started_ns = time.time_ns()  # restarted, the same pid
    for _ in range(3):
        host.beat(m)
        m.poll()
    assert m.mode == "steered", m.reason
