"""The 2AP-2STA lab (004 §4, Fig 5) as network namespaces and veth links.

    <P>server eth0 ── wan0 <P>wan wan1 ── up0 <P>appl ap1 ── ap1 <P>wlan sta1 ── eth0 <P>sta1
    198.18.0.1                                      ap2 ── ap2      sta2 ── eth0 <P>sta2
                                                                          198.18.0.11 / .12

One L2 subnet, 198.18.0.0/24 (configs/lab-2ap-2sta.yaml). Three places change
with the experiment, each set by `set_modes`:
  wan  : "bridge" (a Linux bridge forwards) or "emu" (unbridged, wan-emu runs)
  appl : "bridge" (br0 over up0/ap1/ap2, straight forwarding), "ports"
         (unbridged, for adwiser-dp over net_af_packet) or "router" (IPv4
         routing with proxy ARP, same subnet on both sides, for the NFQUEUE
         backend: iptables FORWARD sees every packet)
  wlan : "bridge" (wbr1 = ap1+sta1, wbr2 = ap2+sta2, no air model) or "emu"
         (unbridged, testbed/emu/wlan-emu takes the interfaces)
Offloads (TSO/GSO/GRO and TX checksum) are off on every veth so frames on the
emulated air are MTU-sized and user-space forwarders see complete checksums.

`up` is idempotent and atomic: if any step fails, everything made so far is
removed. `down` is idempotent: it stops the processes of the run directory by
PID, then the processes still inside our namespaces, then deletes them and
the run directory.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import processes, result_file, signals
from .shell import CommandError, ns_run, run

SUBNET_PREFIXLEN = 24
SERVER_IP = "198.18.0.1"
SERVER_MAC = "02:ad:00:00:00:01"
STAS = {  # sta id -> (address, MAC, AP it is associated with), from configs/lab-2ap-2sta.yaml
    "sta1": ("198.18.0.11", "02:ad:00:00:01:01", "ap1"),
    "sta2": ("198.18.0.12", "02:ad:00:00:02:01", "ap2"),
}
APS = ("ap1", "ap2")
CONGESTION_CONTROLS = ("cubic", "bbr")
WAN_MODES = ("bridge", "emu")
APPL_FOR_BACKEND = {"none": "bridge", "dpdk": "ports", "nfqueue": "router"}
APPL_MODES = ("bridge", "ports", "router")
# Router mode (dataplane/dp/README.md, NFQUEUE backend): the appliance routes
# between up0 and the AP ports, invisible to the hosts thanks to proxy ARP;
# this address only gives the router's own ARP requests a source.
ROUTER_IP = "198.18.0.254"
WLAN_MODES = ("bridge", "emu")


@dataclass(frozen=True)
class Testbed:
    prefix: str  # namespace name prefix, unique per concurrent run

    def ns(self, role: str) -> str:
        return f"{self.prefix}{role}"

    @property
    def roles(self) -> tuple[str, ...]:
        return ("server", "wan", "appl", "wlan", *STAS)

    @property
    def namespaces(self) -> list[str]:
        return [self.ns(r) for r in self.roles]

    @property
    def run_dir(self) -> Path:
        return Path(os.environ.get("TESTBED_RUN_ROOT", "/run/adwiser-testbed")) / self.prefix

    @property
    def state_file(self) -> Path:
        return self.run_dir / "topology.json"

    # (namespace role, interface, peer role, peer interface)
    @property
    def links(self) -> list[tuple[str, str, str, str]]:
        links = [("server", "eth0", "wan", "wan0"), ("wan", "wan1", "appl", "up0")]
        links += [("appl", ap, "wlan", ap) for ap in APS]
        links += [("wlan", sta, sta, "eth0") for sta in STAS]
        return links


def default_prefix() -> str:
    prefix = os.environ.get("TESTBED_PREFIX", "adw")
    if not prefix.replace("-", "").replace("_", "").isalnum() or len(prefix) > 12:
        raise ValueError(f"TESTBED_PREFIX {prefix!r}: use up to 12 letters, digits, '-' or '_'")
    return prefix


def existing_namespaces() -> set[str]:
    out = run(["ip", "-json", "netns", "list"], check=False).stdout.strip()
    return {entry["name"] for entry in json.loads(out)} if out else set()


def _sysctl(ns: str, key: str, value: str) -> None:
    ns_run(ns, ["sysctl", "-qw", f"{key}={value}"])


def _no_offloads(ns: str, dev: str) -> None:
    ns_run(ns, ["ethtool", "-K", dev, "tx", "off", "tso", "off", "gso", "off", "gro", "off"])


def _bridge(ns: str, name: str, ports: list[str]) -> None:
    if ns_run(ns, ["ip", "link", "show", name], check=False).returncode != 0:
        ns_run(ns, ["ip", "link", "add", name, "type", "bridge", "stp_state", "0",
                    "forward_delay", "0"])
    for p in ports:
        ns_run(ns, ["ip", "link", "set", p, "master", name])
    ns_run(ns, ["ip", "link", "set", name, "up"])


def _unbridge(ns: str, name: str) -> None:
    if ns_run(ns, ["ip", "link", "show", name], check=False).returncode == 0:
        ns_run(ns, ["ip", "link", "del", name])


def _allow_congestion_control(cc: str) -> None:
    """A namespace other than the initial one may only default to an algorithm
    in the host's tcp_allowed_congestion_control list (the kernel answers EPERM
    otherwise); add cc to that list if it is missing. This only widens what may
    be chosen; the host's own default is untouched."""
    key = "net.ipv4.tcp_allowed_congestion_control"
    allowed = run(["sysctl", "-n", key]).stdout.split()
    if cc not in allowed:
        run(["sysctl", "-qw", f"{key}={' '.join([*allowed, cc])}"])


