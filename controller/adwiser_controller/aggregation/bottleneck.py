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
being near-equal by symmetry.

The coefficients are FITTED, the paper's way (001 §5.2.1), on the testbed:
31 runs of the aggregation-target policy (T̄ 1.5, 5 and 10 ms) with a wan-emu
backhaul at 40-120 Mbit/s (below the WLAN's 114-151 Mbit/s under the policy),
at 250-300 Mbit/s, or unlimited, each 0.5 s step labelled by which link was
the narrower (testbed/runner/bottleneck_capture.py, bottleneck_train.py:
scikit-learn logistic regression; held-out figures in
testbed/results/bottleneck-classifier.json). They are shipped as a versioned
file, configs/bottleneck_model.json (`ADWISER_BOTTLENECK_MODEL` or
`aggregation-loop --bottleneck-model FILE` name another), loaded once at the
loop's start; a malformed file is refused naming the field. The version
string travels with every status written. The fit puts the boundary at
agg_ratio ≈ 0.53 without loss; L^p's fitted weight is small and negative
(θ_L ≈ -10: 1 % loss moves the logit by 0.1), unlike the paper's: the 2 MB
backhaul queue drops only a few packets per run, and the WLAN side loses
some too, so loss does not tell the two apart on this testbed. An
application that sends less than its paced rate looks like a backhaul here
(low aggregation, not pacer-limited; no such runs were in the data): its rate
is then held, which it does not use anyway. (Before: hand-set-3, θ = (1, -6,
200) set from the geometry of Fig. 19(b); it put the aggtarget-backhaul run
at p 0.50-0.58, on the boundary.)
"""
from __future__ import annotations

import json
import math
import os
from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

MODEL_KIND = "adwiser-bottleneck-classifier"
FEATURES = ("agg_ratio", "loss")   # what PairWindow.classify computes, in this order
DEFAULT_MODEL_PATH = Path(__file__).resolve().parents[3] / "configs" / "bottleneck_model.json"
MODEL_ENV = "ADWISER_BOTTLENECK_MODEL"


class ModelError(ValueError):
    """The coefficient file is missing or malformed; the message names the file and the field."""


@dataclass(frozen=True)
class Model:
    version: str
    intercept: float
    coef_agg_ratio: float
    coef_loss: float
    threshold: float = 0.5


def _number(doc: dict[str, Any], key: str, where: str) -> float:
    v = doc.get(key)
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ModelError(f"{where}: {key}: expected a finite number, got {v!r}")
    return float(v)


def parse_model(doc: Any, where: str = "bottleneck model") -> Model:
    if not isinstance(doc, dict):
        raise ModelError(f"{where}: expected a JSON object, got {type(doc).__name__}")
    if doc.get("model") != MODEL_KIND:
        raise ModelError(f"{where}: model: expected {MODEL_KIND!r}, got {doc.get('model')!r}")
    version = doc.get("version")
    if not isinstance(version, str) or not version.strip():
        raise ModelError(f"{where}: version: expected a non-empty string, got {version!r}")
    if doc.get("features") != list(FEATURES):
        raise ModelError(f"{where}: features: expected {list(FEATURES)} (what the controller computes), "
                         f"got {doc.get('features')!r}")
    coef = doc.get("coef")
    if not isinstance(coef, dict) or set(coef) != set(FEATURES):
        raise ModelError(f"{where}: coef: expected an object with exactly {list(FEATURES)}, got {coef!r}")
    threshold = _number(doc, "threshold", where) if "threshold" in doc else 0.5
    if not 0.0 < threshold < 1.0:
        raise ModelError(f"{where}: threshold: expected 0 < threshold < 1, got {threshold!r}")
    return Model(version=version, intercept=_number(doc, "intercept", where),
                 coef_agg_ratio=_number(coef, "agg_ratio", f"{where}: coef"),
                 coef_loss=_number(coef, "loss", f"{where}: coef"), threshold=threshold)


def load_model(path: str | os.PathLike[str]) -> Model:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise ModelError(f"{p}: cannot read the bottleneck classifier's coefficients: {e.strerror or e}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ModelError(f"{p}: not JSON: {e}") from None
    return parse_model(doc, str(p))


@lru_cache(maxsize=1)
def default_model() -> Model:
    """The shipped file, or the one $ADWISER_BOTTLENECK_MODEL names."""
    return load_model(os.environ.get(MODEL_ENV) or DEFAULT_MODEL_PATH)


@dataclass(frozen=True)
class Verdict:
    bottleneck: str           # "wlan", "backhaul" or "unknown" (not enough samples yet)
    p_backhaul: float | None
    agg_ratio: float | None   # mean N_j / N_target over the last n samples
    loss: float | None        # L^p


def p_backhaul(agg_ratio: float, loss: float, model: Model | None = None) -> float:
    m = model or default_model()
    logit = m.intercept + m.coef_agg_ratio * agg_ratio + m.coef_loss * loss
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

    def resize(self, n: int, p: int) -> None:
        """A new n and p (a version's bottleneck_frames, bottleneck_packets), the window cut to them at once: cut
        only by the next sample, a pair idle in the step got a verdict over the samples of the old, larger window."""
        self.n, self.p = n, p
        self._trim()

    def add_aggregation(self, n_mpdus: float) -> None:
        self.agg.append(n_mpdus)
        self._trim()

    def add_packets(self, packets: int, lost: int) -> None:
        if packets <= 0 and lost <= 0:
            return
        self.pkts.append((max(packets, 0), max(lost, 0)))
        self._trim()

    def _trim(self) -> None:
        """The last n aggregation samples; the newest telemetry samples that cover at least p packets."""
        while len(self.agg) > self.n:
            self.agg.popleft()
        while len(self.pkts) > 1 and sum(p for p, _ in list(self.pkts)[1:]) >= self.p:
            self.pkts.popleft()

    def loss(self) -> float | None:
        total = sum(p for p, _ in self.pkts)
        lost = sum(l for _, l in self.pkts)
        if total + lost <= 0:
            return None
        return lost / (total + lost)

    def classify(self, target: float, pacer_limited: bool = False, model: Model | None = None) -> Verdict:
        """`target`: the N_target the loop asked of the AP for the slot just measured;
        `pacer_limited`: the pair carried (nearly) its paced rate over that slot (docstring (ii));
        `model`: the coefficients (default: default_model())."""
        if len(self.agg) < self.n or target <= 0:
            return Verdict("unknown", None, None, self.loss())
        # each sample divided before the sum: finite samples (agg_est) whose sum overflowed gave a ratio of inf, and
        # the status JSON carried it (the mean so taken is no larger than the largest sample)
        ratio = sum(a / len(self.agg) for a in self.agg) / target
        loss = self.loss() or 0.0
        m = model or default_model()
        p = p_backhaul(ratio, loss, m)
        return Verdict("backhaul" if p > m.threshold and not pacer_limited else "wlan", p, ratio, loss)
