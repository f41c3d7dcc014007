"""The inner-outer aggregation-target controller of 000 §VI, for one AP.

Pure: no I/O and no clock of its own; the caller passes the measurements of
the slot that just ended (every Δ) and applies the rates it returns.

Units: rates x_i in packets/s, w_i in s/packet, c in s, aggregation levels
(z, N_target, μ̃_N) in MPDUs per A-MPDU. Station order inside the AP does not
matter; "station 1" of the paper (the lowest MCS rate, largest w) is found
at every step.

One step k -> k+1, with the measurement μ̃_N(k) taken while x(k) was held:

  ĉ(k+1)       = (1-β) ĉ(k) + β č(k),  č = μ̃_N1/x_1 · (1 - wᵀx)        (40)
                 (x here the rates the appliance released over the slot, where measured)
  ν(k+1)       = max(ν(k) + K2 (G(x(k)) - ν(k)), 1), G(x) = min(T̄ x_1, ν_max) (43)
  N_target(k+1)= min(ν(k+1) W(k), N̄),  W_i = w_1/w_i                       (44)
  z(k+1)       = z(k) + K1 (N_target(k) - μ̃_N(k))                          (45)
  x(k+1)       = z(k+1) / (ĉ + wᵀ z(k+1))                                  (46)

so that N_target ∝ MCS rate and every station gets the same airtime
(w_i N_i = ν w_1, 000 §V-C). ν_max = min_i N̄_i w_i/w_1 replaces the paper's N̄
in G so that equal airtime also holds when N̄ binds (see nu_max).

The start (initial): ν(1) = max(ν_max, 1), the top of Lemma 2's range [1, N̄], with z(1) = W,
the rates of ν = 1; the first č replaces c_init instead of entering (40) at weight β,
and the second replaces it if smaller; each replacement re-expresses z at the rates of
the slot it measured, so that a replaced ĉ does not move the rates by itself.
A change of a pair's MCS rate, or of which pairs there are, scales ν by station 1's
w_old/w_new (the slowest pair at each step, _nu_feed_forward), not above max(ν_max, 1) at
the new rates nor down while G sits at ν_max (_fed_forward_nu), and the targets of (45) are
(44) at that ν (before N̄'s cut, _fed_forward_targets), before the step; z follows through
(45) (feed-forward, _mcs_feed_forward).

Production guards the paper is silent on: (45) keeps z in [1, N_max] (an application
that does not fill its rate would otherwise wind z up without bound; a z that only
re-expresses a held rate is not cut, _z_at_rates); a station
with no measurement this slot keeps its z; a pair that joins starts at its share
of ν (carried to the new station 1) and enters (40) and (45) from the first slot paced
at its rate (the slot it joined in held none); while a pair carries less than its paced rate z is not
raised and is brought down to the aggregation it produced (anti-windup by
conditional integration and back-calculation: the pacer is not the limit then);
č is only used when it is finite and positive and is clamped to [C_MIN_S,
C_MAX_S], and not from a slot in which a pair's AP queue grew (ap_queue_grew: (8)
holds only while the AP carries what arrives), nor from a pair whose A-MPDUs were no larger than
an arrival burst (BURST_MPDUS: (8)'s floor, where it cannot be inverted) or whose traffic filled only
part of the slot (busy_part_of_slot); while the bottleneck is the backhaul
(001 §5) the loop holds z, ĉ and the pairs' airtime (their rates, carried across an MCS
change, _held_rates, with ν and the targets fed forward from the step before the hold, _hold_all) instead of chasing the
target, and while only some pairs' is, it holds their airtime and keeps their z at the value
(46) maps to them (_z_at_rates).
"""
from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

C_MIN_S = 10e-6     # č below one 9 µs slot is not a channel-access overhead
C_MAX_S = 50e-3     # nor above 50 ms (ten maximal 5.5 ms PPDUs of others)
Z_MIN = 1.0         # an A-MPDU holds at least one MPDU (000 §IV-C, Π onto [1, N_max])
PACER_SLACK = 0.1   # a pair carrying under 90 % of its paced rate is not limited by the pacer
OVERLOAD_SLACK = 0.1  # sent over 1.1x what the STA received: the AP's queue grew (no č)
BURST_MPDUS = 2.0   # an A-MPDU of up to 2 MPDUs can be one arrival burst, not a round's arrivals (no č from it)
PART_SLOT_RATIO = 1.5  # the STA received over 1.5x what was sent: busy for part of the slot (no č from the pair)


