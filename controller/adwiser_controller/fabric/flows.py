"""The OpenFlow table of the fabric bridge, for a topology in one of two modes.

Managed traffic is every frame to a configured STA MAC arriving on the
uplink, and every unicast frame from a configured STA MAC arriving on its
AP's port (SPEC §2: the dataplane queues downlink per AP-STA pair and must
also see that pair's ACKs and uplink data).

steered  downlink:  uplink --(dl_dst=STA)--> fb-up  ==dataplane==> fb-<ap> --> AP port
         uplink:    AP port --(dl_src=STA)--> fb-<ap> ==dataplane==> fb-up --> uplink
bypass   the same matches go straight uplink <-> AP port (fail-open).

Everything else (ARP, DHCP, broadcast, unmanaged STAs) takes the NORMAL
action (MAC learning). The dataplane's ports are marked no-flood and every
frame coming back from the dataplane has an explicit rule, so NORMAL never
learns a MAC on them and never sends anything into the dataplane.

VLANs: an AP with a VLAN is reached with that 802.1Q tag on its port and on
the uplink (a trunk); the dataplane sees untagged frames and the tag is put
back on the way out. The tag put back has priority (802.1p PCP) 0: the
priority the frame's tag had is not carried through the dataplane, which
sees no tag (checked with ofproto/trace on the userspace datapath: PCP 5 in,
push_vlan(vid=101,pcp=0) out, steered mode only; bypass and NORMAL frames
keep their tag). An AP that maps DSCP to its WMM access categories (RFC 8325)
is unaffected; one that trusts 802.1p sees steered voice as best effort.

Both modes are whole tables, so a switch is one atomic replace (ovs.py).
"""

from __future__ import annotations

from typing import Literal

from ..models import AdwiserConfig
from .plan import PortPlan

Mode = Literal["steered", "bypass"]
MODES: tuple[Mode, ...] = ("steered", "bypass")

PRIO_FROM_DP_TAGGED = 210  # frames leaving the dataplane that need their VLAN tag back
PRIO_FROM_DP = 200  # frames leaving the dataplane
PRIO_MANAGED = 100  # frames of managed STAs: steered or bypassed
PRIO_NORMAL = 0  # everything else: MAC learning

UNICAST_DST = "dl_dst=00:00:00:00:00:00/01:00:00:00:00:00"
UNTAGGED = "vlan_tci=0x0000/0x1000"


def _vlan_match(vlan: int | None) -> str:
    return f"dl_vlan={vlan}" if vlan is not None else UNTAGGED


def _tag(vlan: int | None) -> str:
    return f"mod_vlan_vid:{vlan}," if vlan is not None else ""


def _untag(vlan: int | None) -> str:
    return "strip_vlan," if vlan is not None else ""


def compile_flows(cfg: AdwiserConfig, plan: PortPlan, mode: Mode) -> list[str]:
    """The whole flow table (ovs-ofctl syntax, one flow per line) for `mode`."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    aps = {a.ap_id: a for a in plan.aps}
    up = plan.uplink
    fb_up = plan.dp_uplink.fabric_if
    flows: list[str] = []

    # Frames coming back from the dataplane, in both modes (a dataplane that
    # resumes after a hang may still release what it held).
    for sta in cfg.topology.stas:
        ap = aps[sta.ap]
        if ap.vlan is not None:
            flows.append(f"priority={PRIO_FROM_DP_TAGGED},in_port={fb_up},dl_src={sta.mac},"
                         f"actions={_tag(ap.vlan)}output:{up}")
    flows.append(f"priority={PRIO_FROM_DP},in_port={fb_up},actions=output:{up}")
    for ap in plan.aps:
        link = plan.dp_aps[ap.ap_id]
        flows.append(f"priority={PRIO_FROM_DP},in_port={link.fabric_if},actions={_tag(ap.vlan)}output:{ap.port}")

    for sta in cfg.topology.stas:
        ap = aps[sta.ap]
        link = plan.dp_aps[ap.ap_id]
        vlan = _vlan_match(ap.vlan)
        down = f"priority={PRIO_MANAGED},in_port={up},{vlan},dl_dst={sta.mac}"
        upl = f"priority={PRIO_MANAGED},in_port={ap.port},{vlan},dl_src={sta.mac},{UNICAST_DST}"
        if mode == "steered":
            flows.append(f"{down},actions={_untag(ap.vlan)}output:{fb_up}")
            flows.append(f"{upl},actions={_untag(ap.vlan)}output:{link.fabric_if}")
        else:
            flows.append(f"{down},actions=output:{ap.port}")
            flows.append(f"{upl},actions=output:{up}")

    flows.append(f"priority={PRIO_NORMAL},actions=NORMAL")
    return flows
