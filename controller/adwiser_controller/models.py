"""The configuration document of an ADWISER appliance, as pydantic v2 models.

One document (the shape of `configs/*.yaml`) describes one appliance: its
topology (APs, STAs, which AP-STA pairs interfere), its slice map (a frame of
time-slices, each with the pairs released in it; 004 §2, §5) and its
policies (TS-ABR-QD 004 §5, dynamic slicing 004 §6.3, real-time traffic
004 §6.4, A* queue sizing 003 §IV-V, aggregation target 000 §VI).

These models are the single source of the JSON Schema in
`configs/schema/adwiser-config.schema.json` (see `schema.py`). Field
descriptions carry units and become the web UI's help text.

Checks that span several parts of the document (references, duplicates,
conflicts inside a slice, coverage of every pair) cannot be expressed in JSON
Schema; `AdwiserConfig` runs them after the structural checks and reports
each one with the path of the field at fault (see `FieldProblem`).
"""

from __future__ import annotations

import ipaddress
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .json_int import INTEGRAL, JsonInt, OptionalJsonInt

# Bounds of the frame (004 §3.1 of SPEC: slices are typically 20-100 ms).
SLICE_MIN_MS = 1
SLICE_MAX_MS = 500
FRAME_MAX_MS = 1000
SLICES_MAX = 64

# A STA's mean PHY rate μ_R, Mbit/s: 802.11's lowest rate (1 Mbit/s, DSSS, 802.11-2016 §15) up to a bound past
# 802.11ax's highest. Below 1 no link measures, and w_i = (l + l_oh)/μ_R of a tiny rate (5e-324 passed "above 0")
# was infinite in the aggregation loop. The measured rates the loop reads from Redis are held to the same range.
PHY_RATE_MIN_MBPS = 1.0
PHY_RATE_MAX_MBPS = 10000.0

# The dataplane's capacity (dataplane/include/adwiser/config.h, ADW_MAX_*): a document beyond it is refused by the
# dataplane's loader (dp/config_json.c), so the models refuse it too. tests/test_config_models.py checks these
# against the header.
APS_MAX = 512  # ADW_MAX_APS
STAS_MAX = 4096  # ADW_MAX_STAS
PAIRS_MAX = STAS_MAX  # ADW_MAX_PAIRS: one pair per STA
CONFLICTS_MAX = 16384  # ADW_MAX_CONFLICTS
STA_ADDRS_MAX = 16  # ADW_MAX_STA_ADDRS
RT_DSCP_MAX = 64  # ADW_MAX_RT_DSCP
RT_PORTS_MAX = 64  # ADW_MAX_RT_PORTS
# Characters (code points), as JSON Schema's maxLength counts them for ansible and the dashboard; dp/config_json.c
# read_ap counts them the same way.
AP_NAME_MAX_CHARS = 128

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
PAIR_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}/[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
MAC_PATTERN = r"^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$"
# What the schema says of a MAC: unicast (first octet even) as well. The models check that in
# _normalise_mac, whose message names the reason; ansible and the web UI have only the schema.
UNICAST_MAC_PATTERN = r"^[0-9A-Fa-f][02468AaCcEe](:[0-9A-Fa-f]{2}){5}$"
PORT_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:,=-]{0,127}$"

Identifier = Annotated[
    str,
    Field(pattern=ID_PATTERN, description="Identifier: letters, digits, '_', '.', '-'; at most 64 characters."),
]
PairRef = Annotated[
    str,
    Field(
        pattern=PAIR_PATTERN,
        description="An AP-STA pair written 'ap_id/sta_id'; the STA must be associated with that AP.",
    ),
]


def _not_a_boolean(value: object) -> object:
    # A Literal compares by equality and true == 1 in Python, so Literal[1] takes true even in strict mode; the
    # schema's "const": 1 does not.
    if isinstance(value, bool):
        raise PydanticCustomError("literal_error", "Input should be 1", {})
    return value


def _normalise_mac(value: str) -> str:
    mac = value.lower()
    if int(mac[0:2], 16) & 0x01:
        raise PydanticCustomError("mac_multicast", "a station MAC must be unicast (first octet even), got {mac}", {"mac": mac})
    return mac


