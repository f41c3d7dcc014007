"""The namespace topology: idempotent up/down, nothing left behind, the lab's
addresses, per-namespace congestion control, offloads off on the air side."""
from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
import yaml

from runner import processes, topology
from runner.shell import ns_run

CONFIG = Path(__file__).resolve().parents[2] / "configs" / "lab-2ap-2sta.yaml"


def _our_namespaces(prefix: str) -> set[str]:
    return {n for n in topology.existing_namespaces() if n.startswith(prefix)}


def _ping_ok(ns: str, dst: str) -> bool:
    """One reply within 4 s (pinging every 0.2 s: ARP may need a retry after a failure)."""
    return ns_run(ns, ["ping", "-c", "1", "-w", "4", "-i", "0.2", dst], check=False).returncode == 0


def _unreachable(ns: str, dst: str) -> bool:
    return ns_run(ns, ["ping", "-c", "2", "-i", "0.2", "-W", "1", dst], check=False).returncode != 0


def test_up_twice_then_down_twice_leaves_nothing(prefix: str, tmp_path: Path) -> None:
    os.environ["TESTBED_RUN_ROOT"] = str(tmp_path / "run")
    tb = topology.Testbed(prefix)
    try:
        first = topology.up(tb)
        second = topology.up(tb)
        assert first == second
        assert _our_namespaces(prefix) == set(tb.namespaces)
        assert _ping_ok(tb.ns("server"), "198.18.0.11")
        assert _ping_ok(tb.ns("server"), "198.18.0.12")
    finally:
        topology.down(tb)
    assert topology.down(tb) == []
    assert _our_namespaces(prefix) == set()
    assert not tb.run_dir.exists()


def test_failed_up_removes_what_it_made(prefix: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    os.environ["TESTBED_RUN_ROOT"] = str(tmp_path / "run")
    tb = topology.Testbed(prefix)

    def broken_bridge(ns: str, name: str, ports: list[str]) -> None:
        raise topology.CommandError(f"injected failure creating {name} in {ns}")

    monkeypatch.setattr(topology, "_bridge", broken_bridge)
    with pytest.raises(topology.CommandError, match="injected failure"):
        topology.up(tb)
    assert _our_namespaces(prefix) == set()
    assert not tb.run_dir.exists()


def test_down_removes_what_runs_kept_below_the_run_directory(testbed: topology.Testbed) -> None:
    """What a killed `make demo FABRIC=ovs` leaves there: the OVS database and logs (ovs-start.sh), the
    controller's Redis data (AOF) and a unix socket. `down` removed only the directory's plain files, so
    <run root>/<P>/ stayed, with ovs/ and demo-redis/ in it, however often it ran."""
    (testbed.run_dir / "ovs").mkdir()
    (testbed.run_dir / "ovs" / "conf.db").write_text("{}\n")
    (testbed.run_dir / "demo-redis" / "appendonlydir").mkdir(parents=True)
    (testbed.run_dir / "demo-redis" / "appendonlydir" / "appendonly.aof.1.incr.aof").write_text("*1\r\n")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(testbed.run_dir / "demo-redis.sock"))   # a socket file outlives its listener
    topology.down(testbed)
    topology.down(testbed)
    assert not testbed.run_dir.exists()


def test_down_stops_processes_left_in_namespaces(testbed: topology.Testbed) -> None:
    sleeper = processes.start(testbed.run_dir, "sleeper", testbed.ns("sta1"), ["sleep", "300"])
    assert sleeper.running()
    topology.down(testbed)
    sleeper.popen.wait(timeout=5)
    assert not sleeper.running()


def test_stations_have_the_lab_config_addresses(testbed: topology.Testbed) -> None:
    cfg = yaml.safe_load(CONFIG.read_text())
    for sta in cfg["topology"]["stas"]:
        links = json.loads(ns_run(testbed.ns(sta["id"]), ["ip", "-json", "addr", "show", "eth0"]).stdout)
        assert links[0]["address"] == sta["mac"]
        addrs = [a["local"] for a in links[0]["addr_info"] if a["family"] == "inet"]
        assert addrs == sta["ips"]


