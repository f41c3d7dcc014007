"""Every pair of an AP held on the backhaul (001 §5): the loop holds their airtime across an MCS change, as it
does for some pairs held (loop._held_rates), against the analytic plant of 000 §IV."""

from __future__ import annotations

import pytest
from aggregation_plant import Plant
from test_aggregation_loop import run

from adwiser_controller.aggregation.loop import LoopParams, StaMeasurement, step

PAIR = "ap/sta1"
HELD = frozenset({PAIR})


def _settled(rate_bps: float):
    params = LoopParams(t_bar_s=0.010, n_bar=48)
    plant = Plant(c_s=300e-6, rates_bps={PAIR: rate_bps})
    st, _ = run(params, plant, 60)
    return params, plant, st


def test_a_pair_held_alone_keeps_its_airtime_when_its_mcs_rate_falls() -> None:
    # With every pair of the AP held the loop kept their packet rates: a pair settled at 0.91 of the air at
    # 186 Mbit/s was paced at 1.69 of it once its MCS fell to 100, so when its backhaul was fast again the
    # pacer let through 1.7x what the medium carries for a Δ and more (a two-pair AP with one pair held
    # carried the held airtime, _held_rates). The rates of (46) keep wᵀx < 1.
    params, plant, st = _settled(186e6)
    airtime = plant.w(PAIR) * st.x[PAIR]
    assert airtime > 0.85
    plant.rates_bps[PAIR] = 100e6
    for k in range(5):
        st = step(params, st, {PAIR: StaMeasurement(100e6, 2.0)}, now_s=40.0 + 0.5 * k, hold=HELD).state
        assert st.held
        assert plant.w(PAIR) * st.x[PAIR] == pytest.approx(airtime)


def test_nu_stays_at_one_or_more_while_a_held_pairs_mcs_rate_falls() -> None:
    # (43) keeps ν >= 1; the feed-forward of a held AP must too (a target under one MPDU)
    params = LoopParams(t_bar_s=0.0008, n_bar=48)
    plant = Plant(c_s=300e-6, rates_bps={PAIR: 30e6})
    st, _ = run(params, plant, 60)
    assert st.nu < 2.0
    st = step(params, st, {PAIR: StaMeasurement(6.5e6, 2.0)}, now_s=40.0, hold=HELD).state
    assert st.nu >= 1.0 and st.n_target[PAIR] >= 1.0


def test_a_pair_released_after_an_mcs_change_under_hold_gets_the_targets_of_the_new_rate() -> None:
    # the release step's (44)-(45) are those of the MCS feed-forward (_mcs_feed_forward) as if there had been
    # no hold: what the hold carried is not carried a second time
    params, plant, st = _settled(186e6)
    mu = plant.aggregation(st.x)[PAIR]
    direct = step(params, st, {PAIR: StaMeasurement(100e6, mu)}, now_s=40.0).state
    held = st
    for k in range(3):
        held = step(params, held, {PAIR: StaMeasurement(100e6, 2.0)}, now_s=40.0 + 0.5 * k, hold=HELD).state
    released = step(params, held, {PAIR: StaMeasurement(100e6, mu)}, now_s=42.0).state
    assert released.nu == pytest.approx(direct.nu)
    assert released.n_target[PAIR] == pytest.approx(direct.n_target[PAIR])
    assert released.z[PAIR] == pytest.approx(direct.z[PAIR])
    plant.rates_bps[PAIR] = 100e6
    _, mu_end = run(params, plant, 40, released)
    _, mu_direct = run(params, plant, 40, direct)
    assert mu_end[PAIR] == pytest.approx(mu_direct[PAIR], rel=1e-3)
    assert plant.delay_s(mu_end) <= params.t_bar_s
