"""`make demo` (runner/appliance_demo.py), end to end on a private topology:
redis on a unix socket, the controller (serving a stand-in page instead of
the built dashboard, which `make -C webui build` makes later in `make test`),
adwiser-dp on DPDK following the controller's version over Redis, wlan-emu
and a short downlink run; then everything it started is gone."""
from __future__ import annotations

import json
import os
import re
import socket
from pathlib import Path

import pytest

from runner import appliance_demo, backend, topology, wlan


def test_refuses_a_duration_out_of_range_before_starting_anything(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="DURATION 0"):
        appliance_demo.run(0, 8080, None, out=tmp_path / "out")
    with pytest.raises(ValueError, match="DURATION 4000"):
        appliance_demo.run(4000, 8080, None, out=tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_table_marks_sender_counts_of_an_interrupted_run() -> None:
    doc = {"pairs": [{"pair": "ap1/sta1", "slice_ms": 20.0, "throughput_mbps": 30.0, "sender_count": True,
                      "mean_ampdu": 12.0, "mean_phy_mbps": 120.0, "mean_drain_ms": 15.5},
                     {"pair": "ap2/sta2", "slice_ms": 20.0, "throughput_mbps": 40.0, "sender_count": True,
                      "mean_ampdu": None, "mean_phy_mbps": None, "mean_drain_ms": None}],
           "utility": 7.09, "utility_bound": None, "interrupted": True, "ran_s": 12.0}
    table = appliance_demo.results_table(doc)
    assert "| ap1/sta1 | 20 | 30.0 (sender) | 12.0 | 120.0 | 15.50 |" in table
    assert "| ap2/sta2 | 20 | 40.0 (sender) | – | – | – |" in table
    assert "Run 12 s (interrupted)" in table


@pytest.mark.skipif(not os.access(backend.dp_binary(), os.X_OK) or not wlan.available(),
                    reason="needs dataplane/build/adwiser-dp and testbed/emu/wlan-emu")
@pytest.mark.parametrize("fabric", [False, True], ids=["dataplane-ports", "ovs-fabric"])
def test_demo_runs_the_appliance_from_the_controllers_version_and_removes_everything(
        prefix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], fabric: bool,
        demo_env: tuple[Path, Path]) -> None:
    _, dist = demo_env
    out = tmp_path / "out"
    tb = topology.Testbed(prefix)
    try:
        rc = appliance_demo.run(4.0, 0, None, out=out, webui_dist=dist, fabric=fabric)
    finally:
        topology.down(tb)
        leftovers = sorted(p.name for p in tb.run_dir.rglob("*")) if tb.run_dir.exists() else []
    printed = capsys.readouterr().out
    assert rc == 0, printed

    url = re.search(r"Dashboard: (http://127\.0\.0\.1:(\d+)/)", printed)
    assert url, printed
    assert re.search(r"Log in as admin / \S{12,}", printed)
    doc = json.loads((out / "demo.json").read_text())
    assert [p["pair"] for p in doc["pairs"]] == ["ap1/sta1", "ap2/sta2"]
    for p in doc["pairs"]:
        assert p["throughput_mbps"] > 0 and not p["sender_count"]
        assert p["slice_ms"] == 20.0  # the lab's slice map, as the controller stored it
        assert p["mean_drain_ms"] is not None  # V(k) came back through Redis
        assert p["mean_ampdu"] is not None  # from the emulator's stats
    assert doc["dataplane"], "adwiser-dp wrote its exit statistics"
    # The dataplane ran the controller's version 1, taken from Redis.
    assert json.loads((out / "adwiser-config-v1.json").read_text())["appliance_id"] == "lab"
    frames = [json.loads(ln) for ln in (out / "adwiser-dp.telemetry.jsonl").read_text().splitlines()
              if '"type":"frame"' in ln]
    # Version 0 is the --config file it starts from, until the same document arrives
    # as version 1 from Redis at a frame boundary.
    assert frames and frames[-1]["version"] == 1 and {f["version"] for f in frames} <= {0, 1}

    # Nothing is left: namespaces, the controller's port, redis' socket and data.
    assert not set(tb.namespaces) & topology.existing_namespaces()
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", int(url.group(2)))) != 0, "the controller still listens"
    assert leftovers == [], "the run directory is removed whole"
    if fabric:  # the manager steered traffic through the dataplane, and failed open when it stopped
        modes = [json.loads(ln).get("mode") for ln in (out / "demo-fabric.log").read_text().splitlines()
                 if ln.startswith("{")]
        assert "steered" in modes and modes[-1] == "bypass"
