"""Bottleneck location of a pair, WLAN or backhaul (001 §5).

When the AP is the bottleneck its queue builds and frames carry many MPDUs;
when the backhaul is, packets reach the AP spaced by the backhaul's rate, so
aggregation stays low while the flow sees loss (001 §5, Fig. 19(b)). The
classifier is the logistic model of 001 eq. (6) over the last n aggregation
samples and the loss fraction L^p over the last p packets:

    P(backhaul) = 1 / (1 + exp(-(θ0 + θ_N · mean_j(N_j / z) + θ_L · L^p)))

Differences from the paper, and why: (i) the aggregation samples are
normalised by z, the aggregation the loop expects at the AP for the rate it
paces (x = F⁻¹(z), 000 eq. 11): under the policy the WLAN-bottleneck
operating point is "as much aggregation as the paced rate produces", not a
free-running level, and when the backhaul carries less than x the packets
reach the AP spaced out and aggregation falls below z. (Normalising by
N_target instead deadlocks: a target that rises faster than the rate looks
like a backhaul limit, and holding the rate keeps it so.) The n samples
share one weight (their mean), the paper's n = 5 weights being near-equal by
symmetry. (ii) The coefficients below are NOT fitted on measurements: they
are set by hand from the geometry of 001 Fig. 19(b) so that a pair at its
expected aggregation without loss is WLAN (P ≈ 0.007), low aggregation with
about 1 % loss is backhaul, low aggregation without loss (an application
that sends less than its rate, or ĉ above the true c) and loss with high
aggregation (AP queue overflow) stay WLAN. Fitting them on the testbed's
ground truth (scikit-learn, like the ACK-burst estimator) is future work;
the version string travels with every status written.
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

COEFFICIENTS_VERSION = "hand-set-2"
THETA0 = 1.0
THETA_N = -6.0
THETA_L = 200.0


@dataclass(frozen=True)
class Verdict:
    bottleneck: str           # "wlan", "backhaul" or "unknown" (not enough samples yet)
    p_backhaul: float | None
    agg_ratio: float | None   # mean N_j / z over the last n samples
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

    def classify(self, expected: float) -> Verdict:
        """`expected`: the aggregation z the loop expects for the rate it paces."""
        if len(self.agg) < self.n or expected <= 0:
            return Verdict("unknown", None, None, self.loss())
        ratio = sum(self.agg) / len(self.agg) / expected
        loss = self.loss() or 0.0
        p = p_backhaul(ratio, loss)
        return Verdict("backhaul" if p > 0.5 else "wlan", p, ratio, loss)