def test_every_address_is_in_the_benchmarking_range(testbed: topology.Testbed) -> None:
    import ipaddress
    bench = ipaddress.ip_network("198.18.0.0/15")
    for ns in testbed.namespaces:
        for link in json.loads(ns_run(ns, ["ip", "-json", "addr"]).stdout):
            for a in link.get("addr_info", []):
                if a["family"] == "inet" and link["ifname"] != "lo":
                    assert ipaddress.ip_address(a["local"]) in bench, (ns, a)


def test_congestion_control_cubic_by_default_bbr_selectable(testbed: topology.Testbed) -> None:
    key = ["sysctl", "-n", "net.ipv4.tcp_congestion_control"]
    for role in ("server", "sta1", "sta2"):
        assert ns_run(testbed.ns(role), key).stdout.strip() == "cubic"
    topology.set_congestion_control(testbed, "bbr")
    assert ns_run(testbed.ns("server"), key).stdout.strip() == "bbr"
    with pytest.raises(ValueError, match="congestion control 'vegas2'"):
        topology.set_congestion_control(testbed, "vegas2")


def test_segmentation_offloads_are_off_on_the_air_side(testbed: topology.Testbed) -> None:
    for role, dev in (("wlan", "ap1"), ("wlan", "sta1"), ("appl", "ap2"), ("sta2", "eth0")):
        features = ns_run(testbed.ns(role), ["ethtool", "-k", dev]).stdout
        for feat in ("tcp-segmentation-offload", "generic-segmentation-offload",
                     "generic-receive-offload", "tx-checksumming"):
            assert f"{feat}: off" in features, (role, dev, feat)


def test_dpdk_mode_leaves_appliance_ports_unbridged(testbed: topology.Testbed) -> None:
    topology.set_modes(testbed, appl="ports")
    assert ns_run(testbed.ns("appl"), ["ip", "link", "show", "br0"], check=False).returncode != 0
    assert _unreachable(testbed.ns("server"), "198.18.0.11")
    topology.set_modes(testbed, appl="bridge")
    assert _ping_ok(testbed.ns("server"), "198.18.0.11")


def test_stations_reach_the_server_only_through_their_own_ap(testbed: topology.Testbed) -> None:
    # Taking ap1 down on the appliance cuts STA1 off but not STA2.
    ns_run(testbed.ns("appl"), ["ip", "link", "set", "ap1", "down"])
    assert _unreachable(testbed.ns("server"), "198.18.0.11")
    assert _ping_ok(testbed.ns("server"), "198.18.0.12")


def test_prefix_from_environment_is_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TESTBED_PREFIX", "bad prefix!")
    with pytest.raises(ValueError, match="TESTBED_PREFIX"):
        topology.default_prefix()
    monkeypatch.setenv("TESTBED_PREFIX", "ok42")
    assert topology.default_prefix() == "ok42"


def test_router_mode_forwards_every_packet_through_iptables(testbed: topology.Testbed) -> None:
    appl = testbed.ns("appl")
    topology.set_modes(testbed, appl="router")
    ns_run(appl, ["iptables", "-A", "FORWARD", "-j", "ACCEPT"])
    assert _ping_ok(testbed.ns("server"), "198.18.0.11")
    assert _ping_ok(testbed.ns("sta2"), "198.18.0.1")
    counters = ns_run(appl, ["iptables", "-L", "FORWARD", "-v", "-n", "-x"]).stdout.splitlines()[-1].split()
    assert int(counters[0]) >= 4  # both pings' requests and replies were routed
    # The hosts still see one subnet: the server resolves the STA to the appliance's up0.
    up0_mac = json.loads(ns_run(appl, ["ip", "-json", "link", "show", "up0"]).stdout)[0]["address"]
    neigh = ns_run(testbed.ns("server"), ["ip", "neigh", "show", "198.18.0.11"]).stdout
    assert up0_mac in neigh
    topology.set_modes(testbed, appl="bridge")
    assert ns_run(appl, ["ip", "-4", "addr", "show", "dev", "up0"]).stdout.strip() == ""
    assert ns_run(appl, ["sysctl", "-n", "net.ipv4.ip_forward"]).stdout.strip() == "0"
