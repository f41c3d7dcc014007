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
"""
from __future__ import annotations

# 000 §VI-B: N̄ = 48 of N_max = 64.
NBAR_FRACTION = 48.0 / 64.0


def n_bar(policy_n_bar: float, ampdu_ceiling_mpdus: float | None) -> float:
    """N̄ for the pairs of one AP: `policy_n_bar` (n_target_max, or an override's), cut to
    NBAR_FRACTION of the AP's measured aggregation ceiling when the operator entered one."""
    if ampdu_ceiling_mpdus is None:
        return float(policy_n_bar)
    if not ampdu_ceiling_mpdus >= 1:
        raise ValueError(f"ampdu_ceiling_mpdus {ampdu_ceiling_mpdus!r} must be at least 1 MPDU")
    # at least one MPDU: an A-MPDU target below 1 has no meaning (000 §IV-C, z in [1, N_max])
    return max(1.0, min(float(policy_n_bar), NBAR_FRACTION * ampdu_ceiling_mpdus))
