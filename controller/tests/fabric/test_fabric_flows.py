"""The fabric's port plan and flow tables, as pure functions of the configuration (no root needed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from adwiser_controller.configfile import load, validate_data
from adwiser_controller.fabric.flows import compile_flows
from adwiser_controller.fabric import plan as plan_mod
from adwiser_controller.fabric.plan import PlanError, build_plan

LAB = Path(__file__).resolve().parents[3] / "configs" / "lab-2ap-2sta.yaml"
STA1, STA2 = "02:ad:00:00:01:01", "02:ad:00:00:02:01"


def lab_doc() -> dict:
    return load(LAB).model_dump(mode="json")


def flow_for(flows: list[str], *parts: str) -> str:
    hits = [f for f in flows if all(p in f for p in parts)]
    assert len(hits) == 1, f"expected one flow with {parts}, got {hits}"
    return hits[0]


def actions(flow: str) -> str:
    return flow.split("actions=", 1)[1]


def test_steered_table_sends_sta_frames_into_the_dataplane_both_ways() -> None:
    cfg = load(LAB)
    flows = compile_flows(cfg, build_plan(cfg, "up0", "adw0"), "steered")
    assert actions(flow_for(flows, "in_port=up0", f"dl_dst={STA1}")) == "output:fb-up"
    assert actions(flow_for(flows, "in_port=ap1", f"dl_src={STA1}")) == "output:fb-ap1"
    assert actions(flow_for(flows, "in_port=ap2", f"dl_src={STA2}")) == "output:fb-ap2"
    assert actions(flow_for(flows, "in_port=fb-ap1")) == "output:ap1"
    assert actions(flow_for(flows, "in_port=fb-up")) == "output:up0"
    assert flows[-1] == "priority=0,actions=NORMAL"


def test_bypass_table_carries_sta_frames_straight_across_and_nothing_into_the_dataplane() -> None:
    cfg = load(LAB)
    flows = compile_flows(cfg, build_plan(cfg, "up0", "adw0"), "bypass")
    assert actions(flow_for(flows, "in_port=up0", f"dl_dst={STA1}")) == "output:ap1"
    assert actions(flow_for(flows, "in_port=up0", f"dl_dst={STA2}")) == "output:ap2"
    assert actions(flow_for(flows, "in_port=ap1", f"dl_src={STA1}")) == "output:up0"
    assert not [f for f in flows if re.search(r"actions=.*output:fb-", f)]


def test_broadcast_from_a_managed_sta_is_left_to_mac_learning() -> None:
    cfg = load(LAB)
    upstream = flow_for(compile_flows(cfg, build_plan(cfg, "up0", "adw0"), "steered"), "in_port=ap1", "dl_src=")
    assert "dl_dst=00:00:00:00:00:00/01:00:00:00:00:00" in upstream


def test_vlan_ap_is_untagged_towards_the_dataplane_and_tagged_back() -> None:
    doc = lab_doc()
    doc["topology"]["aps"][0]["vlan"] = 101
    cfg = validate_data(doc, "vlan")
    plan = build_plan(cfg, "up0", "adw0")
    steered = compile_flows(cfg, plan, "steered")
    assert actions(flow_for(steered, "in_port=up0", "dl_vlan=101", f"dl_dst={STA1}")) == "strip_vlan,output:fb-up"
    assert actions(flow_for(steered, "in_port=ap1", "dl_vlan=101", f"dl_src={STA1}")) == "strip_vlan,output:fb-ap1"
    assert actions(flow_for(steered, "in_port=fb-ap1")) == "mod_vlan_vid:101,output:ap1"
    assert actions(flow_for(steered, "in_port=fb-up", f"dl_src={STA1}")) == "mod_vlan_vid:101,output:up0"
    # The untagged AP keeps matching untagged frames only.
    assert "vlan_tci=0x0000/0x1000" in flow_for(steered, "in_port=up0", f"dl_dst={STA2}")
    bypass = compile_flows(cfg, plan, "bypass")
    assert actions(flow_for(bypass, "in_port=up0", "dl_vlan=101", f"dl_dst={STA1}")) == "output:ap1"


def test_two_aps_on_one_port_get_one_bridge_port_and_a_dataplane_port_each() -> None:
    doc = lab_doc()
    doc["topology"]["aps"][0].update(port="trunk0", vlan=10)
    doc["topology"]["aps"][1].update(port="trunk0", vlan=20)
    plan = build_plan(validate_data(doc, "trunk"), "up0", "adw0")
    assert plan.physical_ports() == ["up0", "trunk0"]
    assert [link.dp_if for link in plan.dp_links()] == ["dp-up", "dp-ap1", "dp-ap2"]
    assert len(set(plan.ofport_requests().values())) == len(plan.ofport_requests())


def test_a_dpdk_port_name_is_refused_naming_the_field() -> None:
    doc = lab_doc()
    doc["topology"]["aps"][1]["port"] = "0000:03:00.1"
    with pytest.raises(PlanError, match=r"topology\.aps\.1\.port: '0000:03:00.1' is not a Linux interface name"):
        build_plan(validate_data(doc, "dpdk"), "up0", "adw0")


def test_an_ap_on_the_uplink_port_is_refused() -> None:
    with pytest.raises(PlanError, match=r"topology\.aps\.0\.port: 'ap1' is the uplink port"):
        build_plan(load(LAB), "ap1", "adw0")


@pytest.mark.parametrize("name", ["local", "ALL", "in_port", "Normal", "none", "7", "010"])
def test_a_port_name_ovs_ofctl_reads_as_a_reserved_port_or_a_number_is_refused_naming_the_field(name: str) -> None:
    # ovs-ofctl reads a port name in a flow as its reserved port (LOCAL, ALL, IN_PORT, ..., any case) or a port
    # number before it looks the name up on the bridge (checked with `ovs-ofctl parse-flow`): an AP port named
    # "all" or "7" was planned, and its flows sent the AP's frames to every port or to the port numbered 7.
    doc = lab_doc()
    doc["topology"]["aps"][1]["port"] = name
    with pytest.raises(PlanError, match=rf"topology\.aps\.1\.port: '{name}' is what ovs-ofctl reads as"):
        build_plan(validate_data(doc, "reserved"), "up0", "adw0")
    with pytest.raises(PlanError, match=rf"uplink: '{name}' is what ovs-ofctl reads as"):
        build_plan(load(LAB), name, "adw0")


def renamed_aps(doc: dict, ids: dict[str, str]) -> dict:
    """`doc` with its APs renamed (old id -> new id) everywhere an AP id appears."""
    def pair(p: str) -> str:
        ap, sta = p.split("/")
        return f"{ids.get(ap, ap)}/{sta}"
    for ap in doc["topology"]["aps"]:
        ap["id"] = ids.get(ap["id"], ap["id"])
    for sta in doc["topology"]["stas"]:
        sta["ap"] = ids.get(sta["ap"], sta["ap"])
    doc["topology"]["conflicts"] = [[pair(a), pair(b)] for a, b in doc["topology"]["conflicts"]]
    for sl in doc["slice_map"]["slices"]:
        sl["pairs"] = [pair(p) for p in sl["pairs"]]
    return doc


def test_long_ap_ids_get_hashed_dataplane_port_names_within_linux_limits() -> None:
    doc = renamed_aps(lab_doc(), {"ap1": "building-7-floor-3-ap"})
    plan = build_plan(validate_data(doc, "long"), "up0", "adw0")
    link = plan.dp_aps["building-7-floor-3-ap"]
    assert re.fullmatch(r"fb-_[0-9a-f]{11}", link.fabric_if) and link.dp_if == "dp-" + link.fabric_if[3:]
    assert all(len(n) <= 15 for lk in plan.dp_links() for n in (lk.fabric_if, lk.dp_if))
    # The name depends on the id alone: the same AP second in the list keeps it.
    doc["topology"]["aps"].reverse()
    again = build_plan(validate_data(doc, "long"), "up0", "adw0").dp_aps["building-7-floor-3-ap"]
    assert (again.fabric_if, again.dp_if) == (link.fabric_if, link.dp_if)


def test_a_long_ap_id_and_a_short_one_never_share_a_dataplane_port() -> None:
    # Before, the long id fell back to `a<index>`: 'a0', which is also a valid AP id, so both APs got fb-a0
    # and the table had two priority-200 rules for in_port=fb-a0 (one AP's downlink left by the other's port).
    doc = renamed_aps(lab_doc(), {"ap1": "building-north-ap-1", "ap2": "a0"})
    cfg = validate_data(doc, "long-and-a0")
    plan = build_plan(cfg, "up0", "adw0")
    names = [n for lk in plan.dp_links() for n in (lk.fabric_if, lk.dp_if)]
    assert len(set(names)) == len(names), names
    assert plan.dp_aps["a0"].fabric_if == "fb-a0"
    long_if = plan.dp_aps["building-north-ap-1"].fabric_if
    flows = compile_flows(cfg, plan, "steered")
    assert actions(flow_for(flows, "in_port=fb-a0")) == "output:ap2"
    assert actions(flow_for(flows, f"in_port={long_if}")) == "output:ap1"


def test_dataplane_port_names_that_would_still_collide_are_refused_naming_the_field(monkeypatch) -> None:
    monkeypatch.setattr(plan_mod, "_short_name", lambda ap_id: "same")  # stands for two ids hashing alike
    with pytest.raises(PlanError, match=r"topology\.aps\.1\.id: AP 'ap2' would get dataplane port name 'fb-same', "
                                        r"already the dataplane link of AP 'ap1'"):
        build_plan(load(LAB), "up0", "adw0")


def test_a_physical_port_named_like_a_dataplane_link_is_refused_naming_the_field() -> None:
    doc = lab_doc()
    doc["topology"]["aps"][1]["port"] = "dp-ap1"
    with pytest.raises(PlanError,
                       match=r"topology\.aps\.1\.port: 'dp-ap1' is the name of the dataplane link of AP 'ap1'"):
        build_plan(validate_data(doc, "clash"), "up0", "adw0")
    with pytest.raises(PlanError, match=r"uplink: 'fb-up' is the name of the dataplane's uplink link"):
        build_plan(load(LAB), "fb-up", "adw0")


def test_planned_against_the_bridge_kept_links_keep_their_port_numbers_and_new_ones_take_free_ones() -> None:
    current = build_plan(load(LAB), "up0", "adw0")
    assert [lk.ofport for lk in current.dp_links()] == [1000, 1001, 1002]
    doc = lab_doc()
    ap3 = dict(doc["topology"]["aps"][1], id="ap3", port="ap3")
    doc["topology"]["aps"] = [ap3, doc["topology"]["aps"][1]]  # ap1 gone, ap3 new and first, ap2 second
    doc["topology"]["stas"] = [s for s in doc["topology"]["stas"] if s["ap"] != "ap1"]
    doc["topology"]["conflicts"] = []
    doc["slice_map"]["slices"] = doc["slice_map"]["slices"][1:]
    plan = build_plan(validate_data(doc, "next"), "up0", "adw0", held=current.ofport_requests())
    assert plan.dp_aps["ap2"] == current.dp_aps["ap2"]
    assert plan.dp_aps["ap3"].ofport == 1003  # not ap1's 1001: fb-ap1 still holds it when fb-ap3 is added
    assert len(set(plan.ofport_requests().values())) == len(plan.ofport_requests())