def _route(ns: str) -> None:
    """Route each host by its interface, answer ARP for the others (proxy ARP)."""
    _sysctl(ns, "net.ipv4.ip_forward", "1")
    ns_run(ns, ["ip", "addr", "replace", f"{ROUTER_IP}/32", "dev", "up0"])
    for dev in ("all", "up0", *APS):
        _sysctl(ns, f"net.ipv4.conf.{dev}.send_redirects", "0")
    for dev in ("up0", *APS):
        _sysctl(ns, f"net.ipv4.conf.{dev}.proxy_arp", "1")
    ns_run(ns, ["ip", "route", "replace", f"{SERVER_IP}/32", "dev", "up0"])
    for ip, _, ap in STAS.values():
        ns_run(ns, ["ip", "route", "replace", f"{ip}/32", "dev", ap])


def _unroute(ns: str) -> None:
    _sysctl(ns, "net.ipv4.ip_forward", "0")
    for dev in ("up0", *APS):
        _sysctl(ns, f"net.ipv4.conf.{dev}.proxy_arp", "0")
        ns_run(ns, ["ip", "addr", "flush", "dev", dev])
        ns_run(ns, ["ip", "neigh", "flush", "dev", dev])
    # Removing the address also removes the routes through up0; the AP routes remain.
    ns_run(ns, ["ip", "route", "flush", "table", "main"])


def set_congestion_control(tb: Testbed, cc: str) -> None:
    """TCP congestion control of the traffic endpoints (SPEC §5: CUBIC as in
    the paper, BBR as a second case)."""
    if cc not in CONGESTION_CONTROLS:
        raise ValueError(f"congestion control {cc!r}: expected one of {CONGESTION_CONTROLS}")
    _allow_congestion_control(cc)
    for role in ("server", *STAS):
        _sysctl(tb.ns(role), "net.ipv4.tcp_congestion_control", cc)