@dataclass(frozen=True)
class LoopParams:
    k1: float = 0.5
    k2: float = 0.2
    t_bar_s: float = 0.010
    n_bar: float = 48.0
    beta: float = 0.05
    c_init_s: float = 250e-6
    packet_bytes: int = 1500
    mpdu_overhead_bytes: int = 48
    n_max: float = 64.0

    def __post_init__(self) -> None:
        # 000 §VI-A3: exponentially stable for 0 < K1 < 2; Lemma 2: 0 < K2 < 1.
        checks = [("k1", 0 < self.k1 < 2), ("k2", 0 < self.k2 < 1), ("t_bar_s", self.t_bar_s > 0),
                  ("n_bar", 1 <= self.n_bar), ("beta", 0 < self.beta <= 1), ("c_init_s", self.c_init_s > 0),
                  ("packet_bytes", self.packet_bytes > 0), ("mpdu_overhead_bytes", self.mpdu_overhead_bytes >= 0),
                  ("n_max", self.n_max >= 1)]
        for name, ok in checks:
            if not ok:
                raise ValueError(f"aggregation loop parameter {name}={getattr(self, name)!r} is out of range")

    def w_of(self, phy_rate_bps: float) -> float:
        """w_i = (l + l_oh)/μ_R_i: airtime of one MPDU payload, s (000 eq. 4)."""
        if not phy_rate_bps > 0:
            raise ValueError(f"PHY rate {phy_rate_bps!r} bit/s must be positive")
        return (self.packet_bytes + self.mpdu_overhead_bytes) * 8.0 / phy_rate_bps

    def pace_bps(self, x_pps: float) -> float:
        """The pacing rate handed to the dataplane, bit/s of IP packets of length l."""
        return x_pps * self.packet_bytes * 8.0


@dataclass(frozen=True)
class StaMeasurement:
    """What one Δ slot showed for one pair."""

    phy_rate_bps: float               # μ_R_i: operator-entered or the emulator's ground truth
    mu_n: float | None                # μ̃_N_i(k): mean MPDUs per A-MPDU over the slot; None = no frames
    n_bar: float | None = None        # per-pair N̄ override
    delivered_pps: float | None = None  # packets/s released for the pair over the slot (x of (40)); None = unknown
    received_pps: float | None = None   # MPDUs/s the STA received over the slot; None = not counted


@dataclass(frozen=True)
class LoopState:
    z: dict[str, float] = field(default_factory=dict)
    x: dict[str, float] = field(default_factory=dict)           # packets/s held during the slot now ending
    n_target: dict[str, float] = field(default_factory=dict)
    nu: float = 1.0
    c_hat: float = 0.0
    k: int = 0
    t_s: float | None = None                                    # time of the last step (caller's clock)
    held: bool = False                                          # last step held (backhaul bottleneck)
    c_samples: int = 0                                          # č taken into ĉ so far (before any: c_init)
    w: dict[str, float] = field(default_factory=dict)           # w_i of the last step, s/packet
    # ν and w of the step before an all-pairs hold began (_hold_all carries ν from them); None when not held
    hold_nu: float | None = None
    hold_w: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class StepResult:
    state: LoopState
    rates_pps: dict[str, float]
    c_check: float | None              # č(k) used this step, s (None = not measurable)
    queue_grew: frozenset[str] = frozenset()  # pairs whose AP queue grew over the slot (no č from it)


def initial(params: LoopParams, stas: dict[str, StaMeasurement]) -> LoopState:
    """Start the outer loop at the top of Lemma 2's range, ν(1) = max(ν_max, 1) (N_target = min(ν_max W, N̄)),
    and the inner loop at z(1) = W (the rates of ν = 1).

    The rates start low and (45) raises z against the measured μ̃_N, so the first rates are safe; ν comes
    down to the delay target through G(x). Started at ν(1) = 1 instead, ν grows by at most
    1 + K2 (T̄ - c)/c per Δ (Lemma 2's dynamics (51)): with T̄ = 1.5 ms and c ≈ 0.7 ms that is about
    1.2x per 0.5 s, and the pair was held at a fraction of its rate for 7-12 s (aggtarget-1sta-lowdelay,
    -mcs-step at ν(1) = 1), while K1 = 0.5 halves z's distance to N_target every Δ."""
    w = {s: params.w_of(m.phy_rate_bps) for s, m in stas.items()}
    low = _fresh(params, stas, LoopState(c_hat=params.c_init_s, nu=1.0))
    # Lemma 2 asks 1 <= ν(1), as (43) keeps ν(k) >= 1: ν_max is under 1 when the fastest pair's N̄ is
    # under w_1/w_i (N̄ 48, 6.5 against 867 Mbit/s), which would start the slowest pair at a target
    # under one MPDU
    top = max(nu_max(params, stas, w), 1.0)
    # w recorded as every step records it: the next step carries the held rates, ν and the targets across a
    # PHY rate that moved in the first slot (_mcs_feed_forward); without it a pair held there kept its packet
    # rate (345 -> 30 Mbit/s: 1.70 of the air)
    return replace(low, nu=top, n_target=_targets(params, stas, w, top), w=dict(w))


def _fresh(params: LoopParams, stas: dict[str, StaMeasurement], base: LoopState) -> LoopState:
    w = {s: params.w_of(m.phy_rate_bps) for s, m in stas.items()}
    targets = _targets(params, stas, w, base.nu)
    z = {s: targets[s] for s in stas}
    return replace(base, z=z, n_target=targets, x=_rates(w, z, base.c_hat))


