"""A pair held on the backhaul (001 §5) keeps its airtime across an MCS change, as loop._held_rates carries it,
whether every pair of its AP is held and in the step after the loop's start: the loop against the analytic plant
of 000 §IV, and the runner against a real redis-server."""

from __future__ import annotations

import asyncio
import random

import pytest
from aggregation_plant import Plant
from test_aggregation_loop import run
from test_aggregation_runner import drive, enable

from adwiser_controller import keys
from adwiser_controller.aggregation.loop import LoopParams, StaMeasurement, initial, step

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


def test_a_long_hold_of_every_pair_freezes_nu_and_z_under_noisy_phy_rates() -> None:
    # Carried from step to step, ν went through _fed_forward_nu's cuts at a ν_max that the PHY rates' slot-to-
    # slot spread moves, and ratcheted down: 2.1 % after 400 held steps, with the rates back where they were.
    # Frozen, each held step's ν is the one the hold's first step would give at that step's rates.
    rates = {"ap/a": 100e6, "ap/b": 100e6, "ap/c": 400e6}
    params = LoopParams(t_bar_s=0.010, n_bar=48)
    start, _ = run(params, Plant(c_s=300e-6, rates_bps=dict(rates)), 200)
    everyone = frozenset(rates)
    rng = random.Random(1)
    st = start
    for k in range(400):
        meas = {s: StaMeasurement(r * rng.uniform(0.95, 1.05), 2.0) for s, r in rates.items()}
        st = step(params, st, meas, now_s=100.0 + 0.5 * k, hold=everyone).state
        assert st.nu == pytest.approx(step(params, start, meas, now_s=100.0, hold=everyone).state.nu, rel=1e-12)
        assert st.z == start.z
    st = step(params, st, {s: StaMeasurement(r, 2.0) for s, r in rates.items()}, now_s=400.0, hold=everyone).state
    assert st.nu == pytest.approx(start.nu, rel=1e-12)
    assert st.n_target == pytest.approx(start.n_target, rel=1e-12)


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


def test_a_pair_held_in_the_step_after_the_start_keeps_its_airtime_when_its_mcs_rate_changed() -> None:
    # initial() did not record w, so the step after it carried nothing across a PHY rate that moved in the
    # first slot: a 345 Mbit/s pair held there at its start rate while it fell to 30 Mbit/s was paced at
    # 1.70 of the air, 11.5x the airtime it started at.
    params = LoopParams(t_bar_s=0.010, n_bar=48)
    rates = {"ap/a": 186e6, "ap/b": 345e6, "ap/c": 866e6}
    st = initial(params, {s: StaMeasurement(r, None) for s, r in rates.items()})
    airtime = params.w_of(rates["ap/b"]) * st.x["ap/b"]
    meas = {"ap/a": StaMeasurement(186e6, 20.0), "ap/b": StaMeasurement(30e6, 2.0), "ap/c": StaMeasurement(866e6, 12.0)}
    st = step(params, st, meas, now_s=0.5, hold=frozenset({"ap/b"})).state
    assert params.w_of(30e6) * st.x["ap/b"] == pytest.approx(airtime)
    assert sum(params.w_of(m.phy_rate_bps) * st.x[s] for s, m in meas.items()) < 1.0


def test_the_runner_carries_a_pair_held_after_its_loops_start_across_its_phy_rate(api, appliance, redis_server,
                                                                                  rdb):
    # the runner rebuilt initial()'s state without its w: the same defect through the pacing hash
    aid, _ = appliance
    v = enable(api, aid, phy_rate_mbps=None)
    rdb.hset(keys.appliance(aid, "phy_rate"), "ap1/sta1", "345")
    plant = Plant(c_s=300e-6, rates_bps={"ap1/sta1": 345e6})
    runner, first = asyncio.run(drive(redis_server.url, aid, v, plant, 1))
    start = first[-1]["aps"]["ap1"]["pairs"]["ap1/sta1"]
    airtime = start["x_pps"] * 1548 * 8 / 345e6
    rdb.hset(keys.appliance(aid, "phy_rate"), "ap1/sta1", "30")
    plant.rates_bps["ap1/sta1"] = 30e6
    _, statuses = asyncio.run(drive(redis_server.url, aid, v, plant, 1, t0=0.5, backhaul_bps=2e6, runner=runner))
    pair = statuses[-1]["aps"]["ap1"]["pairs"]["ap1/sta1"]
    assert pair["state"] == "held"
    assert pair["x_pps"] * 1548 * 8 / 30e6 == pytest.approx(airtime)