def set_modes(tb: Testbed, *, wan: str | None = None, appl: str | None = None,
              wlan: str | None = None) -> None:
    """Switches where frames are forwarded by a Linux bridge and where a
    user-space program owns the interfaces (see the module comment)."""
    if wan is not None:
        if wan not in WAN_MODES:
            raise ValueError(f"wan mode {wan!r}: expected one of {WAN_MODES}")
        if wan == "bridge":
            _bridge(tb.ns("wan"), "br0", ["wan0", "wan1"])
        else:
            _unbridge(tb.ns("wan"), "br0")
    if appl is not None:
        if appl not in APPL_MODES:
            raise ValueError(f"appl mode {appl!r}: expected one of {APPL_MODES}")
        appl_ns = tb.ns("appl")
        _unroute(appl_ns)
        if appl == "bridge":
            _bridge(appl_ns, "br0", ["up0", *APS])
        else:
            _unbridge(appl_ns, "br0")
        if appl == "router":
            _route(appl_ns)
    if wlan is not None:
        if wlan not in WLAN_MODES:
            raise ValueError(f"wlan mode {wlan!r}: expected one of {WLAN_MODES}")
        for i, (sta, (_, _, ap)) in enumerate(STAS.items(), start=1):
            if wlan == "bridge":
                _bridge(tb.ns("wlan"), f"wbr{i}", [ap, sta])
            else:
                _unbridge(tb.ns("wlan"), f"wbr{i}")
    if tb.state_file.exists():
        state = json.loads(tb.state_file.read_text())
        state["modes"].update({k: v for k, v in (("wan", wan), ("appl", appl), ("wlan", wlan))
                               if v is not None})
        result_file.write_json(tb.state_file, state)


def _build(tb: Testbed, cc: str) -> None:
    for ns in tb.namespaces:
        run(["ip", "netns", "add", ns])
        ns_run(ns, ["ip", "link", "set", "lo", "up"])
        # No IPv6: no router solicitations or DAD frames in the measurements.
        _sysctl(ns, "net.ipv6.conf.all.disable_ipv6", "1")
        _sysctl(ns, "net.ipv6.conf.default.disable_ipv6", "1")
    for role, dev, peer_role, peer_dev in tb.links:
        run(["ip", "link", "add", "name", dev, "netns", tb.ns(role), "type", "veth",
             "peer", "name", peer_dev, "netns", tb.ns(peer_role)])
        for r, d in ((role, dev), (peer_role, peer_dev)):
            _no_offloads(tb.ns(r), d)
    ns_run(tb.ns("server"), ["ip", "link", "set", "eth0", "address", SERVER_MAC])
    ns_run(tb.ns("server"), ["ip", "addr", "add", f"{SERVER_IP}/{SUBNET_PREFIXLEN}", "dev", "eth0"])
    for sta, (ip, mac, _) in STAS.items():
        ns_run(tb.ns(sta), ["ip", "link", "set", "eth0", "address", mac])
        ns_run(tb.ns(sta), ["ip", "addr", "add", f"{ip}/{SUBNET_PREFIXLEN}", "dev", "eth0"])
    for role, dev, peer_role, peer_dev in tb.links:
        ns_run(tb.ns(role), ["ip", "link", "set", dev, "up"])
        ns_run(tb.ns(peer_role), ["ip", "link", "set", peer_dev, "up"])
    set_congestion_control(tb, cc)


def is_up(tb: Testbed) -> bool:
    """Whether `up` would keep this testbed as it is; otherwise it (re)builds
    it, and a run that calls `up` then owns it and takes it down at its end."""
    return tb.state_file.exists() and set(tb.namespaces) <= existing_namespaces()


