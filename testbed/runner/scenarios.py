"""The scenario registry: a scenario is a few declarative fields, the runner
(experiment.py) does the rest.

  direction  downlink (server -> STAs) or uplink (STAs -> server), bulk TCP
  alone      True: each pair runs by itself in turn (the paper's "isolated")
  slice_ms   time-slice per pair (S1 = S2, pairs alternate) or None
  wan        True: wan-emu between server and appliance (75 ms, 200 Mbit/s)
  backend    none (Linux bridge), dpdk or nfqueue (adwiser-dp in <P>appl)
  mix        None (bulk TCP at every pair), "http" or "voice": STA1 downlink
             bulk TCP while STA2 loads web pages / talks packet voice (mixed.py);
             "voice-only": the voice with STA1 idle
  dynamic_slicing  the dataplane gives an idle pair's slice away (SPEC §3.3)

Tables 3 and 4 of 004 §6 name the rows these reproduce; Tables 5 and 6 the
mixed ones.
"""
from __future__ import annotations

from dataclasses import dataclass

DIRECTIONS = ("downlink", "uplink")
BACKENDS = ("none", "dpdk", "nfqueue")
MIXES = (None, "http", "voice", "voice-only")
PAIRS = (("ap1", "sta1"), ("ap2", "sta2"))  # configs/lab-2ap-2sta.yaml


@dataclass(frozen=True)
class Scenario:
    name: str
    direction: str
    alone: bool = False
    slice_ms: float | None = None
    wan: bool = False
    backend: str = "none"
    paper_row: str = ""  # the row of 004 Table 3/4 it corresponds to
    mix: str | None = None
    dynamic_slicing: bool = False

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"scenario {self.name}: direction {self.direction!r} not in {DIRECTIONS}")
        if self.backend not in BACKENDS:
            raise ValueError(f"scenario {self.name}: backend {self.backend!r} not in {BACKENDS}")
        if (self.slice_ms is None) != (self.backend == "none"):
            raise ValueError(f"scenario {self.name}: a time-slice needs a backend and vice versa")
        if self.mix not in MIXES:
            raise ValueError(f"scenario {self.name}: mix {self.mix!r} not in {MIXES}")
        if self.mix is not None and (self.direction != "downlink" or self.alone):
            raise ValueError(f"scenario {self.name}: mixed traffic runs with a downlink bulk transfer, together")
        if self.dynamic_slicing and self.slice_ms is None:
            raise ValueError(f"scenario {self.name}: dynamic slicing needs time-slicing")

    @property
    def isolated_reference(self) -> str:
        """The scenario whose throughputs are this one's β_i (same direction)."""
        return "isolated" if self.direction == "downlink" else "isolated-uplink"


REGISTRY: dict[str, Scenario] = {}


def register(s: Scenario) -> Scenario:
    if s.name in REGISTRY:
        raise ValueError(f"scenario {s.name} registered twice")
    REGISTRY[s.name] = s
    return s


def get(name: str) -> Scenario:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known: {', '.join(sorted(REGISTRY))}") from None


# Straight forwarding (issue 3): the calibration rows.
register(Scenario("isolated", "downlink", alone=True, paper_row="Isolated"))
register(Scenario("together", "downlink", paper_row="Together"))
register(Scenario("isolated-uplink", "uplink", alone=True, paper_row="Isolated"))
register(Scenario("together-uplink", "uplink", paper_row="Together"))
register(Scenario("together-wan", "downlink", wan=True, paper_row=""))

# Time-slicing with adwiser-dp (issue 4): predictions, not fits.
register(Scenario("downlink-100ms", "downlink", slice_ms=100, backend="dpdk", paper_row="S=100ms"))
register(Scenario("downlink-20ms", "downlink", slice_ms=20, backend="dpdk", paper_row="S=20ms"))
register(Scenario("downlink-wan-20ms", "downlink", slice_ms=20, wan=True, backend="dpdk",
                  paper_row="WAN S=20ms"))
register(Scenario("uplink-100ms", "uplink", slice_ms=100, backend="dpdk", paper_row="S=100ms"))
register(Scenario("uplink-20ms", "uplink", slice_ms=20, backend="dpdk", paper_row="S=20ms"))
register(Scenario("uplink-wan-20ms", "uplink", slice_ms=20, wan=True, backend="dpdk",
                  paper_row="WAN S=20ms"))
register(Scenario("downlink-20ms-nfqueue", "downlink", slice_ms=20, backend="nfqueue",
                  paper_row="S=20ms"))

# Mixed traffic (issue 5, 004 §6.3-6.4): STA1 downlink bulk TCP with, at STA2,
# web pages (Table 5) or packet voice (Table 6). With slicing, dynamic slicing
# is on: AP2-STA2's slice goes to AP1-STA1 whenever its queue is empty (think
# times; voice is real-time and never batched, so every slice goes to AP1-STA1).
register(Scenario("http-bulk", "downlink", slice_ms=20, backend="dpdk", mix="http",
                  dynamic_slicing=True, paper_row="ADWISER S=20ms"))
register(Scenario("http-bulk-noslicing", "downlink", mix="http", paper_row="Without ADWISER"))
register(Scenario("voice-bulk", "downlink", slice_ms=20, backend="dpdk", mix="voice",
                  dynamic_slicing=True, paper_row="ADWISER S=20ms"))
register(Scenario("voice-bulk-noslicing", "downlink", mix="voice", paper_row="Without ADWISER"))
register(Scenario("voice-only", "downlink", mix="voice-only", paper_row="Only Voice"))
