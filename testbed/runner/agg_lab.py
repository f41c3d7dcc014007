"""One AP with several STAs, for the aggregation-target scenarios (issue 9).

    <P>server eth0 ── up0 <P>appl ap1 ── ap1 <P>wlan sta1 ── eth0 <P>sta1
    198.18.3.1                                       sta2 ── eth0 <P>sta2
                                                     staN ── eth0 <P>staN   198.18.3.11 ...

The 2AP-2STA lab of topology.py has one STA per AP; this is its one-AP
sibling with the same conventions (offloads off, IPv6 off, processes by PID,
everything removed by `down`). The appliance forwards with a Linux bridge
("bridge") or leaves up0/ap1 to adwiser-dp ("ports"); the wlan namespace is
always the emulator's (wlan-emu owns ap1 and the STA ports).
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import processes
from .backend import ACK_MODEL
from .shell import ns_run, run
from .topology import existing_namespaces

SERVER_IP = "198.18.3.1"
SERVER_MAC = "02:ad:03:00:00:01"
AP = "ap1"


STA_STA_RSS_DBM = -65.0  # between any two STAs of a derived air config: well above the -82 dBm CS threshold


def air_config(base: dict[str, Any], ap_sta_rss_dbm: list[float]) -> dict[str, Any]:
    """The air config `base` (one AP with its STAs) with one STA per entry of ap_sta_rss_dbm: the AP and
    STA i hear each other at that RSS (dBm), so the STA's distance sets its MCS; every two STAs hear each
    other at STA_STA_RSS_DBM (one BSS, no hidden terminal). PHY and MAC constants are base's."""
    if not 1 <= len(ap_sta_rss_dbm) <= 7:
        raise ValueError(f"air config: {len(ap_sta_rss_dbm)} STAs; wlan-emu takes one AP and 1..7 STAs")
    doc = json.loads(json.dumps(base))
    n = len(ap_sta_rss_dbm) + 1
    rss: list[list[float | None]] = [[None if i == j else STA_STA_RSS_DBM for j in range(n)] for i in range(n)]
    for i, r in enumerate(ap_sta_rss_dbm, start=1):
        rss[0][i] = rss[i][0] = float(r)
    stas = [f"sta{i}" for i in range(1, n)]
    doc["description"] = (f"{base.get('description', '')} Derived (runner/agg_lab.py air_config): {n - 1} STAs at "
                          f"AP<->STA RSS {', '.join(f'{r:g}' for r in ap_sta_rss_dbm)} dBm, STA<->STA "
                          f"{STA_STA_RSS_DBM:g} dBm.")
    doc["topology"] = {
        "nodes": {"value": [{"name": AP, "role": "ap"}, *({"name": s, "role": "sta", "ap": AP} for s in stas)],
                  "source": "issue 9: one AP, STAs at different MCS"},
        "rss_dbm": {"value": rss, "source": "chosen (not measured): AP<->STA by the scenario, to put the STAs at "
                                            "different MCS; STA<->STA above the CS threshold (no hidden terminal); "
                                            "cell (i,j) = RSS at i from j; order AP1, STA1..n"}}
    return doc


def sta_ip(i: int) -> str:
    return f"198.18.3.{10 + i}"


def sta_mac(i: int) -> str:
    return f"02:ad:03:00:01:{i:02x}"


