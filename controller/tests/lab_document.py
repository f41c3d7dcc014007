"""The lab document (configs/lab-2ap-2sta.yaml) under another appliance id, for tests to edit; and the same
with every optional field set, for walks over every field of the schema."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

LAB = Path(__file__).resolve().parents[2] / "configs" / "lab-2ap-2sta.yaml"


def lab_doc(appliance_id: str) -> dict[str, Any]:
    doc = copy.deepcopy(yaml.safe_load(LAB.read_text()))
    doc["appliance_id"] = appliance_id
    return doc


def full_lab() -> dict[str, Any]:
    """The lab document with every optional field present (valid values), so the walk reaches every field."""
    doc = lab_doc("lab")
    ap = doc["topology"]["aps"][0]
    ap.update(vlan=100, ampdu_ceiling_mpdus=48, ampdu_ceiling_us=2000)
    doc["topology"]["stas"][0]["phy_rate_mbps"] = 100
    pol = doc["policies"]
    pol["ts_abr_qd"]["early_handover"] = False
    pol["dynamic_slicing"]["pairs"] = ["ap1/sta1"]
    pol["realtime"].update(udp_ports=[5004], hold_max_fraction=0.5, guard_us=300)
    pol["aggregation_target"].update(
        pairs=["ap1/sta1"], c_beta=0.05, c_init_us=250, packet_bytes=1500, mpdu_overhead_bytes=48, n_max_mpdus=64,
        bottleneck_frames=5, bottleneck_packets=100,
        overrides=[{"pairs": ["ap2/sta2"], "n_target_max": 32, "t_bar_ms": 5}])
    return doc
