"""The veth pairs between the fabric bridge and the dataplane.

The dataplane reads and writes its ports with AF_PACKET (DPDK net_af_packet
or the NFQUEUE-free test stand-in), which sees frames as the veth hands them
over: offloads are turned off so no TSO/GSO super-frame or unfinished
checksum reaches it.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .plan import DpLink

OFFLOADS = ["tso", "off", "gso", "off", "gro", "off", "tx", "off", "rx", "off"]


class LinkError(RuntimeError):
    pass


def _ip(*args: str) -> None:
    res = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=5)
    if res.returncode != 0:
        raise LinkError(f"ip {' '.join(args)} failed: {res.stderr.strip()}")


def exists(ifname: str) -> bool:
    return Path("/sys/class/net", ifname).exists()


def make_layer2_only(ifname: str) -> None:
    """No IPv6 on a bridge member: the kernel's own router solicitations and MLD reports on the dataplane's
    veths would otherwise count as frames out of the dataplane and hide a stall from the watchdog."""
    knob = Path("/proc/sys/net/ipv6/conf", ifname, "disable_ipv6")
    try:
        knob.write_text("1\n")
    except OSError:
        pass  # IPv6 not compiled in, or the interface just vanished: nothing to silence


def disable_offloads(ifname: str) -> None:
    if shutil.which("ethtool"):
        subprocess.run(["ethtool", "-K", ifname, *OFFLOADS], capture_output=True, timeout=5)


def ensure_link(link: DpLink) -> None:
    """Create the veth pair if missing and bring both ends up."""
    if not exists(link.fabric_if):
        if exists(link.dp_if):
            raise LinkError(f"{link.dp_if} exists but its peer {link.fabric_if} does not; remove {link.dp_if}")
        _ip("link", "add", link.fabric_if, "type", "veth", "peer", "name", link.dp_if)
    for name in (link.fabric_if, link.dp_if):
        disable_offloads(name)
        make_layer2_only(name)
        _ip("link", "set", name, "up")


def delete_link(link: DpLink) -> None:
    if exists(link.fabric_if):
        _ip("link", "del", link.fabric_if)