@dataclass(frozen=True)
class MultiStaLab:
    prefix: str
    n_stas: int

    @property
    def stas(self) -> list[str]:
        return [f"sta{i}" for i in range(1, self.n_stas + 1)]

    def ns(self, role: str) -> str:
        return f"{self.prefix}{role}"

    @property
    def namespaces(self) -> list[str]:
        return [self.ns(r) for r in ("server", "appl", "wlan", *self.stas)]

    @property
    def run_dir(self) -> Path:
        return Path(os.environ.get("TESTBED_RUN_ROOT", "/run/adwiser-testbed")) / self.prefix

    def ip_of(self, sta: str) -> str:
        return sta_ip(int(sta[3:]))

    def links(self) -> list[tuple[str, str, str, str]]:
        return [("server", "eth0", "appl", "up0"), ("appl", AP, "wlan", AP),
                *(("wlan", s, s, "eth0") for s in self.stas)]

    def up(self, cc: str) -> None:
        self.down()
        try:
            self.run_dir.mkdir(parents=True, exist_ok=True)
            for ns in self.namespaces:
                run(["ip", "netns", "add", ns])
                ns_run(ns, ["ip", "link", "set", "lo", "up"])
                ns_run(ns, ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1"])
                ns_run(ns, ["sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1"])
            for role, dev, peer, pdev in self.links():
                run(["ip", "link", "add", "name", dev, "netns", self.ns(role), "type", "veth",
                     "peer", "name", pdev, "netns", self.ns(peer)])
                for r, d in ((role, dev), (peer, pdev)):
                    ns_run(self.ns(r), ["ethtool", "-K", d, "tx", "off", "tso", "off", "gso", "off", "gro", "off"])
                    ns_run(self.ns(r), ["ip", "link", "set", d, "up"])
            ns_run(self.ns("server"), ["ip", "link", "set", "eth0", "address", SERVER_MAC])
            ns_run(self.ns("server"), ["ip", "addr", "add", f"{SERVER_IP}/24", "dev", "eth0"])
            for i, s in enumerate(self.stas, start=1):
                ns_run(self.ns(s), ["ip", "link", "set", "eth0", "address", sta_mac(i)])
                ns_run(self.ns(s), ["ip", "addr", "add", f"{sta_ip(i)}/24", "dev", "eth0"])
            self.set_cc(cc)
            self.set_appl("bridge")
            (self.run_dir / "topology.json").write_text(json.dumps({"namespaces": self.namespaces}) + "\n")
        except BaseException:
            self.down()
            raise

    def set_cc(self, cc: str) -> None:
        for role in ("server", *self.stas):
            ns_run(self.ns(role), ["sysctl", "-qw", f"net.ipv4.tcp_congestion_control={cc}"])

    def set_appl(self, mode: str) -> None:
        appl = self.ns("appl")
        has_br = ns_run(appl, ["ip", "link", "show", "br0"], check=False).returncode == 0
        if mode == "bridge" and not has_br:
            ns_run(appl, ["ip", "link", "add", "br0", "type", "bridge", "stp_state", "0", "forward_delay", "0"])
            for p in ("up0", AP):
                ns_run(appl, ["ip", "link", "set", p, "master", "br0"])
            ns_run(appl, ["ip", "link", "set", "br0", "up"])
        elif mode == "ports" and has_br:
            ns_run(appl, ["ip", "link", "del", "br0"])

    def down(self) -> None:
        processes.stop_pidfiles(self.run_dir)
        present = existing_namespaces()
        for ns in self.namespaces:
            if ns not in present:
                continue
            for pid in run(["ip", "netns", "pids", ns], check=False).stdout.split():
                if pid.isdigit() and int(pid) != os.getpid():
                    processes.kill_pid(int(pid), grace_s=2.0)
            run(["ip", "netns", "del", ns])
        if self.run_dir.is_dir():
            for f in self.run_dir.iterdir():
                if f.is_file() or f.is_socket():
                    f.unlink()
                elif f.is_dir() and f.name == "redis":  # the controlled run's redis-server directory
                    shutil.rmtree(f)
            try:
                self.run_dir.rmdir()
            except OSError:
                pass

    def emu_argv(self, emu: Path, air: Path, stats: Path, log: Path, pidfile: Path) -> list[str]:
        return [str(emu), "--air", str(air), "--ap", f"{AP}={AP}",
                *(a for i, s in enumerate(self.stas, start=1) for a in ("--sta", f"{s}={s},mac={sta_mac(i)},ap={AP}")),
                "--gt-log", str(log), "--stats", str(stats), "--pidfile", str(pidfile)]

    def dp_argv(self, dp: Path, config: Path, sock: Path) -> list[str]:
        rd = self.run_dir
        return [str(dp), "--no-huge", "--file-prefix", f"adw-{self.prefix}", "-m", "1024", "--no-pci", "-l", "0",
                "--vdev=net_af_packet0,iface=up0", f"--vdev=net_af_packet1,iface={AP}", "--", "--config", str(config),
                "--uplink", "up0", "--telemetry", str(rd / "adwiser-dp.telemetry.jsonl"),
                "--stats", str(rd / "adwiser-dp.stats.json"), "--pid-file", str(rd / "adwiser-dp.own.pid"),
                "--redis", f"unix:{sock}", "--ack-model", str(ACK_MODEL)]

    def config_doc(self, appliance: str, pairs: list[str], t_bar_ms: float, base: dict[str, Any]) -> dict[str, Any]:
        """The lab document's policies with this topology: one AP, its STAs, one slice holding every pair
        (the pairs do not conflict), the aggregation target on for `pairs`."""
        doc = json.loads(json.dumps(base))
        doc["appliance_id"] = appliance
        doc["topology"] = {
            "aps": [{"id": AP, "name": "AP1 (aggregation target)", "channel": 42, "port": AP, "vlan": None}],
            "stas": [{"id": s, "mac": sta_mac(i), "ips": [sta_ip(i)], "ap": AP}
                     for i, s in enumerate(self.stas, start=1)],
            "conflicts": []}
        doc["slice_map"] = {"slices": [{"duration_ms": 20, "pairs": [f"{AP}/{s}" for s in self.stas]}]}
        doc["policies"]["aggregation_target"].update({"enabled": True, "pairs": pairs, "t_bar_ms": t_bar_ms})
        return doc
