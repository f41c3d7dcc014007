"""The aggregation-target scenarios (issue 9; 000 §VI, 001 §5): which pairs, T̄, the
backhaul, a mid-run step, UDP or TCP, where the loop's μ̃_N comes from, and the
air each runs on. runner/aggtarget.py runs them; aggtarget_figures.py measures
them against the goals.

One-STA scenarios run on the 2AP-2STA lab's 802.11ac air (only AP1-STA1
carries traffic); several STAs run on agg_lab.py (one AP, air config
air/aggtarget-1ap-3sta-vht80.json: STAs at high, middle and low MCS, or that
air with the scenario's own STAs: scenario_air).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from . import agg_lab

AIR_DIR = Path(__file__).resolve().parents[1] / "air"
VHT_AIR = AIR_DIR / "lab-2ap-2sta-vht80.json"
MULTI_AIR = AIR_DIR / "aggtarget-1ap-3sta-vht80.json"
TCP_MODES = ("aggtarget", "cubic", "bbr")
UDP_MODES = ("aggtarget", "udp")       # udp = the same UDP stream forwarded straight (no pacing)
MODES = ("aggtarget", "cubic", "bbr", "udp")


@dataclass(frozen=True)
class AggScenario:
    name: str
    pairs: tuple[tuple[str, str], ...]
    t_bar_ms: float
    backhaul_mbit: float | None = None     # wan-emu rate between server and appliance
    backhaul_delay_ms: float = 1.0
    unsupported: str = ""                  # why this testbed cannot run it (empty = it can)
    # Mid-run steps at step_at_frac of the run. rss_step_db: the measured pair's AP<->STA path loses
    # this much (an obstacle, the STA moving; wlan-emu --rss-step, applied by SIGUSR1), so Minstrel
    # steps its MCS down. step_pair: bulk TCP starts on this (hidden, conflicting) pair instead, whose
    # overlapping transmissions make Minstrel step the MCS down with collisions besides (004 §4.1).
    rss_step_db: float | None = None
    step_pair: tuple[str, str] | None = None
    step_at_frac: float = 0.5
    # Bulk UDP offered at this rate (Mbit/s) instead of bulk TCP, as in 000 §VII (iperf UDP
    # downlink): above what the air carries, so the straight run saturates the AP and, controlled,
    # the pacer sets the rate and the appliance's A* limit drops the rest.
    udp_offered_mbit: float | None = None
    # Several STAs on an air derived from MULTI_AIR with these AP<->STA RSS (dBm, one per STA:
    # agg_lab.air_config) instead of MULTI_AIR's own three STAs.
    ap_sta_rss_dbm: tuple[float, ...] | None = None
    # Where the loop's μ̃_N comes from: "sta", the emulator's ground truth as a STA-side agent (gt_feed);
    # "agent", adwiser-sta-agent in each STA's namespace (kernel receive timestamps and the classifier of
    # configs/sta_frame_model.json, 001 §4); "ack", the appliance alone, its ACK-burst estimate (agg_est,
    # 001 §4.1) with the shipped coefficients, as on a campus without STA agents. The PHY rate comes from the
    # ground truth in every case.
    mu_source: str = "sta"

    @property
    def modes(self) -> tuple[str, ...]:
        return UDP_MODES if self.udp_offered_mbit is not None else TCP_MODES

    @property
    def straight_mode(self) -> str:
        """The straight-forwarding run the goals compare against and the AP ceiling is measured in."""
        return "udp" if self.udp_offered_mbit is not None else "cubic"


SCENARIOS = {s.name: s for s in (
    AggScenario("aggtarget-1sta", (("ap1", "sta1"),), t_bar_ms=5.0),
    # T-bar below c + N-bar w of this link (about 2 ms at its ~350 Mbit/s PHY rate): the regime in which
    # N-bar does not bind and the delay goal applies (T-bar 5 and 10 ms bind N-bar at 11ac rates).
    AggScenario("aggtarget-1sta-lowdelay", (("ap1", "sta1"),), t_bar_ms=1.5),
    # The same with UDP at 300 Mbit/s offered (the air carries about 215): the loop without TCP's
    # own dynamics (slow start, ACKs on the air, the window limiting the rate).
    AggScenario("aggtarget-1sta-lowdelay-udp", (("ap1", "sta1"),), t_bar_ms=1.5, udp_offered_mbit=300.0),
    # -lowdelay and -1sta with μ̃_N from the appliance's ACK-burst estimate instead of the ground truth.
    AggScenario("aggtarget-1sta-lowdelay-ack", (("ap1", "sta1"),), t_bar_ms=1.5, mu_source="ack"),
    AggScenario("aggtarget-1sta-ack", (("ap1", "sta1"),), t_bar_ms=5.0, mu_source="ack"),
    AggScenario("aggtarget-1sta-agent", (("ap1", "sta1"),), t_bar_ms=5.0, mu_source="agent"),
    AggScenario("aggtarget-backhaul", (("ap1", "sta1"),), t_bar_ms=5.0, backhaul_mbit=100.0),
    AggScenario("aggtarget-3sta-mixed-mcs", (("ap1", "sta1"), ("ap1", "sta2"), ("ap1", "sta3")), t_bar_ms=10.0),
    # Two and three STAs on the appliance alone: the ACK-burst scale at those STA counts (fitted on the
    # ground-truth runs above) tested where the loop runs on it.
    AggScenario("aggtarget-3sta-mixed-mcs-ack", (("ap1", "sta1"), ("ap1", "sta2"), ("ap1", "sta3")), t_bar_ms=10.0,
                mu_source="ack"),
    # Two and five STAs (issue 9: one AP with 1, 2 and 5 STAs at different MCS), from high to low MCS as
    # in the three-STA air (-50 / -62 / -70 dBm there).
    AggScenario("aggtarget-2sta-mixed-mcs", (("ap1", "sta1"), ("ap1", "sta2")), t_bar_ms=10.0,
                ap_sta_rss_dbm=(-50.0, -66.0)),
    AggScenario("aggtarget-2sta-mixed-mcs-ack", (("ap1", "sta1"), ("ap1", "sta2")), t_bar_ms=10.0,
                ap_sta_rss_dbm=(-50.0, -66.0), mu_source="ack"),
    AggScenario("aggtarget-5sta-mixed-mcs", tuple(("ap1", f"sta{i}") for i in range(1, 6)), t_bar_ms=10.0,
                ap_sta_rss_dbm=(-50.0, -56.0, -62.0, -66.0, -70.0)),
    # The same on the appliance alone (μ̃_N of each pair from its own ACKs, as -1sta-ack): equal airtime
    # then rests on the estimate's error being alike across MCS.
    AggScenario("aggtarget-5sta-mixed-mcs-ack", tuple(("ap1", f"sta{i}") for i in range(1, 6)), t_bar_ms=10.0,
                ap_sta_rss_dbm=(-50.0, -56.0, -62.0, -66.0, -70.0), mu_source="ack"),
    # The same with a STA-side agent on every STA (adwiser-sta-agent, SPEC §3.7): μ̃_N measured where the
    # A-MPDUs arrive, from kernel timestamps, instead of read from the emulator's ground truth.
    AggScenario("aggtarget-5sta-mixed-mcs-agent", tuple(("ap1", f"sta{i}") for i in range(1, 6)), t_bar_ms=10.0,
                ap_sta_rss_dbm=(-50.0, -56.0, -62.0, -66.0, -70.0), mu_source="agent"),
    # The same five STAs at T-bar 5 ms: their round c + Σ w N-bar (c 3-4 ms for five STAs with their TCP
    # ACKs, Σ w N-bar about 2.6 ms at this AP's ceiling) is over 5 ms, so N-bar does not bind and the delay
    # goal applies at one of the example targets.
    AggScenario("aggtarget-5sta-mixed-mcs-5ms", tuple(("ap1", f"sta{i}") for i in range(1, 6)), t_bar_ms=5.0,
                ap_sta_rss_dbm=(-50.0, -56.0, -62.0, -66.0, -70.0)),
    # The MCS of sta1 drops mid-run: its link to AP1 loses 6 dB (-64.6 to -70.6 dBm at the STA), from
    # 2 SS MCS4 to MCS2 (802.11-2016 Table 21-25: MCS3 needs -68, MCS2 -71 dBm at 80 MHz), the MCS
    # values of 000 Fig. 10(b). T-bar as in -lowdelay, so that N-bar does not bind before the step nor once
    # the loop has settled after it (it does for the few steps in which N_target meets the lower N-bar).
    AggScenario("aggtarget-mcs-step", (("ap1", "sta1"),), t_bar_ms=1.5, rss_step_db=-6.0),
    # The MCS of sta1 drops the way it drops in the lab: AP2-STA2, hidden from AP1 (004 Table 2),
    # starts sending mid-run. This adds collisions and loss, a harsher step than a pure MCS change.
    AggScenario("aggtarget-hidden-step", (("ap1", "sta1"),), t_bar_ms=1.5, step_pair=("ap2", "sta2")),
)}


def scenario_air(sc: AggScenario, out: Path) -> Path:
    """The air config the scenario runs on: the 2AP-2STA lab's 802.11ac air for one pair, MULTI_AIR for
    several, or MULTI_AIR with the scenario's STAs (agg_lab.air_config) written to out/air.json."""
    if len(sc.pairs) == 1:
        return VHT_AIR
    if sc.ap_sta_rss_dbm is None:
        return MULTI_AIR
    if len(sc.ap_sta_rss_dbm) != len(sc.pairs):
        raise ValueError(f"{sc.name}: {len(sc.ap_sta_rss_dbm)} AP<->STA RSS values for {len(sc.pairs)} pairs")
    path = out / "air.json"
    path.write_text(json.dumps(agg_lab.air_config(json.loads(MULTI_AIR.read_text()), list(sc.ap_sta_rss_dbm)),
                               indent=1) + "\n")
    return path


def get(name: str) -> AggScenario:
    try:
        return SCENARIOS[name]
    except KeyError:
        raise KeyError(f"unknown aggregation-target scenario {name!r}; known: {', '.join(SCENARIOS)}") from None