def _nbar(params: LoopParams, m: StaMeasurement) -> float:
    return min(m.n_bar if m.n_bar is not None else params.n_bar, params.n_max)


def _targets(params: LoopParams, stas: dict[str, StaMeasurement], w: dict[str, float],
             nu: float, w1: float | None = None) -> dict[str, float]:
    """N_target_i = min(ν w_1/w_i, N̄_i) (44), station 1 = largest w (lowest MCS rate) unless w1 is given."""
    w1 = max(w.values()) if w1 is None else w1
    return {s: min(nu * w1 / w[s], _nbar(params, stas[s])) for s in stas}


def nu_max(params: LoopParams, stas: dict[str, StaMeasurement], w: dict[str, float]) -> float:
    """The largest ν at which no pair's target ν W_i is cut by its N̄_i: min_i N̄_i w_i / w_1.

    The paper's G(x) = min(T̄ x_1, N̄) lets ν (the slowest pair's target) grow to N̄,
    where (44) caps every faster pair at N̄ too: equal targets, so airtime in
    proportion to 1/μ_R, not equal. Its own proportional-fair solution when N̄
    binds (000 §V-C, Example 2, eq. 30) puts the fastest pair at N̄ and the others
    in proportion to their MCS rate, which is equal airtime (SPEC §3.6-3.7); capping
    G at ν_max gives exactly that. With one pair, or equal MCS, ν_max = N̄ as in (43)."""
    w1 = max(w.values())
    return min(_nbar(params, stas[s]) * w[s] / w1 for s in stas)


def _rates(w: dict[str, float], z: dict[str, float], c: float) -> dict[str, float]:
    """x = F⁻¹(z) = z / (c + wᵀz) (11, 46)."""
    denom = c + sum(w[s] * z[s] for s in z)
    return {s: z[s] / denom for s in z}


def step(params: LoopParams, state: LoopState, stas: dict[str, StaMeasurement], now_s: float,
         hold: frozenset[str] = frozenset()) -> StepResult:
    """One Δ update. `stas` is the AP's current set of controlled pairs; a pair
    joining starts at its share of the current ν, carried to this step's station 1 as an MCS change
    carries it (_nu_feed_forward; its z and ĉ are not moved by the slot it
    joined in, which was not paced at any rate of the loop's), a pair leaving is dropped.
    Pairs in `hold` (bottleneck in the backhaul, 001 §5) keep their airtime (_held_rates)."""
    if not stas:
        return StepResult(replace(state, z={}, x={}, n_target={}, k=state.k + 1, t_s=now_s), {}, None)
    w = {s: params.w_of(m.phy_rate_bps) for s, m in stas.items()}
    if state.c_hat <= 0:
        state = replace(state, c_hat=params.c_init_s)
    joined = set(stas) - set(state.z)
    if not state.z:  # the loop's first pairs (the slots before had no PHY rate): its start, as initial()
        state = replace(initial(params, stas), c_hat=state.c_hat, k=state.k, t_s=state.t_s)
    elif set(stas) != set(state.z):
        # a joining pair's share is of ν carried to this step's station 1 (_nu_feed_forward): a slower pair
        # joining becomes station 1, and ν in the old one's units would be more airtime than any pair had;
        # not under 1, where (43) keeps ν (a target under one MPDU has no meaning, 000 §IV-C)
        fresh = _fresh(params, stas, replace(state, nu=max(state.nu * _nu_feed_forward(state, w), 1.0)))
        state = replace(state, z={s: state.z.get(s, fresh.z[s]) for s in stas},
                        x={s: state.x.get(s, fresh.x[s]) for s in stas},
                        n_target={s: state.n_target.get(s, fresh.n_target[s]) for s in stas})
    held = {s for s in stas if s in hold}
    if held == set(stas):
        return _hold_all(params, state, stas, w, now_s)
    free = {s: m for s, m in stas.items() if s not in held}
    ff = _mcs_feed_forward(state, w, free)

    c_check, grew = slot_c_check(state, stas, free, w, bool(joined))
    c_hat = state.c_hat
    if c_check is not None:
        c_hat = _c_hat_after(params, state, c_check)
        if state.c_samples < 2 and c_hat != state.c_hat:
            # A replaced ĉ does not move the rates by itself: z is re-expressed at the rates held over the
            # slot č measured, z = x D with D = ĉ / (1 - wᵀx), the aggregation (8) gives there, and only
            # (45) moves the rates from it. c_init is a prior (000 §VI-B's c of one station, about 200 µs);
            # with several stations the first č was 8-16x it (aggtarget-5sta-mixed-mcs: 3.0-4.0 ms, the sum
            # of every station's channel-access overhead in a round, 000 §IV, with the STAs' TCP ACKs), and
            # (46) at the new ĉ cut every start rate by as much for one Δ while each μ̃ was under its target.
            # The second č, if smaller, would likewise raise every rate at once.
            state = replace(state, z={**state.z, **_z_at_rates(w, {}, c_hat, state.x)})

    # (43): outer loop on ν with G(x(k)) = min(T̄ x_1, ν_max), station 1 = lowest MCS rate, read off the
    # slowest pair whose rate the loop sets (_paced_station). x(k) = F⁻¹(z(k)) is the loop's own (46),
    # no measurement: a joined pair's counts too.
    s1 = max(w, key=lambda s: w[s])
    sg = _paced_station(state, stas, w, held, joined)
    nu_top = nu_max(params, stas, w)
    g = min(params.t_bar_s * state.x[sg] * ff.get(sg, 1.0) * w[sg] / w[s1], nu_top)
    nu_k = _fed_forward_nu(state, w, nu_top, g)
    nu = max(nu_k + params.k2 * (g - nu_k), 1.0)
    # (45): inner integral loop against the target of slot k; a pair that just joined starts
    # at its share of ν (its μ̃ was measured at no rate of the loop's).
    target = {**state.n_target, **_fed_forward_targets(params, state, stas, w, ff, nu_k)}
    z = {}
    for s, m in stas.items():
        if s in held or s in joined or m.mu_n is None:
            z[s] = state.z[s]
            continue
        step_z = params.k1 * (target[s] - m.mu_n)
        z_top = params.n_max
        if _under_paced(m, state.x[s]):
            # Anti-windup: the pair carried less than its paced rate, so the pacer is not what limits
            # it (TCP's window, the sender, a CPU, a queue elsewhere) and a higher rate cannot raise μ̃.
            # Conditional integration: z is not raised. Back-calculation: nor held above the
            # aggregation the pair produced with twice the slack, a rate about 1/(1 - 2 slack) of what
            # it carried: clear of the pacer-limited line (1 - slack), so the next slot does not read
            # as pacer-limited and raise z again. One raise at the start's full target error
            # (initial()) put z at 24 for a sender that filled 3.6 MPDUs; held there, the pacer would
            # have let its bursts through to the AP's queue.
            step_z = min(step_z, 0.0)
            z_top = max(m.mu_n / (1.0 - 2.0 * PACER_SLACK), Z_MIN)
        z[s] = min(max(state.z[s] + step_z, Z_MIN), z_top, params.n_max)
    n_target = _targets(params, stas, w, nu)     # (44), used by the next step
    held_x = _held_rates(state, w, held)
    z.update(_z_at_rates(w, z, c_hat, held_x))
    x = _rates(w, z, c_hat)                      # (46)
    x.update(held_x)
    new = LoopState(z=z, x=x, n_target=n_target, nu=nu, c_hat=c_hat, k=state.k + 1, t_s=now_s, held=False,
                    c_samples=state.c_samples + (c_check is not None), w=dict(w))
    return StepResult(new, x, c_check, grew)