def _normalise_ip(value: str) -> str:
    try:
        addr = ipaddress.ip_address(value)
    except ValueError:
        raise PydanticCustomError("ip_address", "not an IPv4 or IPv6 address: {value}", {"value": value}) from None
    if getattr(addr, "scope_id", None) is not None:
        # The dataplane classifies by the address alone (inet_pton, which refuses a zone).
        raise PydanticCustomError(
            "ip_address", "a scoped IPv6 address (zone '%{zone}') is not allowed: {value}",
            {"value": value, "zone": addr.scope_id},
        )
    return str(addr)


def _ap_name_without_nul(value: str) -> str:
    if "\x00" in value:
        raise PydanticCustomError("string_nul", "a NUL character is not allowed in a name", {})
    return value


MacAddress = Annotated[
    str,
    Field(
        pattern=MAC_PATTERN,
        description="Unicast MAC address, six colon-separated hex octets; stored lowercase.",
        json_schema_extra={"pattern": UNICAST_MAC_PATTERN},
    ),
    AfterValidator(_normalise_mac),
]
IpAddress = Annotated[
    str,
    Field(
        min_length=2,
        max_length=45,
        description="IPv4 or IPv6 address of the station; an IPv6 zone (%eth0) is not allowed.",
        # For validators of the schema alone (ansible's checks formats); the models parse it in _normalise_ip.
        json_schema_extra={"anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]},
    ),
    AfterValidator(_normalise_ip),
]


def _lower_not_above_upper(model: BaseModel, lower: str, upper: str) -> None:
    """A range given as two fields of `model`: the lower bound above the upper is refused, and the error names
    the lower field (ctx `field`, see field_errors) since pydantic would report it at the model."""
    lo, hi = getattr(model, lower), getattr(model, upper)
    if lo > hi:
        raise PydanticCustomError(
            "range_order",
            f"{lower} ({{lo}}) is greater than {upper} ({{hi}})",
            {"lo": lo, "hi": hi, "field": lower},
        )


class Strict(BaseModel):
    """Unknown fields are refused, so a misspelt key is an error naming it; a value is taken only in its own JSON
    type (pydantic's strict mode), as the generated schema, ansible and the dataplane's loader take it: "7" for an
    integer, 1 or "true" for a boolean, true for a number are refused, not converted. An integer for a number
    stays (strict floats take ints, as JSON Schema does); for an integral number for an integer see JsonInt.
    Strings are taken as written, not stripped: the schema and adwiser-dp refuse " ap1" or "ap1\n" for an id, so
    the models do too (stripping, they took an id, MAC, address or pair that neither of them takes)."""

    model_config = ConfigDict(extra="forbid", strict=True)


# ---------------------------------------------------------------- topology


class AccessPoint(Strict):
    id: Identifier = Field(description="AP identifier, unique in the document; used in pair names 'ap/sta'.")
    name: Annotated[str, AfterValidator(_ap_name_without_nul)] = Field(
        default="",
        max_length=AP_NAME_MAX_CHARS,
        description=f"Human-readable AP name shown in the dashboard; at most {AP_NAME_MAX_CHARS} characters, no NUL.",
    )
    channel: JsonInt = Field(
        ge=1, le=233, description="802.11 channel number (1-14 at 2.4 GHz, 32-177 at 5 GHz, 1-233 at 6 GHz)."
    )
    port: str = Field(
        pattern=PORT_PATTERN,
        description="AP-facing port of the appliance: a Linux interface name or a DPDK port/vdev name.",
    )
    vlan: OptionalJsonInt = Field(
        default=None,
        ge=1,
        le=4094,
        description="802.1Q VLAN id towards this AP on its port; null = untagged. APs sharing a port need each "
        "its own vlan (at most one of them untagged): two with one port and vlan are refused.",
    )
    ampdu_ceiling_mpdus: float | None = Field(
        default=None,
        ge=1,
        le=256,
        description="Operator-measured aggregation ceiling of this AP: the mean A-MPDU size, in MPDUs, it reaches "
        "with a standing queue (a saturating straight-forwarding transfer to its fastest station, counted from the "
        "AP's statistics or a monitor capture). The aggregation-target loop takes N-bar = min(n_target_max, "
        "48/64 of this) for the AP's pairs (000 §V-A (17): N-bar below the AP's real maximum; the paper's 48 of 64). "
        "At most policies.aggregation_target.n_max_mpdus. null = not measured: N-bar = n_target_max.",
    )
    ampdu_ceiling_us: float | None = Field(
        default=None,
        ge=100,
        le=10000,
        description="Operator-measured aggregation ceiling of this AP as airtime: the mean A-MPDU duration, in "
        "microseconds, it reaches with a standing queue (measured like ampdu_ceiling_mpdus). APs cap an A-MPDU's "
        "duration (802.11 aPPDUMaxTime, a driver's limit at the slowest rate it may retry at), so the ceiling in "
        "MPDUs falls with a station's MCS while its airtime stays: with this, each pair's N-bar is 48/64 of the "
        "MPDUs this airtime holds at the pair's current PHY rate, every step (and at most what "
        "ampdu_ceiling_mpdus gives when both are set). null = not measured.",
    )


class Station(Strict):
    id: Identifier = Field(description="STA identifier, unique in the document; used in pair names 'ap/sta'.")
    mac: MacAddress
    ips: list[IpAddress] = Field(
        default_factory=list,
        max_length=STA_ADDRS_MAX,
        description="The station's IP addresses; downlink packets to them are queued for the pair.",
    )
    ap: Identifier = Field(description="Id of the AP the station is associated with.")
    phy_rate_mbps: float | None = Field(
        default=None,
        ge=PHY_RATE_MIN_MBPS,
        le=PHY_RATE_MAX_MBPS,
        description="Operator-entered mean PHY (MCS) rate mu_R of the AP->STA link, in Mbit/s, from 1 (802.11's "
        "lowest rate) up; the aggregation-target loop's w_i = (l + l_oh)/mu_R (000 §IV-B). A rate published in "
        "Redis (the testbed's emulator ground truth) takes precedence; null = only that.",
    )


class Topology(Strict):
    aps: list[AccessPoint] = Field(
        min_length=1, max_length=APS_MAX, description="Access points behind the appliance."
    )
    stas: list[Station] = Field(
        min_length=1,
        max_length=STAS_MAX,
        description="Managed stations; every station makes one managed pair 'ap/sta' with its AP.",
    )
    # Lax only as to the pair's container: YAML, json.loads and FastAPI's body hand pydantic a list where the JSON
    # array is, which a strict tuple refuses in Python mode. Its two items stay strict strings.
    conflicts: list[Annotated[tuple[PairRef, PairRef], Field(strict=False)]] = Field(
        default_factory=list,
        max_length=CONFLICTS_MAX,
        description="Pairs whose links interfere (hidden terminals); two conflicting pairs never share a slice.",
    )


# ---------------------------------------------------------------- slice map


class Slice(Strict):
    duration_ms: JsonInt = Field(
        ge=SLICE_MIN_MS, le=SLICE_MAX_MS, description="Length of the slice S_s in milliseconds (typically 20-100 ms)."
    )
    pairs: list[PairRef] = Field(
        min_length=1,
        max_length=PAIRS_MAX,
        description="Pairs released in this slice; pairs that do not conflict may share it (spatial reuse).",
    )


class SliceMap(Strict):
    slices: list[Slice] = Field(
        min_length=1,
        max_length=SLICES_MAX,
        description=f"The frame: slices in order; the frame repeats. Total length at most {FRAME_MAX_MS} ms.",
    )

    @model_validator(mode="after")
    def _frame_length_bounded(self) -> SliceMap:
        total = self.frame_ms()
        if total > FRAME_MAX_MS:
            raise PydanticCustomError(
                "frame_too_long",
                "frame length is {total} ms, more than the {limit} ms allowed (sum of duration_ms)",
                {"total": total, "limit": FRAME_MAX_MS},
            )
        return self

    def frame_ms(self) -> int:
        return sum(s.duration_ms for s in self.slices)


# ---------------------------------------------------------------- policies


class TsAbrQd(Strict):
    """TS-ABR-QD batch adaptation, 004 §5: r(k+1) = max(0, r(k) + a(S - V(r(k))))."""

    a_pkts_per_ms: float = Field(
        gt=0,
        le=20,
        description="Robbins-Monro gain a in packets per ms; stable for 0 < a < 2*beta (beta = service rate). "
        "The paper used 1 packet/ms.",
    )
    r_init_pkts: JsonInt = Field(
        ge=1, le=65536, description="Batch size r at start and after a reset, in MTU packets."
    )
    r_min_pkts: JsonInt = Field(ge=1, le=65536, description="Lower bound of the batch size r, in MTU packets.")
    r_max_pkts: JsonInt = Field(ge=1, le=65536, description="Upper bound of the batch size r, in MTU packets.")
    v_cap_factor: float = Field(
        gt=1,
        le=10,
        description="A drain still open after v_cap_factor x S (lost ACKs) is closed at that value; dimensionless.",
    )
    rate_change_reset: float = Field(
        gt=0,
        le=10,
        description="Reset r to r_init when the pair's measured rate changes by more than this fraction (0.5 = 50 %).",
    )
    early_handover: bool = Field(
        default=False,
        description="When a drain ends with under 2 ms of its slice left (no refill), release the next slice's "
        "batches at once if they are queued whole, instead of at that slice's start. More throughput, but the "
        "previous AP's MAC retries then meet the next batch more often (testbed/findings/downlink-uplink.md). Off: the paper's "
        "fixed slice starts.",
    )

    @model_validator(mode="after")
    def _bounds_ordered(self) -> TsAbrQd:
        _lower_not_above_upper(self, "r_min_pkts", "r_max_pkts")
        if not self.r_min_pkts <= self.r_init_pkts <= self.r_max_pkts:
            raise PydanticCustomError(
                "range_order",
                "r_init_pkts ({v}) must lie within [r_min_pkts, r_max_pkts] = [{lo}, {hi}]",
                {"v": self.r_init_pkts, "lo": self.r_min_pkts, "hi": self.r_max_pkts, "field": "r_init_pkts"},
            )
        return self


class DynamicSlicing(Strict):
    """004 §6.3: a pair with an empty queue at its slice start gives the slice away."""

    enabled: bool = Field(description="Give idle slices to backlogged pairs of other slices.")
    pairs: list[PairRef] = Field(
        default_factory=list,
        max_length=PAIRS_MAX,
        description="Pairs that may take an idle slice, each at most once; empty = every pair.",
    )


class Realtime(Strict):
    """004 §6.4: real-time packets are released first at every slice start, never batched."""

    dscp: list[Annotated[int, Field(ge=0, le=63), INTEGRAL]] = Field(
        default_factory=list,
        max_length=RT_DSCP_MAX,
        description="DSCP code points classified as real-time (46 = EF).",
        json_schema_extra={"uniqueItems": True},
    )
    udp_ports: list[Annotated[int, Field(ge=1, le=65535), INTEGRAL]] = Field(
        default_factory=list,
        max_length=RT_PORTS_MAX,
        description="UDP ports (source or destination) classified as real-time.",
        json_schema_extra={"uniqueItems": True},
    )
    # Defaults: adwiser/config.h (ADW_RT_*_DEFAULT) says where they come from; dataplane/core/realtime_release.c why.
    hold_max_fraction: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Real-time packets wait at a slice start while a conflicting (hidden) AP still delivers its "
        "batch, at most this fraction of the slice (0-1; 0 = never wait). 0.5 = 10 ms of a 20 ms slice: that "
        "AP's drain overruns the slice start by up to ~7 ms (p99) on the emulated lab.",
    )
    guard_us: JsonInt = Field(
        default=340,
        ge=0,
        le=10000,
        description="A batch to a pair that conflicts with real-time packets just released waits this long per "
        "packet released (10 ms at most), in microseconds (0 = no guard): AIFS[VO] + CWmin[VO] + one short frame "
        "at MCS0 + SIFS + BlockAck at 6 Mbit/s, about 288 us, plus release jitter.",
    )

    @field_validator("dscp", "udp_ports")
    @classmethod
    def _no_repeats(cls, values: list[int]) -> list[int]:
        if len(set(values)) != len(values):
            raise PydanticCustomError("duplicate", "values repeat: {values}", {"values": values})
        return values


