"""A version refused for an AP interface missing on the host, on the real lab (OVS netdev, Redis, stand-in
dataplane): taken up once the interface appears; a version refused for its content is not looked at again."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from adwiser_controller import keys
from adwiser_controller.configfile import load
from adwiser_controller.fabric.manager import ManagerOptions
from fabric_lab import APPLIANCE, LAB_CONFIG, Lab, wait_for


# The lab of the fault tests (conftest.py), with the stand-in dataplane alone: what is under test is the manager.
pytestmark = pytest.mark.parametrize("lab", ["stand-in"], indirect=True)


def with_ap3(doc: dict[str, Any]) -> dict[str, Any]:
    doc["topology"]["aps"].append(dict(doc["topology"]["aps"][1], id="ap3", port="ap3", name="AP3"))
    return doc


def activate(lab: Lab, n: int, doc: dict[str, Any]) -> None:
    """What the dataplane's acknowledgement leaves in Redis: the stored version and `active` naming it."""
    lab.r.hset(keys.version(n), "doc", json.dumps(doc))
    lab.r.set(f"adwiser:appliance:{APPLIANCE}:active", n)


def refusals(lab: Lab, n: int) -> int:
    return sum(1 for e in lab.manager_events() if e["event"] == "topology_refused" and e["version"] == n)


def test_a_version_refused_for_a_missing_ap_interface_is_taken_up_once_the_interface_appears(lab: Lab) -> None:
    # Before, the refused version was not looked at again until `active` named another: with ap3 created a
    # moment after the dataplane acknowledged the version, the flows stayed on the start-up topology for good.
    activate(lab, 2, with_ap3(load(LAB_CONFIG).model_dump(mode="json")))
    wait_for(lambda: ((lab.fabric_status() or {}).get("refused") or {}).get("version") == 2, 10,
             "the fabric to refuse version 2 for its missing ap3")
    assert lab.fabric_status()["version"] is None  # type: ignore[index]
    lab.run("app", "ip", "link", "add", "ap3", "type", "veth", "peer", "name", "ap3-sta")
    for ifname in ("ap3", "ap3-sta"):
        lab.run("app", "ip", "link", "set", ifname, "up")
    status = wait_for(lambda: (s := lab.fabric_status()) and s["version"] == 2 and s, 10,
                      "the fabric to follow version 2 once ap3 exists")
    assert status["refused"] is None
    ports = lab.run("app", "ovs-vsctl", f"--db=unix:{lab.ovs_dir}/db.sock", "list-ports", "adw0").stdout.split()
    assert {"ap3", "fb-ap3"} <= set(ports)
    assert "in_port=fb-ap3 actions=output:ap3" in lab.flows().replace('"', "")
    assert refusals(lab, 2) == 1


def test_a_version_refused_for_its_content_is_not_looked_at_again(lab: Lab) -> None:
    doc = load(LAB_CONFIG).model_dump(mode="json")
    doc["appliance_id"] = "elsewhere"
    followed = lab.fabric_status()["version"]  # type: ignore[index]
    activate(lab, 3, doc)
    wait_for(lambda: ((lab.fabric_status() or {}).get("refused") or {}).get("version") == 3, 10,
             "the fabric to refuse version 3, written for another appliance")
    # Past a periodic resync (ManagerOptions.resync_s, 5 s) and 60 polls: the document cannot change, one look.
    time.sleep(ManagerOptions().resync_s + 1)
    assert refusals(lab, 3) == 1
    assert lab.fabric_status()["version"] == followed  # type: ignore[index]