def _hold_all(params: LoopParams, state: LoopState, stas: dict[str, StaMeasurement], w: dict[str, float],
              now_s: float) -> StepResult:
    """Every pair held (001 §5: the WLAN is not the bottleneck; the aggregation level says nothing about the
    AP's queue): z, ĉ and (43)-(45) stand still, and each pair keeps its airtime (_held_rates), ν and the
    targets carried to the new w with it as the MCS feed-forward carries them (_nu_feed_forward,
    _fed_forward_nu, _fed_forward_targets), so that the step that releases them finds them at this w.

    Kept at their packet rates, a pair at 0.91 of the air whose MCS rate fell from 186 to 100 Mbit/s was
    paced at 1.70 of it (wᵀx > 1, more than (46) ever gives), and the pacer let that through once the
    backhaul was fast again.

    ν is carried from the step before the hold began (hold_nu, hold_w), not from the last held step: the
    carry is a function of that ν and this step's w alone, so a hold freezes ν as it freezes z. Compounded
    from step to step, the cuts of _fed_forward_nu at a ν_max that the slot-to-slot spread of the PHY rates
    moves ratcheted ν: three pairs of 100, 100 and 400 Mbit/s at N̄, each ±5 % per slot, held 200 s,
    were released at a ν 2.1 % under the one they were held at, with the PHY rates back where they were."""
    entry = state if state.hold_nu is None else replace(state, nu=state.hold_nu, w=state.hold_w)
    ff = _mcs_feed_forward(state, w, stas)
    x = _held_rates(state, w, set(stas))
    s1 = max(w, key=lambda s: w[s])
    sg = _paced_station(state, stas, w, set(stas), set())
    nu_top = nu_max(params, stas, w)
    # G(x) of (43) at the carried rates, only to tell whether N̄ binds (_fed_forward_nu); ν is not stepped
    g = min(params.t_bar_s * x[sg] * w[sg] / w[s1], nu_top)
    # not under 1, where (43) keeps ν (a target under one MPDU has no meaning, 000 §IV-C)
    nu = max(_fed_forward_nu(entry, w, nu_top, g), 1.0)
    n_target = {**state.n_target, **_fed_forward_targets(params, state, stas, w, ff, nu)}
    new = replace(state, x=x, nu=nu, n_target=n_target, k=state.k + 1, t_s=now_s, held=True, w=dict(w),
                  hold_nu=entry.nu, hold_w=entry.w)
    return StepResult(new, x, None)