class QueueSizing(Strict):
    """A* (003 §IV-V): limit = min(Q_eBDP, q_ALT) per pair queue, drop-tail."""

    t_max_ms: float = Field(gt=0, le=10000, description="Delay target T_max of Q_eBDP = T_max/T_serv + c, in ms.")
    c_pkts: JsonInt = Field(ge=0, le=1024, description="Headroom c added to T_max/T_serv, in packets.")
    q_max_pkts: JsonInt = Field(ge=1, le=1048576, description="Upper clamp Q_max of the queue limit, in packets.")
    q_min_pkts: JsonInt = Field(ge=1, le=1048576, description="Lower clamp of the queue limit, in packets.")
    a1: float = Field(gt=0, le=10, description="q_ALT growth per unit of idle time, in packets per ms idle.")
    b1: float = Field(gt=0, le=10, description="q_ALT shrink per unit of busy time, in packets per ms busy.")
    ewma_alpha: float = Field(gt=0, le=1, description="EWMA weight of the per-packet service time T_serv (0-1].")

    @model_validator(mode="after")
    def _clamps_ordered(self) -> QueueSizing:
        _lower_not_above_upper(self, "q_min_pkts", "q_max_pkts")
        return self


class AggregationOverride(Strict):
    """Aggregation-target parameters for a group of pairs (a class of users)."""

    pairs: list[PairRef] = Field(min_length=1, max_length=PAIRS_MAX, description="Pairs these values apply to.")
    n_target_max: OptionalJsonInt = Field(
        default=None, ge=1, le=256, description="N-bar for these pairs: cap of the A-MPDU target, in MPDUs."
    )
    t_bar_ms: float | None = Field(
        default=None, gt=0, le=1000, description="T-bar for these pairs (as aggregation_target.t_bar_ms), in ms."
    )


