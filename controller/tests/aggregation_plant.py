"""The downlink WLAN of 000 §IV as the loops' plant, for tests: mean aggregation
μ_N = Π[1, N_max](c x / (1 - wᵀx)) (eq. 8) and mean AP delay c + wᵀμ_N (eq. 10, 12),
with the true c and MCS rates chosen by the test (the controller only knows its
estimate ĉ). Deterministic: the loops' behaviour, not the MAC's noise, is under test."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Plant:
    c_s: float
    rates_bps: dict[str, float]
    l_bytes: int = 1500
    l_oh_bytes: int = 48
    n_max: float = 64.0

    def w(self, sta: str) -> float:
        return (self.l_bytes + self.l_oh_bytes) * 8.0 / self.rates_bps[sta]

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