def _held_rates(state: LoopState, w: dict[str, float], held: set[str]) -> dict[str, float]:
    """The rates of the held pairs: each keeps the airtime w_i x_i it was paced at, carried to its new w by
    w_i(k-1)/w_i(k) as (45)'s targets are (_mcs_feed_forward; 000 §VI-B: at a held delay w μ_N stays).

    The held airtimes come from one z of (46), so they sum under 1 and (46) can give the free pairs the
    rest. Held at its packet rate, a pair at 0.89 of the air whose MCS rate fell 20 % was at 1.11 of it,
    no z mapped to that (_z_at_rates), and the free pair was paced against the held pair's stale z on
    top: wᵀx 1.61, more than the medium."""
    ff = _mcs_feed_forward(state, w, held)
    return {s: state.x[s] * ff.get(s, 1.0) for s in held}


def _under_paced(m: StaMeasurement, x_pps: float) -> bool:
    """The pair carried less than its paced rate over the slot: the pacer is not what limits it."""
    return m.delivered_pps is not None and m.delivered_pps < (1.0 - PACER_SLACK) * x_pps


def _paced_station(state: LoopState, stas: dict[str, StaMeasurement], w: dict[str, float],
                   held: set[str], joined: set[str]) -> str:
    """The pair G(x) is read off: the slowest of those whose rate the loop sets, else station 1.

    G = T̄ x_1 is the aggregation at which station 1 waits T̄ (Lemma 1), which holds while x_1 is the
    rate the loop gave it. A station 1 without traffic (no frames in the slot), one that carries less
    than its paced rate (an application or TCP window below it: z is brought down to what it sends),
    or one held on the backhaul (001 §5: the policy is off for it) has a rate the loop did not choose,
    and G from it set every other pair's target: an idle 100 Mbit/s pair next to a 400 Mbit/s one at
    T̄ 1.5 ms held the busy pair at 0.54 ms of delay. At equal airtime T̄ x_j w_j is the same for every
    pair, so G is read off the slowest paced pair j as T̄ x_j w_j / w_1, in the units of ν (station 1's
    target)."""
    paced = [s for s, m in stas.items()
             if s in joined or (s not in held and m.mu_n is not None and not _under_paced(m, state.x[s]))]
    return max(paced or stas, key=lambda s: w[s])


def slot_c_check(state: LoopState, stas: dict[str, StaMeasurement], free: dict[str, StaMeasurement],
                 w: dict[str, float], joined: bool) -> tuple[float | None, frozenset[str]]:
    """(40)'s č from the slot just ended (rates x(k) held, μ̃(k) measured), s, or None when the slot
    gives none; and the pairs whose AP queue grew over it.

    č is the median over the free stations' checks μ̃_i/y_i · (1 - wᵀy). Each gives the same c in the
    model (7) (000 takes station 1's); a station whose μ̃ says more than its rate does (what the unpaced
    start left in the AP's queue for it, a TCP start's bursts) gives an outlier that a mean passes on.
    In an aggtarget-5sta-mixed-mcs start (b502621) the two slowest stations gave 7.8-18.8 ms in the
    first three slots and the other three 2.8-3.8 ms (2.2-3.1 a few slots later): the mean's č of
    5.7-6.1 ms became ĉ, which (40) at β = 0.05 brought down to only 3.2 ms by the end of the 20 s run,
    pacing every pair low (84.8 % of straight, against 87.7 and 89.0 % in two runs without the
    outlier); the medians were 3.1-3.9 ms.

    y is the send rate. x in (8) is 1/E[Δ_i,k] (000 §IV): what the appliance released for the pair
    over the slot where that was measured, not the paced rate, which is only its ceiling. A flow that
    does not fill its rate (TCP's window at the start, a stalled sender) sends less, and μ̃/x then falls
    short of the round by the ratio: in an aggtarget-5sta-mixed-mcs start (cfb3075) two pairs sent
    39-75 % of their rates, (40) on the paced rates gave č 0.1-0.6 ms in four slots against 2.5-3.0 ms
    later, the smaller second č became ĉ and (46) raised every rate (sta1 paced at 275 Mbit/s into a
    link carrying 75); on the released rates the same four slots give 2.8-3.8 ms.

    No č from a slot in which a pair joined (the loop's start, or its first pair once a PHY rate is
    known): its x(k) was not held over it (000 §VI-A1, Fig. 6: H holds x(k) over slot k), so neither
    its μ̃(k) nor wᵀx(k) is what the AP carried. Nor from a slot in which an AP queue grew
    (ap_queue_grew).

    No check from a pair at (8)'s floor. (8) is μ_N = Π[1, N_max](x D), and (40) inverts it only above
    the floor: a pair whose sender trickles gets each arrival sent as it comes, and μ̃/x is then the
    gap between arrivals, not the round. The floor here is an arrival burst, not one MPDU: after the
    sender idled the pacer lets two frames leave back to back (pacer.h), and TCP's delayed ACK clocks
    out two segments (BURST_MPDUS). After iperf3 stopped in an aggtarget-5sta-mixed-mcs run (9edd8ca),
    two pairs still sent a few packets at well under 1 Mbit/s in A-MPDUs of 1.0-1.7 MPDUs, their checks
    hit C_MAX_S, and ĉ went from 2.6 to 5.0 ms. In twelve runs of that loop (1345 pair-steps with a
    μ̃) the 13 at μ̃ ≤ 2 were the loop's first step, before the pair's TCP got going (0-10 % of its
    paced rate), a transfer's last step, or a stalled pair held as backhaul-limited. Nor from a pair
    busy for only part of the slot (busy_part_of_slot), a transfer's end above all."""
    y = {s: m.delivered_pps if m.delivered_pps is not None else state.x[s] for s, m in stas.items()}
    wy = sum(w[s] * y[s] for s in stas)
    checks = [m.mu_n / y[s] * (1.0 - wy) for s, m in free.items()
              if m.mu_n is not None and m.mu_n > BURST_MPDUS and y[s] > 0 and not busy_part_of_slot(m, y[s])]
    grew = frozenset(s for s, m in free.items() if ap_queue_grew(m, y[s]))
    if not checks or wy >= 1.0 or joined or grew:
        return None, grew
    return min(max(statistics.median(checks), C_MIN_S), C_MAX_S), grew