class AggregationTarget(Strict):
    """000 §VI inner/outer loops: x = z/(c + w'z), N_target = min(nu W, N-bar)."""

    enabled: bool = Field(description="Pace the listed pairs to an A-MPDU aggregation target instead of slicing.")
    n_target_max: JsonInt = Field(
        ge=1, le=256, description="N-bar: cap of the aggregation target N_target, in MPDUs per A-MPDU (paper: 48)."
    )
    t_bar_ms: float = Field(
        gt=0, le=1000,
        description="T-bar: the AP delay the loops hold, in ms: 000 eq. (9) mu_N / x, the wait of each A-MPDU's first "
                    "packet, which bounds the mean packet queueing delay at the AP from above (the mean packet waits "
                    "part of it).",
    )
    k1: float = Field(gt=0, lt=2, description="Inner-loop gain K1 (z += K1 (N_target - mu_N)); dimensionless, paper "
                                              "0.5; stable for 0 < K1 < 2 (000 §VI-A3).")
    k2: float = Field(gt=0, lt=1, description="Outer-loop gain K2 (nu += K2 (G(x) - nu)); dimensionless, paper 0.2; "
                                              "0 < K2 < 1 (000 Lemma 2).")
    delta_s: float = Field(ge=0.01, le=60, description="Update interval Delta of the loops, in seconds (paper 0.5 s).")
    pairs: list[PairRef] = Field(
        default_factory=list,
        max_length=PAIRS_MAX,
        description="Pairs run in paced mode under this policy, each at most once; empty = none.",
    )
    c_beta: float = Field(
        default=0.05, gt=0, le=1, description="EWMA weight beta of the c estimator (000 eq. 40); paper 0.05."
    )
    c_init_us: float = Field(
        default=250.0,
        gt=0,
        le=100000,
        description="Initial value of c, the mean per-round channel-access overhead of the AP, in microseconds "
        "(000 §VI-A5: about 200 us for one 11ac station); adapted by the estimator (40).",
    )
    packet_bytes: JsonInt = Field(
        default=1500, ge=64, le=9000, description="Packet length l used in w and in pace rates, in bytes (IP packet)."
    )
    mpdu_overhead_bytes: JsonInt = Field(
        default=48, ge=0, le=256, description="MAC framing overhead l_oh per MPDU, in bytes (000 §VI-B: 48)."
    )
    n_max_mpdus: JsonInt = Field(
        default=64, ge=1, le=256, description="N_max: most MPDUs in one A-MPDU (BlockAck window); bounds z."
    )
    bottleneck_frames: JsonInt = Field(
        default=5, ge=1, le=64, description="n: aggregation samples the bottleneck classifier looks at (001 §5.2.1)."
    )
    bottleneck_packets: JsonInt = Field(
        default=100, ge=1, le=100000, description="p: packets over which the classifier's loss fraction is taken."
    )
    overrides: list[AggregationOverride] = Field(
        default_factory=list, max_length=PAIRS_MAX, description="Per-pair or per-class values of N-bar and T-bar."
    )


