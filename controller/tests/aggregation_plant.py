"""The downlink WLAN of 000 §IV as the loops' plant, for tests: mean aggregation
μ_N = Π[1, N_max](c x / (1 - wᵀx)) (eq. 8) and mean AP delay c + wᵀμ_N (eq. 10, 12),
with the true c and MCS rates chosen by the test (the controller only knows its
estimate ĉ). Deterministic: the loops' behaviour, not the MAC's noise, is under test."""

from __future__ import annotations

from dataclasses import dataclass, field


def mpdu_airtime_s(l_bytes: int, l_oh_bytes: int, rate_bps: float) -> float:
    """w: the airtime of one MPDU of l bytes plus l_oh of framing at rate_bps (000 eq. 4)."""
    return (l_bytes + l_oh_bytes) * 8.0 / rate_bps


@dataclass
class Plant:
    c_s: float
    rates_bps: dict[str, float]
    l_bytes: int = 1500
    l_oh_bytes: int = 48
    n_max: float = 64.0

    def w(self, sta: str) -> float:
        return mpdu_airtime_s(self.l_bytes, self.l_oh_bytes, self.rates_bps[sta])

    def aggregation(self, x_pps: dict[str, float]) -> dict[str, float]:
        wx = sum(self.w(s) * x for s, x in x_pps.items())
        if wx >= 1.0:  # overload: queues grow, every frame full (regime 1)
            return {s: self.n_max for s in x_pps}
        return {s: min(max(self.c_s * x / (1.0 - wx), 1.0), self.n_max) for s, x in x_pps.items()}

    def delay_s(self, mu: dict[str, float]) -> float:
        return self.c_s + sum(self.w(s) * m for s, m in mu.items())

    def airtime_shares(self, mu: dict[str, float]) -> dict[str, float]:
        t = {s: self.w(s) * m for s, m in mu.items()}
        return {s: v / sum(t.values()) for s, v in t.items()}


@dataclass
class ApQueuePlant:
    """One AP's per-station queues with memory, fluid: every round of c + Σ w_i n_i the AP sends each
    station n_i = min(Q_i, N_cap_i), N_cap_i the MPDUs its A-MPDU airtime ceiling holds at the
    station's rate, while packets arrive at the paced rates x. Unlike Plant, a rate above what the
    round carries leaves a backlog that must be drained (000 §IV regime 1): what a loop does after an
    MCS drop, or from a start whose rates the AP cannot carry, shows here. Deterministic."""
    c_s: float
    rates_bps: dict[str, float]
    ceiling_s: float
    q_pkts: dict[str, float] = field(default_factory=dict)
    l_bytes: int = 1500
    l_oh_bytes: int = 48

    def w(self, sta: str) -> float:
        return mpdu_airtime_s(self.l_bytes, self.l_oh_bytes, self.rates_bps[sta])

    def run(self, x_pps: dict[str, float], slot_s: float) -> Slot:
        """Holds x for slot_s; returns what a STA-side agent would count over the slot."""
        w = {s: self.w(s) for s in x_pps}
        cap = {s: self.ceiling_s / w[s] for s in x_pps}
        full_round = self.c_s + sum(w[s] * cap[s] for s in x_pps)
        t, frames, mpdus, delay_sum = 0.0, dict.fromkeys(x_pps, 0), dict.fromkeys(x_pps, 0.0), dict.fromkeys(x_pps, 0.0)
        while t < slot_s:
            n = {s: min(self.q_pkts.get(s, 0.0), cap[s]) for s in x_pps}
            dur = self.c_s + sum(w[s] * n[s] for s in x_pps)
            for s, x in x_pps.items():
                self.q_pkts[s] = self.q_pkts.get(s, 0.0) + x * dur - n[s]
                if n[s] >= 1.0:
                    frames[s], mpdus[s] = frames[s] + 1, mpdus[s] + n[s]
                backlog = self.q_pkts[s] > cap[s]
                delay_sum[s] += (self.q_pkts[s] / cap[s] * full_round if backlog else n[s] / max(x, 1.0)) * dur
            t += dur
        return Slot(mu={s: mpdus[s] / frames[s] if frames[s] else 1.0 for s in x_pps},
                    received_pps={s: mpdus[s] / t for s in x_pps},
                    delay_s={s: delay_sum[s] / t for s in x_pps})


@dataclass(frozen=True)
class Slot:
    mu: dict[str, float]              # μ̃_N over the slot's A-MPDUs
    received_pps: dict[str, float]    # MPDUs the stations received per second (the plant loses none)
    delay_s: dict[str, float]         # mean queueing delay, s
