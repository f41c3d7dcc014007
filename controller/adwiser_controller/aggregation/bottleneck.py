"""Bottleneck location of a pair, WLAN or backhaul (001 §5).

When the AP is the bottleneck its queue builds and frames carry many MPDUs;
when the backhaul is, packets reach the AP spaced by the backhaul's rate, so
aggregation stays low while the flow sees loss (001 §5, Fig. 19(b)). The
classifier is the logistic model of 001 eq. (6) over the last n aggregation
samples and the loss fraction L^p over the last p packets:

    P(backhaul) = 1 / (1 + exp(-(θ0 + θ_N · mean_j(N_j / N_target) + θ_L · L^p)))

Differences from the paper, and why:

(i) The aggregation samples are normalised by N_target, the aggregation the
loop asks of the AP for the slot (000 (44): the level at which the AP's delay
is T̄, or N̄). Under the policy the WLAN-bottleneck operating point is "the
target", not a free-running standing queue, and the inner loop drives μ̃_N to
it; behind a slower backhaul packets reach the AP spaced out, the AP makes
the aggregation of the backhaul's rate whatever the loop asks, and μ̃_N stays
far below N_target. (hand-set-2 normalised by z, the aggregation of the paced
rate x = F⁻¹(z). Since the loop's conditional integration (loop.py) z is not
raised while the pair carries under 90 % of x, so behind a backhaul z stops at
the aggregation the backhaul's rate gives and μ̃_N / z stays near 1, as on a
WLAN bottleneck: aggtarget-backhaul at c47bedb, μ̃_N / z 1.05-1.16 with L^p
about 0 in every step, 0 % of steps on the backhaul.)

(ii) A pair that carried at least 90 % of its paced rate over the slot
(`pacer_limited`: the same test as the loop's conditional integration) is
never put on the backhaul: the backhaul sits upstream of the appliance, so it
carried that rate, and what limits the pair is the pacer. This is what keeps
(i) from deadlocking: a target that rises faster than the rate (the start-up
ramp), or a held pair whose backhaul has become fast again (μ̃_N then rises
only to the aggregation of the held rate, below N_target), carries its paced
rate, is WLAN, and the loop tracks again. Loss the appliance causes itself
(its tail drops at the A* limit while the pacer limits) is not blamed on the
backhaul either.

(iii) The n samples share one weight (their mean), the paper's n = 5 weights
being near-equal by symmetry. The coefficients below are NOT fitted on
measurements: they are set by hand from the geometry of 001 Fig. 19(b) so that
a pair at its target without loss is WLAN (P ≈ 0.007), low aggregation with
about 1 % loss is backhaul, aggregation below 1/6 of the target is backhaul
even without loss (a deep backhaul buffer: TCP loses a few packets every few
seconds, L^p is 0 in most windows), aggregation between 1/6 of the target and
the target without loss (the start-up ramp, an application that sends less
than its rate) and loss with high aggregation (AP queue overflow) stay WLAN.
They are hand-set-2's; only the reference of the aggregation feature (i) and
the pacer-limited rule (ii) changed. Fitting them on the testbed's ground
truth (scikit-learn, like the ACK-burst estimator) is future work; the
version string travels with every status written.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

COEFFICIENTS_VERSION = "hand-set-3"  # hand-set-2's θ; aggregation / N_target, pacer-limited rule
THETA0 = 1.0
THETA_N = -6.0
THETA_L = 200.0


@dataclass(frozen=True)
class Verdict:
    bottleneck: str           # "wlan", "backhaul" or "unknown" (not enough samples yet)
    p_backhaul: float | None
    agg_ratio: float | None   # mean N_j / N_target over the last n samples
    loss: float | None        # L^p


def p_backhaul(agg_ratio: float, loss: float) -> float:
    logit = THETA0 + THETA_N * agg_ratio + THETA_L * loss
    if logit >= 0:
        return 1.0 / (1.0 + math.exp(-logit))
    e = math.exp(logit)
    return e / (1.0 + e)


@dataclass
class PairWindow:
    """The last n aggregation samples and the last p packets' loss counts of one pair."""

    n: int
    p: int
    agg: deque[float] = field(default_factory=deque)
    # (packets, lost) per telemetry sample, newest last, trimmed to cover about p packets
    pkts: deque[tuple[int, int]] = field(default_factory=deque)

    def add_aggregation(self, n_mpdus: float) -> None:
        self.agg.append(n_mpdus)
        while len(self.agg) > self.n:
            self.agg.popleft()

    def add_packets(self, packets: int, lost: int) -> None:
        if packets <= 0 and lost <= 0:
            return
        self.pkts.append((max(packets, 0), max(lost, 0)))
        while len(self.pkts) > 1 and sum(p for p, _ in list(self.pkts)[1:]) >= self.p:
            self.pkts.popleft()

    def loss(self) -> float | None:
        total = sum(p for p, _ in self.pkts)
        lost = sum(l for _, l in self.pkts)
        if total + lost <= 0:
            return None
        return lost / (total + lost)

    def classify(self, target: float, pacer_limited: bool = False) -> Verdict:
        """`target`: the N_target the loop asked of the AP for the slot just measured;
        `pacer_limited`: the pair carried (nearly) its paced rate over that slot (docstring (ii))."""
        if len(self.agg) < self.n or target <= 0:
            return Verdict("unknown", None, None, self.loss())
        ratio = sum(self.agg) / len(self.agg) / target
        loss = self.loss() or 0.0
        p = p_backhaul(ratio, loss)
        return Verdict("backhaul" if p > 0.5 and not pacer_limited else "wlan", p, ratio, loss)