class Policies(Strict):
    ts_abr_qd: TsAbrQd
    dynamic_slicing: DynamicSlicing
    realtime: Realtime
    queue_sizing: QueueSizing
    aggregation_target: AggregationTarget


# ---------------------------------------------------------------- the document


Path = tuple[str | int, ...]


class FieldProblem(BaseModel):
    """One cross-field problem: where (path into the document) and what."""

    loc: list[str | int]
    message: str


def pair_name(sta: Station) -> str:
    return f"{sta.ap}/{sta.id}"


class AdwiserConfig(Strict):
    """The whole configuration of one appliance: topology, slice map, policies."""

    schema_version: Annotated[Literal[1], BeforeValidator(_not_a_boolean)] = Field(
        description="Version of this document format; currently 1."
    )
    appliance_id: Identifier = Field(description="The appliance this document configures (one controller, many appliances).")
    topology: Topology
    slice_map: SliceMap
    policies: Policies

    @model_validator(mode="after")
    def _cross_references(self) -> AdwiserConfig:
        problems = cross_reference_problems(self)
        if problems:
            first = problems[0]
            raise PydanticCustomError(
                "config_inconsistent",
                "{count} problem(s), first at {where}: {first}",
                {
                    "count": len(problems),
                    "where": dotted(first.loc),
                    "first": first.message,
                    "problems": [p.model_dump() for p in problems],
                },
            )
        return self

    def managed_pairs(self) -> list[str]:
        return [pair_name(s) for s in self.topology.stas]


