"""The ports of the fabric bridge for one topology.

Every AP-facing port of the configuration becomes a bridge port (several APs
may share one port on different VLANs). The dataplane gets one veth pair for
its uplink side and one per AP, because it releases each AP's queue on that
AP's own port: `fb-up`/`dp-up`, `fb-<ap>`/`dp-<ap>` (the AP id when it fits
a Linux interface name, else `a<index>`). The `fb-` end is on the bridge, the
`dp-` end is what the dataplane opens (AF_PACKET / DPDK net_af_packet).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..models import AdwiserConfig

IFNAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,15}$")
# Room for the "fb-"/"dp-" prefixes inside Linux's 15-character limit.
SHORT_NAME_MAX = 12

UPLINK_OFPORT = 1
AP_PORT_OFPORT_BASE = 10
DP_OFPORT_BASE = 1000


class PlanError(ValueError):
    """The configuration cannot be built as an OVS bridge (names the field at fault)."""


@dataclass(frozen=True)
class DpLink:
    """One veth pair between the bridge and the dataplane."""

    role: str  # "uplink" or the AP id this dataplane port serves
    fabric_if: str  # bridge-side interface name (fb-...)
    dp_if: str  # dataplane-side interface name (dp-...)
    ofport: int  # OpenFlow port number requested for fabric_if


@dataclass(frozen=True)
class ApPort:
    ap_id: str
    port: str  # AP-facing bridge port (Linux interface)
    vlan: int | None  # 802.1Q VLAN id towards the AP on that port; None = untagged


@dataclass(frozen=True)
class PortPlan:
    bridge: str
    uplink: str  # uplink bridge port (Linux interface)
    aps: tuple[ApPort, ...]
    dp_uplink: DpLink
    dp_aps: dict[str, DpLink]  # AP id -> its dataplane link

    def physical_ports(self) -> list[str]:
        """Uplink first, then the distinct AP-facing ports in configuration order."""
        seen: list[str] = [self.uplink]
        for ap in self.aps:
            if ap.port not in seen:
                seen.append(ap.port)
        return seen

    def dp_links(self) -> list[DpLink]:
        return [self.dp_uplink, *self.dp_aps.values()]

    def ofport_requests(self) -> dict[str, int]:
        req = {self.uplink: UPLINK_OFPORT}
        for i, port in enumerate(self.physical_ports()[1:]):
            req[port] = AP_PORT_OFPORT_BASE + i
        for link in self.dp_links():
            req[link.fabric_if] = link.ofport
        return req


def _short_name(ap_id: str, index: int) -> str:
    if len(ap_id) <= SHORT_NAME_MAX and IFNAME_RE.match(ap_id) and ap_id != "up":
        return ap_id
    return f"a{index}"


def build_plan(cfg: AdwiserConfig, uplink: str, bridge: str) -> PortPlan:
    if not IFNAME_RE.match(uplink):
        raise PlanError(f"uplink: '{uplink}' is not a Linux interface name (1-15 of A-Z a-z 0-9 _ . -)")
    if not IFNAME_RE.match(bridge):
        raise PlanError(f"bridge: '{bridge}' is not a valid bridge name (1-15 of A-Z a-z 0-9 _ . -)")
    aps: list[ApPort] = []
    dp_aps: dict[str, DpLink] = {}
    used_vlans: dict[tuple[str, int | None], str] = {}
    for i, ap in enumerate(cfg.topology.aps):
        where = f"topology.aps.{i}.port"
        if not IFNAME_RE.match(ap.port):
            raise PlanError(f"{where}: '{ap.port}' is not a Linux interface name; the OVS fabric bridges interfaces")
        if ap.port == uplink:
            raise PlanError(f"{where}: '{ap.port}' is the uplink port")
        other = used_vlans.get((ap.port, ap.vlan))
        if other is not None:
            raise PlanError(f"topology.aps.{i}.vlan: AP '{ap.id}' and AP '{other}' share port '{ap.port}' "
                            f"and VLAN {ap.vlan}; the fabric could not tell their frames apart")
        used_vlans[(ap.port, ap.vlan)] = ap.id
        aps.append(ApPort(ap_id=ap.id, port=ap.port, vlan=ap.vlan))
        short = _short_name(ap.id, i)
        dp_aps[ap.id] = DpLink(role=ap.id, fabric_if=f"fb-{short}", dp_if=f"dp-{short}", ofport=DP_OFPORT_BASE + 1 + i)
    names = [uplink, *[a.port for a in aps]]
    for link in dp_aps.values():
        if link.fabric_if in names or link.dp_if in names:
            raise PlanError(f"topology.aps: port name '{link.dp_if}'/'{link.fabric_if}' is reserved for the dataplane")
    return PortPlan(
        bridge=bridge,
        uplink=uplink,
        aps=tuple(aps),
        dp_uplink=DpLink(role="uplink", fabric_if="fb-up", dp_if="dp-up", ofport=DP_OFPORT_BASE),
        dp_aps=dp_aps,
    )
