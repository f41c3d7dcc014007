"""The ports of the fabric bridge for one topology.

Every AP-facing port of the configuration becomes a bridge port (several APs
may share one port on different VLANs). The dataplane gets one veth pair for
its uplink side and one per AP, because it releases each AP's queue on that
AP's own port: `fb-up`/`dp-up`, `fb-<ap>`/`dp-<ap>` (the AP id when it fits
a Linux interface name, else `_` and 11 hex digits of the id's SHA-256, which
no AP id can be since an id starts with a letter or digit). The name depends
on the AP id alone, never on its position in the list. The `fb-` end is on the
bridge, the `dp-` end is what the dataplane opens (AF_PACKET / DPDK
net_af_packet). A document whose names would still collide (two hashes, or a
physical port named like a dataplane link) is refused naming the field, as is
a physical port that ovs-ofctl would read as a reserved port (LOCAL, ALL, ...)
or a port number instead of by its name.

A link is identified by its names, so by its AP id: a topology is planned
against the numbers the bridge's ports hold now (`held`, read from OVS, not
from the manager's memory, which a restarted manager does not have), so an
AP that stays keeps its link and its OpenFlow port number whatever its
position, and a new AP's link gets the lowest number no port holds; the
manager never recreates a kept AP's veths (the dataplane's socket on them
would stay bound to the deleted interface).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..models import AdwiserConfig

IFNAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,15}$")
# What ovs-ofctl reads a port in a flow as before it looks the name up on the bridge (any case, and any run of
# digits as a port number; `ovs-ofctl parse-flow`, OVS 3.1): an interface so named cannot be named in a flow.
OFCTL_RESERVED_PORTS = frozenset({"in_port", "table", "normal", "flood", "all", "controller", "local", "any",
                                  "none", "unset"})
# Room for the "fb-"/"dp-" prefixes inside Linux's 15-character limit.
SHORT_NAME_MAX = 12

UPLINK_OFPORT = 1
AP_PORT_OFPORT_BASE = 10
DP_OFPORT_BASE = 1000


class PlanError(ValueError):
    """The configuration cannot be built as an OVS bridge (names the field at fault)."""


class PortMissing(PlanError):
    """A port the configuration names is not an interface of this host (yet): the host, not the document, is at
    fault, so the same document may be built once `port` exists."""

    def __init__(self, port: str, message: str):
        super().__init__(message)
        self.port = port


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
    ap_port_ofports: dict[str, int]  # AP-facing port -> OpenFlow port number requested for it

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
        req = {self.uplink: UPLINK_OFPORT, **self.ap_port_ofports}
        for link in self.dp_links():
            req[link.fabric_if] = link.ofport
        return req


def _short_name(ap_id: str) -> str:
    if len(ap_id) <= SHORT_NAME_MAX and IFNAME_RE.match(ap_id) and ap_id != "up":
        return ap_id
    # An AP id starts with a letter or digit (models.ID_PATTERN), so a name starting with '_' is never one.
    return "_" + hashlib.sha256(ap_id.encode()).hexdigest()[:SHORT_NAME_MAX - 1]


def _ofctl_reading(name: str) -> str | None:
    """What ovs-ofctl takes `name` for in a flow when that is not the port of that name, else None."""
    if name.isdigit():
        return f"port number {int(name)}"
    if name.lower() in OFCTL_RESERVED_PORTS:
        return f"its reserved port {name.upper()}"
    return None


def build_plan(cfg: AdwiserConfig, uplink: str, bridge: str, held: Mapping[str, int] | None = None) -> PortPlan:
    """The plan of `cfg`; given the port numbers the bridge's ports hold (`held`, by interface name), the links
    already on the bridge keep theirs."""
    if not IFNAME_RE.match(uplink):
        raise PlanError(f"uplink: '{uplink}' is not a Linux interface name (1-15 of A-Z a-z 0-9 _ . -)")
    if (reading := _ofctl_reading(uplink)) is not None:
        raise PlanError(f"uplink: '{uplink}' is what ovs-ofctl reads as {reading}; rename the interface")
    if not IFNAME_RE.match(bridge):
        raise PlanError(f"bridge: '{bridge}' is not a valid bridge name (1-15 of A-Z a-z 0-9 _ . -)")
    aps: list[ApPort] = []
    dp_aps: dict[str, DpLink] = {}
    for i, ap in enumerate(cfg.topology.aps):
        where = f"topology.aps.{i}.port"
        if not IFNAME_RE.match(ap.port):
            raise PlanError(f"{where}: '{ap.port}' is not a Linux interface name; the OVS fabric bridges interfaces")
        if (reading := _ofctl_reading(ap.port)) is not None:
            raise PlanError(f"{where}: '{ap.port}' is what ovs-ofctl reads as {reading}; rename the interface")
        if ap.port == uplink:
            raise PlanError(f"{where}: '{ap.port}' is the uplink port")
        # Two APs on one port and VLAN, whose frames nothing could tell apart, never get here: the models refuse
        # them (models._shared_links).
        aps.append(ApPort(ap_id=ap.id, port=ap.port, vlan=ap.vlan))
        short = _short_name(ap.id)
        dp_aps[ap.id] = DpLink(role=ap.id, fabric_if=f"fb-{short}", dp_if=f"dp-{short}", ofport=0)
    dp_uplink = DpLink(role="uplink", fabric_if="fb-up", dp_if="dp-up", ofport=DP_OFPORT_BASE)
    _check_names_unique(cfg, uplink, dp_uplink, dp_aps)
    held = held or {}
    _number_links(dp_aps, held)
    ap_ports = list(dict.fromkeys(ap.port for ap in aps))
    return PortPlan(
        bridge=bridge,
        uplink=uplink,
        aps=tuple(aps),
        dp_uplink=dp_uplink,
        dp_aps=dp_aps,
        ap_port_ofports=_numbers(ap_ports, held, AP_PORT_OFPORT_BASE),
    )


def _numbers(names: list[str], held: Mapping[str, int], base: int) -> dict[str, int]:
    """The OpenFlow port number of each of `names`: the one it holds on the bridge, else the lowest from `base`
    that no port of the bridge holds (see _number_links for why not even one this same version frees)."""
    taken = set(held.values())
    free = (n for n in itertools.count(base) if n not in taken)
    return {name: held[name] if name in held else next(free) for name in names}


def _number_links(dp_aps: dict[str, DpLink], held: Mapping[str, int]) -> None:
    """Give each AP's link its OpenFlow port number: the one its bridge-side port holds (`held`) if it is on the
    bridge, else the lowest one above DP_OFPORT_BASE that no port of the bridge holds, in configuration order
    (AP-facing ports are numbered the same way from AP_PORT_OFPORT_BASE, never by their position in the list).
    Not a number a port this same version removes holds: the manager adds the new ports before it deletes the
    old ones, so OVS would give the new port another number, install the flows with it, and renumber the port
    once the old one is gone (vswitchd re-adds a port whose requested number became free), leaving its flows
    pointing at a port that no longer exists until the next resync. The bridge, not the plan in the manager's
    memory, says what is held: a restarted manager's first plan is the file's, whose numbers are not the
    bridge's."""
    numbers = _numbers([link.fabric_if for link in dp_aps.values()], held, DP_OFPORT_BASE + 1)
    for ap_id, link in dp_aps.items():
        dp_aps[ap_id] = dataclasses.replace(link, ofport=numbers[link.fabric_if])


def _check_names_unique(cfg: AdwiserConfig, uplink: str, dp_uplink: DpLink, dp_aps: dict[str, DpLink]) -> None:
    """Every dataplane link's two names differ from every other link's and from every physical port's."""
    owner: dict[str, tuple[str, str]] = {}  # interface name -> (field at fault, what it is)
    for name in (dp_uplink.fabric_if, dp_uplink.dp_if):
        owner[name] = ("uplink", "the dataplane's uplink link")
    for i, ap in enumerate(cfg.topology.aps):
        link = dp_aps[ap.id]
        for name in (link.fabric_if, link.dp_if):
            other = owner.get(name)
            if other is not None:
                raise PlanError(f"topology.aps.{i}.id: AP '{ap.id}' would get dataplane port name '{name}', "
                                f"already {other[1]}; choose another AP id")
            owner[name] = (f"topology.aps.{i}.id", f"the dataplane link of AP '{ap.id}'")
    if uplink in owner:
        raise PlanError(f"uplink: '{uplink}' is the name of {owner[uplink][1]}")
    for i, ap in enumerate(cfg.topology.aps):
        if ap.port in owner:
            raise PlanError(f"topology.aps.{i}.port: '{ap.port}' is the name of {owner[ap.port][1]}")