def _c_hat_after(params: LoopParams, state: LoopState, c_check: float) -> float:
    """ĉ after the slot's č: (40)'s average, except for the first two samples.

    The first č replaces c_init rather than entering the average at weight β (the first sample
    initialises the average, as RFC 6298 does SRTT): c_init (250 us) was a third of the č of the
    testbed's 802.11ac pairs (0.5-0.75 ms), and x = z / (ĉ + wᵀz) then over-paced the first raises of z
    past the link's rate (aggtarget-1sta-lowdelay: 239 Mbit/s paced into a link that carried about 190,
    a 40-MPDU backlog at the AP). The second replaces it if smaller: the first paced slot starts with
    what the unpaced start left in the AP's queue, which can only add MPDUs to its A-MPDUs and so raise
    č (aggtarget-1sta-lowdelay-udp, 300 Mbit/s offered unpaced for 2 s: č 2.0 ms, then 0.5-0.7; ĉ took
    20 s to come down and the start 10.7 s)."""
    if state.c_samples == 0:
        return c_check
    if state.c_samples == 1:
        return min(state.c_hat, c_check)
    return (1.0 - params.beta) * state.c_hat + params.beta * c_check


def ap_queue_grew(m: StaMeasurement, sent_pps: float) -> bool:
    """Whether more arrived at the AP for this pair over the slot (sent_pps) than its STA received.

    (40) reads the round off (8), μ_N = x D, which holds while the AP clears each station's queue at
    its turn (000 §IV, regime 2, with the transient regime 3 lumped in). In regime 1 the queue grows,
    every A-MPDU is at the AP's ceiling whatever x is, and μ̃_N / x falls short of the round by the
    overload factor, so a č from that slot would be low, and a low ĉ raises every rate through (46).
    The STA-side agent counts the MPDUs the STA received (the ACK-burst estimator, the MPDUs the
    returning ACKs covered); arrivals above that, by more than the measurement's slack (the released
    bytes are counted over Δ, the STA's MPDUs over the time its entries cover), can only have queued.
    Not μ̃_N times the A-MPDU rate: that counts retransmissions, a quarter of the MPDUs on the
    testbed's 802.11ac air (aggtarget-1sta: 163-280 Mbit/s of MPDUs sent against 123-205 released),
    so a queue growing by less than that would not show. Nor μ̃_N at the AP's ceiling, an earlier
    guard: at T̄ 10 ms N̄ binds, μ̃_N reaches the ceiling in ordinary slots, and skipping them held ĉ
    low."""
    if m.received_pps is None or m.received_pps <= 0:
        return False
    return sent_pps > (1.0 + OVERLOAD_SLACK) * m.received_pps


