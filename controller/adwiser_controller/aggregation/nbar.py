"""N̄ of an AP from the aggregation ceiling its operator measured (000 §V-A, constraint (17)).

Constraint (17) keeps the aggregation level at N̄ < N_max "so the AP can clear
the queue at each transmission opportunity", i.e. no standing queue (regime 2).
The paper's N̄ = 48 sits at 48/64 of the 802.11ac BlockAck window N_max = 64,
which it takes as the AP's maximum. A real AP may not reach N_max even with a
standing queue (a frame-duration cap at its slowest retry rate, unaggregated
rate-control probes, BlockAck-window stalls): with N̄ above what it reaches, the
loop keeps raising the rate to chase a level the AP can only approach with a
queue, which is the standing queue (17) is there to prevent. So when the
operator has measured the AP's ceiling (mean A-MPDU size with a standing queue,
`topology.aps[].ampdu_ceiling_mpdus`), N̄ is the paper's 48/64 of it, and never
above the policy's `n_target_max` (or a class override of it).

The ceiling in MPDUs holds at the PHY rate it was measured at. APs cap an
A-MPDU's duration rather than its MPDU count (802.11 aPPDUMaxTime; ath9k/ath10k
at the slowest rate of the retry chain), so when a station's MCS drops, so does
the number of MPDUs the AP can put in one A-MPDU: measured on the testbed, 39
MPDUs at 340 Mbit/s and 21 at 190 Mbit/s, both about 1.45 ms of airtime
(testbed aggtarget-mcs-step). A ceiling measured as airtime
(`topology.aps[].ampdu_ceiling_us`) is turned into MPDUs at each pair's current
PHY rate, ceiling_us / w_i with w_i the airtime of one MPDU (000 eq. 4), every
step: with a ceiling in MPDUs from the faster MCS, N_target stayed at the new
ceiling after an MCS drop, the AP held a standing queue (82 ms) and μ̃_N, stuck
at the ceiling, no longer told the loop so.
"""
from __future__ import annotations

# 000 §VI-B: N̄ = 48 of N_max = 64.
NBAR_FRACTION = 48.0 / 64.0


def n_bar(policy_n_bar: float, ampdu_ceiling_mpdus: float | None, ampdu_ceiling_us: float | None = None,
          mpdu_airtime_us: float | None = None) -> float:
    """N̄ for a pair: `policy_n_bar` (n_target_max, or an override's), cut to NBAR_FRACTION of the
    AP's measured aggregation ceiling in MPDUs, and of the MPDUs its airtime ceiling holds at the pair's
    `mpdu_airtime_us` (w_i in µs), for each ceiling the operator entered."""
    ceilings = []
    if ampdu_ceiling_mpdus is not None:
        if not ampdu_ceiling_mpdus >= 1:
            raise ValueError(f"ampdu_ceiling_mpdus {ampdu_ceiling_mpdus!r} must be at least 1 MPDU")
        ceilings.append(float(ampdu_ceiling_mpdus))
    if ampdu_ceiling_us is not None:
        if not ampdu_ceiling_us > 0:
            raise ValueError(f"ampdu_ceiling_us {ampdu_ceiling_us!r} must be positive")
        if mpdu_airtime_us is None or not mpdu_airtime_us > 0:
            raise ValueError(f"an airtime ceiling needs the pair's MPDU airtime, got {mpdu_airtime_us!r}")
        ceilings.append(ampdu_ceiling_us / mpdu_airtime_us)
    if not ceilings:
        return float(policy_n_bar)
    # at least one MPDU: an A-MPDU target below 1 has no meaning (000 §IV-C, z in [1, N_max])
    return max(1.0, min(float(policy_n_bar), NBAR_FRACTION * min(ceilings)))