def dotted(loc: list[str | int] | Path) -> str:
    """`['slice_map', 'slices', 1, 'pairs', 0]` -> `slice_map.slices[1].pairs[0]`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _duplicates(items: list[tuple[str, list[str | int]]], what: str) -> list[FieldProblem]:
    seen: dict[str, list[str | int]] = {}
    problems = []
    for value, loc in items:
        if value in seen:
            problems.append(FieldProblem(loc=loc, message=f"duplicate {what} {value!r}, already at {dotted(seen[value])}"))
        else:
            seen[value] = loc
    return problems


def _shared_links(aps: list[AccessPoint]) -> list[FieldProblem]:
    """APs on one port with one VLAN (None = untagged): nothing tells their frames apart (the dataplane's DPDK
    backend demultiplexes a port by VLAN id, its NFQUEUE backend's interface of an AP is <port>.<vlan>), so the
    dataplane's loader refuses them with this message (dataplane/dp/config_json.c)."""
    first: dict[tuple[str, int | None], AccessPoint] = {}
    problems = []
    for i, ap in enumerate(aps):
        other = first.setdefault((ap.port, ap.vlan), ap)
        if other is not ap:
            vlan = "untagged" if ap.vlan is None else f"vlan {ap.vlan}"
            problems.append(FieldProblem(
                loc=["topology", "aps", i, "vlan"],
                message=f"AP {ap.id!r} has the port and VLAN of AP {other.id!r} (port {ap.port!r}, {vlan}); "
                "APs on one port need each its own vlan, at most one untagged"))
    return problems


def cross_reference_problems(cfg: AdwiserConfig) -> list[FieldProblem]:
    """Every check that relates two parts of the document, each naming its field."""
    topo = cfg.topology
    problems: list[FieldProblem] = []
    problems += _duplicates([(ap.id, ["topology", "aps", i, "id"]) for i, ap in enumerate(topo.aps)], "AP id")
    problems += _shared_links(topo.aps)
    problems += _duplicates([(s.id, ["topology", "stas", i, "id"]) for i, s in enumerate(topo.stas)], "STA id")
    problems += _duplicates([(s.mac, ["topology", "stas", i, "mac"]) for i, s in enumerate(topo.stas)], "MAC")
    problems += _duplicates(
        [(ip, ["topology", "stas", i, "ips", j]) for i, s in enumerate(topo.stas) for j, ip in enumerate(s.ips)],
        "IP address",
    )
    ap_ids = {ap.id for ap in topo.aps}
    for i, sta in enumerate(topo.stas):
        if sta.ap not in ap_ids:
            problems.append(FieldProblem(loc=["topology", "stas", i, "ap"], message=f"unknown AP {sta.ap!r}"))

    pairs = set(cfg.managed_pairs())
    # The first STA of each id, as a search through the list finds it; searching per pair was quadratic in a
    # document of thousands of pairs that all name a renamed AP.
    sta_by_id: dict[str, Station] = {}
    for s in topo.stas:
        sta_by_id.setdefault(s.id, s)

    def check_ref(ref: str, loc: list[str | int]) -> bool:
        if ref in pairs:
            return True
        ap, _, sta = ref.partition("/")
        sta_obj = sta_by_id.get(sta)
        if sta_obj is None:
            msg = f"unknown STA {sta!r} in pair {ref!r}"
        elif ap not in ap_ids:
            msg = f"unknown AP {ap!r} in pair {ref!r}"
        else:
            msg = f"STA {sta!r} is associated with AP {sta_obj.ap!r}, not {ap!r} (pair {ref!r})"
        problems.append(FieldProblem(loc=loc, message=msg))
        return False

    # Each pair's conflicting pairs: a pair is checked against those, not against every pair of its slice (4096
    # pairs in one slice were 16.7 M comparisons).
    conflicts: dict[str, set[str]] = {}
    for i, (a, b) in enumerate(topo.conflicts):
        ok_a = check_ref(a, ["topology", "conflicts", i, 0])
        ok_b = check_ref(b, ["topology", "conflicts", i, 1])
        if a == b:
            problems.append(FieldProblem(loc=["topology", "conflicts", i], message=f"pair {a!r} conflicts with itself"))
        elif ok_a and ok_b:
            conflicts.setdefault(a, set()).add(b)
            conflicts.setdefault(b, set()).add(a)

    covered: set[str] = set()
    for si, sl in enumerate(cfg.slice_map.slices):
        in_slice: dict[str, int] = {}
        for pi, ref in enumerate(sl.pairs):
            loc: list[str | int] = ["slice_map", "slices", si, "pairs", pi]
            if not check_ref(ref, loc):
                continue
            if ref in in_slice:
                problems.append(FieldProblem(loc=loc, message=f"pair {ref!r} listed twice in this slice"))
                continue
            for other in sorted(conflicts.get(ref, set()) & in_slice.keys(), key=in_slice.__getitem__):
                problems.append(
                    FieldProblem(loc=loc, message=f"pair {ref!r} conflicts with {other!r} in the same slice")
                )
            in_slice[ref] = pi
            covered.add(ref)
    for i, sta in enumerate(topo.stas):
        name = pair_name(sta)
        if sta.ap in ap_ids and name not in covered:
            problems.append(
                FieldProblem(loc=["topology", "stas", i], message=f"managed pair {name!r} is in no slice of slice_map")
            )

    pol = cfg.policies
    n_max = pol.aggregation_target.n_max_mpdus
    for i, ap in enumerate(topo.aps):
        if ap.ampdu_ceiling_mpdus is not None and ap.ampdu_ceiling_mpdus > n_max:
            problems.append(FieldProblem(
                loc=["topology", "aps", i, "ampdu_ceiling_mpdus"],
                message=f"aggregation ceiling {ap.ampdu_ceiling_mpdus:g} MPDUs is above "
                f"policies.aggregation_target.n_max_mpdus ({n_max}), the most one A-MPDU holds"))
    # Both policies list pairs that must exist and appear at most once.
    for policy, listed in (("dynamic_slicing", pol.dynamic_slicing.pairs),
                           ("aggregation_target", pol.aggregation_target.pairs)):
        for i, ref in enumerate(listed):
            check_ref(ref, ["policies", policy, "pairs", i])
        problems += _duplicates([(ref, ["policies", policy, "pairs", i]) for i, ref in enumerate(listed)], "pair")
    # The loop takes a pair's N-bar and T-bar from one override (a repeat inside one override says the same).
    in_override: dict[str, list[str | int]] = {}
    for oi, ov in enumerate(pol.aggregation_target.overrides):
        mine: dict[str, list[str | int]] = {}
        for i, ref in enumerate(ov.pairs):
            loc: list[str | int] = ["policies", "aggregation_target", "overrides", oi, "pairs", i]
            check_ref(ref, loc)
            if ref in in_override:
                problems.append(FieldProblem(
                    loc=loc, message=f"pair {ref!r} is already in {dotted(in_override[ref])}: "
                                     "a pair takes its N-bar and T-bar from one override"))
            mine.setdefault(ref, loc)
        in_override = {**mine, **in_override}
    return problems