def busy_part_of_slot(m: StaMeasurement, sent_pps: float) -> bool:
    """Whether the pair's STA received MPDUs at over PART_SLOT_RATIO times the rate released for it.

    The released rate is counted over the whole slot Δ, the STA's over the time its entries cover, and
    μ̃_N is a mean over the A-MPDUs sent. When the pair was busy for only part of the slot (its transfer
    ended, or started, inside it) or the AP was sending a backlog from before the slot, μ̃_N belongs to
    the busy time while the released rate averages over Δ, and (40) reads the round long by their
    ratio. At the ends of two aggtarget-5sta-mixed-mcs runs (9edd8ca) the pairs' STAs received
    2.7-10.2 times what was released in the last slot, č came out at 18-28 ms, and ĉ went from
    2.8 to 4.0 ms and from 2.7 to 3.5 ms in one step. Over the other tracking slots of twelve runs of
    that loop (1238 pair-slots) the ratio had median 1.04 and 99th percentile 1.34; 3 were above 1.5.
    The mirror of ap_queue_grew, with a wider slack for that spread."""
    if m.received_pps is None or sent_pps <= 0:
        return False
    return m.received_pps > PART_SLOT_RATIO * sent_pps


def _z_at_rates(w: dict[str, float], z: dict[str, float], c: float,
                given_x: dict[str, float]) -> dict[str, float]:
    """The z of the pairs in given_x that (46) maps to those rates, the other pairs' z in z staying:
    with D = c + wᵀz and z_g = x_g D, D = (c + Σ_others w z) / (1 - Σ_given w_g x_g). With every pair's
    rate given (no others), D = c / (1 - wᵀx): how a replaced ĉ re-expresses z.

    For held pairs it is a bumpless transfer: the loop holds a backhaul-limited pair's rate (001 §5), not
    its z, while the free pairs' z move; a held z left where it was would map, on release, to a rate
    against their new z, not to the one it was held at (aggtarget-5sta-mixed-mcs: sta5 held at 27.3
    Mbit/s from the start, while sta1's z went from 2 to 40, fell to 2.5 Mbit/s at release, carrying
    10.3). It also keeps the free pairs' rates (46) counting the held pairs' airtime at their held rates.
    Nothing is returned when the given rates alone fill the air (their stale z are then kept).

    Not cut at N_max: (46) keeps wᵀx = wᵀz / (c + wᵀz) under 1 only while every pair's rate comes from the
    same z, and a held pair's rate is put back after (46). Its z grows with the free pairs' (D does), and
    cut at N_max it counted less than its held airtime in their denominator: a pair held at 0.89 of the
    air next to one raising its z to N_max left wᵀx of the paced rates at 1.37. The cut to [1, N_max] is
    the integral's (45), applied when the pair is free again. The floor only adds to the denominator."""
    load = sum(w[s] * x for s, x in given_x.items())
    if not given_x or load >= 1.0:
        return {}
    d = (c + sum(w[s] * z[s] for s in z if s not in given_x)) / (1.0 - load)
    return {s: max(x * d, Z_MIN) for s, x in given_x.items()}


def _mcs_feed_forward(state: LoopState, w: dict[str, float], pairs: Iterable[str]) -> dict[str, float]:
    """w_i(k-1)/w_i(k) for each of the pairs whose w was known last step.

    The MCS rate is a measured disturbance: at the delay the loop holds, the round c + wᵀμ_N stays and
    the aggregation levels scale with 1/w (000 §VI-B, Fig. 10(b): 16 MPDUs at MCS2, 23 at MCS4, same
    w·μ_N). So the targets of the slot just ended, N_target_i and (for station 1) G(x), are scaled
    by this factor before (43)-(45), ν by station 1's (_nu_feed_forward), and (45) brings z down
    against the target of the new rate at once.
    Without it, ν fell from the old rate's level at the outer loop's pace (K2; about 0.9 per Δ at T̄ 1.5
    ms), N_target stayed at N̄, μ̃_N was pinned at the AP's ceiling by the backlog, and x stayed above the
    link's new rate: aggtarget-mcs-step held an AP queue over 1.2 T̄ for 4.9-7.4 s after 345 -> 186
    Mbit/s. z itself is not scaled: the slot means of the PHY rate vary by 6-9 % from slot to slot on
    the emulated air, and scaling z passed that noise straight to x (aggtarget-1sta-lowdelay 80-85 % of
    straight forwarding against 87-89 %, bf3d842); through (45) it is halved (K1 = 0.5)."""
    return {s: state.w[s] / w[s] for s in pairs if state.w.get(s)}


def _fed_forward_targets(params: LoopParams, state: LoopState, stas: dict[str, StaMeasurement],
                         w: dict[str, float], ff: dict[str, float], nu_k: float) -> dict[str, float]:
    """N_target(k) of the pairs in ff carried to their new w: (44) at the fed-forward ν(k)
    (_fed_forward_nu), min(ν(k) w_1(k)/w_i(k), N̄_i), station 1 the one ν(k) was carried to. While ν is
    not cut by ν_max that is min(ν(k) w_1(k-1)/w_i(k), N̄_i), the uncapped target ν W_i scaled by
    w_i(k-1)/w_i(k) and then cut by N̄ as (44) cuts it.

    Scaling the capped target instead let a pair held at N̄ by (44) chase N̄ w_old/w_new after its MCS
    rose: one pair at N̄ = 48 going from 186 to 345 Mbit/s got a target of 89 in (45), z went to N_max
    and the AP was paced to A-MPDUs of N_max, the standing queue N̄ < N_max (17) is there to prevent."""
    if not ff:
        return {}
    targets = _targets(params, stas, w, nu_k)
    return {s: targets[s] for s in ff}