def up(tb: Testbed, *, cc: str = "cubic", appl: str = "bridge") -> dict[str, Any]:
    """Brings the testbed up (no-op if it is already up); straight forwarding
    everywhere unless `appl` says otherwise."""
    if is_up(tb):
        # A run killed before its `finally` leaves its processes and modes: they would run beside this one's.
        processes.stop_pidfiles(tb.run_dir)
        set_modes(tb, wan="bridge", appl=appl, wlan="bridge")
        set_congestion_control(tb, cc)
        return dict(json.loads(tb.state_file.read_text()))
    down(tb)
    try:
        tb.run_dir.mkdir(parents=True, exist_ok=True)
        _build(tb, cc)
        state: dict[str, Any] = {"prefix": tb.prefix, "namespaces": tb.namespaces, "server": SERVER_IP,
                 "stas": {s: {"ip": ip, "mac": mac, "ap": ap} for s, (ip, mac, ap) in STAS.items()},
                 "modes": {}}
        result_file.write_json(tb.state_file, state)
        set_modes(tb, wan="bridge", appl=appl, wlan="bridge")
        state = json.loads(tb.state_file.read_text())
    except BaseException:
        down(tb)
        raise
    return state


def down(tb: Testbed) -> list[str]:
    """Removes everything `up` made; returns the namespaces deleted."""
    with signals.stopping():
        return _down(tb)


def _down(tb: Testbed) -> list[str]:
    processes.stop_pidfiles(tb.run_dir)
    present = existing_namespaces()
    deleted = []
    for ns in tb.namespaces:
        if ns not in present:
            continue
        # Anything still running inside a namespace we made is ours (started by
        # this harness); stop it by PID before the namespace goes.
        pids = run(["ip", "netns", "pids", ns], check=False).stdout.split()
        for pid in pids:
            if pid.isdigit() and int(pid) != os.getpid():
                processes.kill_pid(int(pid), grace_s=2.0)
        run(["ip", "netns", "del", ns])
        deleted.append(ns)
    # Everything below the run directory is this testbed's, subdirectories and
    # sockets too: a killed demo leaves ovs/ (database, logs) and demo-redis/ (AOF).
    if tb.prefix not in ("", ".", "..") and "/" not in tb.prefix:
        shutil.rmtree(tb.run_dir, ignore_errors=True)
    return deleted


def main(argv: list[str] | None = None) -> int:
    signals.exit_on_signals()  # SIGINT, SIGTERM: every `finally` stops what it started, and is not cut short
    ap = argparse.ArgumentParser(prog="testbed-topology", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prefix", default=None, help="namespace prefix (default $TESTBED_PREFIX or 'adw')")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p_up = sub.add_parser("up", help="create the namespaces and links (idempotent)")
    p_up.add_argument("--cc", choices=CONGESTION_CONTROLS, default="cubic")
    p_up.add_argument("--backend", choices=("none", "dpdk", "nfqueue"), default="none",
                      help="dpdk leaves up0/ap1/ap2 unbridged for adwiser-dp; nfqueue makes the "
                           "appliance a proxy-ARP router; none keeps br0")
    sub.add_parser("down", help="remove everything (idempotent)")
    sub.add_parser("status", help="print the state as JSON")
    p_mode = sub.add_parser("mode", help="switch bridge/program forwarding")
    p_mode.add_argument("--wan", choices=WAN_MODES)
    p_mode.add_argument("--appl", choices=APPL_MODES)
    p_mode.add_argument("--wlan", choices=WLAN_MODES)
    args = ap.parse_args(argv)
    try:
        tb = Testbed(args.prefix or default_prefix())
        if args.cmd == "up":
            state = up(tb, cc=args.cc, appl=APPL_FOR_BACKEND[args.backend])
            print(json.dumps(state))
        elif args.cmd == "down":
            print("removed:", " ".join(down(tb)) or "(nothing)")
        elif args.cmd == "status":
            if not tb.state_file.exists():
                print(f"testbed {tb.prefix!r} is down")
                return 1
            print(tb.state_file.read_text().strip())
        elif args.cmd == "mode":
            if not tb.state_file.exists():
                print(f"testbed {tb.prefix!r} is down", file=sys.stderr)
                return 1
            set_modes(tb, wan=args.wan, appl=args.appl, wlan=args.wlan)
    except (CommandError, ValueError) as e:
        print(f"testbed: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