def _fed_forward_nu(state: LoopState, w: dict[str, float], nu_top: float, g: float) -> float:
    """ν(k) carried to this step's w (_nu_feed_forward), not raised above the top of (43)'s range,
    max(ν_max, 1) at the new w, nor lowered while N̄ binds at the new w (G = ν_max).

    (43) keeps ν in [1, max(ν_max, 1)]: G <= ν_max, and ν(k+1) lies between ν(k) and G. The
    feed-forward keeps ν w_1, the payload airtime every pair is given, but a faster pair cut at N̄ by
    (44) cannot take that airtime (000 §V-C Example 2, eq. 30: the fastest pair at N̄, the others in
    proportion to their MCS), so above ν_max airtime is no longer equal. A ν that (43) itself left
    above a falling ν_max is not cut here: (43) brings it down at its own pace, as the paper's does
    (cut at once, each dip of ν_max in the slot-to-slot spread of the PHY rates cut ν: on the analytic
    plant two pairs of 100 and 110 Mbit/s at N̄, ±3 % per slot, carried 0.5 % fewer MPDUs).

    With N̄ binding, a pair going from 100 to 400 Mbit/s past the other pair's 300 carried ν = 16 at
    w(100) to 48 at w(300), against ν_max = 36 there: the new station 1 got a target of 45.6, 1.27x the
    other's airtime, and 3 s later the A-MPDUs still split the air 0.54/0.46 (0.51/0.49 with the cut).

    The feed-forward carries a delay-held ν (000 §VI-B, Fig. 10(b): the round c + wᵀμ_N stays at T̄ as the
    MCS changes). While G sits at ν_max, N̄ binds (Lemma 2 (ii)): ν is held by N̄, not by the delay, and
    its set point is ν_max whatever w_1 is, so scaling it down takes it away from (43)'s equilibrium. One
    pair at N̄ = 48 under a loose T̄ (50 ms) going from 345 to 186 Mbit/s, where the round at 48 MPDUs is
    still 3.4 ms, was given ν 25.9 and N_target 30.3 against (43)-(44)'s 48, and its A-MPDUs were at 34
    two seconds later. G is read at the new rates (T̄ x_1 scaled by w_1(k-1)/w_1(k)): for one settled pair
    whose rate drops it sits at ν_max only if T̄ >= c w_1(k)/w_1(k-1) + ν w_1(k), stricter than N̄
    binding at the new rate (T̄ >= c + ν w_1(k)), so a drop that makes the delay bind is scaled as
    before."""
    top = max(nu_top, 1.0)
    nu = min(state.nu * _nu_feed_forward(state, w), max(top, state.nu))
    if g >= nu_top:
        nu = max(nu, min(state.nu, top))
    return nu


def _nu_feed_forward(state: LoopState, w: dict[str, float]) -> float:
    """w_1(k-1)/w_1(k), station 1 (the largest w) taken at each step among that step's pairs: the factor
    that keeps ν w_1, every pair's payload airtime target ν W_i w_i, where it was.

    ν is the target of whichever pair is station 1 at the step, so scaling it by the current station 1's
    own w_old/w_new is right only while station 1 stays the same pair. When an MCS change makes another
    pair the slowest, ν was the old station 1's target: scaled by the new one's factor (often 1, as its
    rate did not change) it moved every other pair's target too. Two stations of the same MCS whose
    slot means differ by a few percent swap places most slots, and each swap cut ν by the difference:
    at ±2.5 % the AP settled at 4.1 ms against a T̄ of 5 ms.

    A pair joining or leaving changes station 1 the same way, so last step's station 1 is taken among
    last step's pairs and this step's among this step's. Taken among the pairs of both steps only, ν
    stayed in a departed or superseded station 1's units: a 60 Mbit/s pair joining a settled 300 Mbit/s
    one started at ν = 48 of its own MPDUs and the AP's delay went to 12.2 ms against a T̄ of 5 ms; the
    100 Mbit/s station 1 of a pair at N̄ leaving cut the other's target from 48 to 16."""
    if not state.w:
        return 1.0
    return max(state.w.values()) / max(w.values())


def airtime_shares(params: LoopParams, stas: dict[str, StaMeasurement], mu_n: dict[str, float]) -> dict[str, float]:
    """Share of the payload airtime w_i μ_N_i of each station (equal airtime = 1/n each)."""
    t = {s: params.w_of(stas[s].phy_rate_bps) * mu_n[s] for s in mu_n}
    total = sum(t.values())
    return {s: v / total for s, v in t.items()} if total > 0 else {}
