"""The start of the inner-outer loops of 000 §VI (aggregation/loop.py): where a pair starts and
what the first slot, which was paced at none of the loop's rates, may change."""

from __future__ import annotations

import statistics

import pytest
from aggregation_plant import Plant

from adwiser_controller.aggregation.loop import (BURST_MPDUS, LoopParams, LoopState, StaMeasurement, StepResult,
                                                 initial, step)


def test_the_slot_the_first_pair_joined_in_moves_neither_c_hat_nor_z() -> None:
    # The runner's loop after slots without a PHY rate ('no_rate'): an empty state. The slot in
    # which the rate first appears was not paced at any x of the loop's (the pair went unpaced),
    # so its μ̃ must enter neither ĉ (40) nor z (45); ν's (43) runs on the loop's own x(k) = F⁻¹(z(k)).
    params = LoopParams(t_bar_s=0.0015, n_bar=28.95, c_init_s=250e-6)
    unpaced = {"ap1/sta1": StaMeasurement(358e6, mu_n=20.0, delivered_pps=12000.0)}
    res = step(params, LoopState(), unpaced, now_s=1.0)
    start = initial(params, {"ap1/sta1": StaMeasurement(358e6, None)})
    assert res.state.c_hat == params.c_init_s and res.c_check is None
    assert res.state.z == start.z
    assert res.rates_pps == pytest.approx(start.x)         # the first paced slot holds the start rate
    g = params.t_bar_s * start.x["ap1/sta1"]
    assert res.state.nu == pytest.approx(start.nu + params.k2 * (g - start.nu))
    assert res.state.k == 1 and res.state.t_s == 1.0


def test_a_joining_pair_leaves_c_hat_alone_until_a_slot_paced_at_its_rate() -> None:
    params = LoopParams(t_bar_s=0.005, n_bar=48, c_init_s=300e-6)
    plant = Plant(c_s=300e-6, rates_bps={"ap/fast": 300e6})
    st = initial(params, {"ap/fast": StaMeasurement(300e6, None)})
    for k in range(60):
        mu = plant.aggregation(st.x)
        st = step(params, st, {"ap/fast": StaMeasurement(300e6, mu["ap/fast"])}, now_s=0.5 * (k + 1)).state
    # a slower pair (station 1 from now on) joins; its μ̃ was measured while it went unpaced
    mu_fast = plant.aggregation(st.x)["ap/fast"]
    meas = {"ap/fast": StaMeasurement(300e6, mu_fast), "ap/slow": StaMeasurement(60e6, 40.0)}
    res = step(params, st, meas, now_s=31.0)
    assert res.state.c_hat == st.c_hat and res.c_check is None
    # its share of ν carried to itself as station 1: the airtime ν w_1 the fast pair had
    assert res.state.z["ap/slow"] == pytest.approx(st.nu * 60 / 300)
    assert res.state.z["ap/fast"] == pytest.approx(st.z["ap/fast"] + params.k1 * (st.n_target["ap/fast"] - mu_fast))
    # the next slot was paced at its rate: it enters (40) again
    plant.rates_bps["ap/slow"] = 60e6
    mu = plant.aggregation(res.state.x)
    nxt = step(params, res.state, {s: StaMeasurement(plant.rates_bps[s], mu[s]) for s in mu}, now_s=31.5)
    assert nxt.c_check == pytest.approx(plant.c_s)


def test_the_loop_starts_at_nbar_with_the_rates_of_nu_one() -> None:
    # Lemma 2's range for ν(1) is [1, N̄]: the outer loop starts at its top, the inner loop's z at the
    # bottom (z = W, the smallest equal-airtime aggregation), so the first rates are the lowest.
    params = LoopParams(t_bar_s=0.0015, n_bar=28.95, c_init_s=250e-6)
    st = initial(params, {"ap/fast": StaMeasurement(360e6, None), "ap/slow": StaMeasurement(120e6, None)})
    assert st.nu == pytest.approx(28.95 * 120 / 360)           # ν_max: the fast pair's N̄ binds first
    assert st.n_target == pytest.approx({"ap/fast": 28.95, "ap/slow": 28.95 * 120 / 360})
    assert st.z == pytest.approx({"ap/fast": 3.0, "ap/slow": 1.0})


def test_the_start_is_at_nu_one_or_more_when_the_mcs_rates_differ_by_more_than_nbar() -> None:
    # ν_max = N̄ w_fast/w_1 is under 1 here (48 x 6.5/866.7); Lemma 2's start 1 <= ν(1) <= N̄, and no
    # target under one MPDU (000 §IV-C)
    params = LoopParams(t_bar_s=0.005, n_bar=48)
    st = initial(params, {"ap/slow": StaMeasurement(6.5e6, None), "ap/fast": StaMeasurement(866.7e6, None)})
    assert st.nu == 1.0
    assert st.n_target == pytest.approx({"ap/slow": 1.0, "ap/fast": 48.0})


def test_startup_reaches_the_delay_target_within_2_s_without_exceeding_it() -> None:
    # aggtarget-1sta-lowdelay's plant: T-bar 1.5 ms, c about 0.75 ms (č 0.5-0.86 ms in the testbed's
    # loop history), c_init 250 us. Started at ν(1) = 1 the delay crept up to T-bar over 10-15 s
    # (ν grows by at most 1 + K2 (T̄ - c)/c per Δ, about 1.2 here); from the top of Lemma 2's range, with
    # ĉ set by the first č, z halves its distance to N_target every Δ (K1 = 0.5) and the delay comes up
    # from below: no slot over T-bar on the way.
    params = LoopParams(t_bar_s=0.0015, n_bar=28.95, c_init_s=250e-6)
    plant = Plant(c_s=750e-6, rates_bps={"ap1/sta1": 358e6})
    st = initial(params, {"ap1/sta1": StaMeasurement(358e6, None)})
    delays = []
    for k in range(200):
        mu = plant.aggregation(st.x)
        delays.append(plant.delay_s(mu))
        st = step(params, st, {"ap1/sta1": StaMeasurement(358e6, mu["ap1/sta1"])}, now_s=0.5 * (k + 1)).state
    assert max(delays) <= 0.0015 * 1.02
    assert min(delays[4:]) >= 0.0015 * 0.95                                      # from the fifth slot, 2 s
    assert st.c_hat == pytest.approx(plant.c_s, rel=0.01)
    nu_star = (params.t_bar_s - plant.c_s) / plant.w("ap1/sta1")                 # Lemma 2 (i)
    assert st.nu == pytest.approx(nu_star, rel=0.05)


def test_the_first_c_checks_replace_c_init_the_smaller_of_two_then_the_average() -> None:
    params = LoopParams(t_bar_s=0.0015, n_bar=28.95, c_init_s=250e-6)
    plant = Plant(c_s=2.0e-3, rates_bps={"ap1/sta1": 358e6})     # a first slot inflated by a backlog
    st = initial(params, {"ap1/sta1": StaMeasurement(358e6, None)})

    def slot(state: LoopState, now_s: float) -> StepResult:
        mu = plant.aggregation(state.x)
        return step(params, state, {"ap1/sta1": StaMeasurement(358e6, mu["ap1/sta1"])}, now_s=now_s)

    first = slot(st, 0.5)
    assert first.c_check == pytest.approx(2.0e-3) and first.state.c_hat == pytest.approx(2.0e-3)
    plant.c_s = 750e-6
    second = slot(first.state, 1.0)
    assert second.state.c_hat == pytest.approx(750e-6)            # the smaller of the first two
    plant.c_s = 1.75e-3                                           # later checks enter the average at weight β
    third = slot(second.state, 1.5)
    assert third.state.c_hat == pytest.approx(750e-6 + params.beta * (third.c_check - 750e-6))


def test_a_replaced_c_hat_does_not_move_the_rates_by_itself() -> None:
    # c_init (250 us; 000 §VI-B's c of one station is about 200 µs) is a prior: with five stations the
    # first č was 3.0-4.0 ms (aggtarget-5sta-mixed-mcs: 000 §IV's c sums every station's channel-access
    # overhead of a round, and the STAs' TCP ACKs add theirs). Replacing c_init by it in (46) cut every
    # start rate 2-12x for one Δ (sta4 from 30.3 to 2.5 Mbit/s) although each pair's μ̃ was under its
    # target. A replaced ĉ re-expresses z at the rates held over the slot it measured (z = x D,
    # D = č / (1 - wᵀx)), so only (45) moves the rates.
    params = LoopParams(t_bar_s=0.010, n_bar=34.0, c_init_s=250e-6)
    rates = {"ap/s1": 850e6, "ap/s2": 640e6, "ap/s3": 390e6, "ap/s4": 280e6, "ap/s5": 250e6}
    plant = Plant(c_s=2.0e-3, rates_bps=rates)     # 8x c_init; at the start rates μ̃ = 0.8 N_target
    st = initial(params, {s: StaMeasurement(r, None) for s, r in rates.items()})
    mu = plant.aggregation(st.x)
    assert all(mu[s] < st.n_target[s] for s in rates)
    res = step(params, st, {s: StaMeasurement(r, mu[s]) for s, r in rates.items()}, now_s=0.5)
    assert res.state.c_hat == pytest.approx(2.0e-3)
    for s in rates:
        assert res.rates_pps[s] >= st.x[s]
    # z now stands for the aggregation the plant produced at those rates (000 (8): z = μ̃ at the fixed point)
    raised = {s: res.state.z[s] - params.k1 * (st.n_target[s] - mu[s]) for s in rates}
    assert raised == pytest.approx(mu, rel=1e-6)
    # a smaller second č replaces ĉ in the same way: z is re-expressed at the rates of its slot, so the
    # rates do not jump up with it (over-pacing every pair at once)
    plant.c_s = 1.0e-3
    mu2 = plant.aggregation(res.state.x)
    res2 = step(params, res.state, {s: StaMeasurement(r, mu2[s]) for s, r in rates.items()}, now_s=1.0)
    assert res2.state.c_hat == pytest.approx(1.0e-3)
    raised2 = {s: res2.state.z[s] - params.k1 * (res.state.n_target[s] - mu2[s]) for s in rates}
    assert raised2 == pytest.approx(mu2, rel=1e-6)


def test_c_check_reads_the_round_at_the_rates_the_pairs_sent_not_at_their_paced_rates() -> None:
    # 000 §IV's x is the send rate. At the start TCP's windows fill only part of the paced rates
    # (aggtarget-5sta-mixed-mcs, cfb3075: two pairs sent 39-75 % of theirs), so the AP's aggregation
    # follows what was sent, and (40) on the paced rates read a round too short by that ratio:
    # č 0.1-0.6 ms against 2.5-3.0 ms, which as ĉ raised every rate through (46).
    params = LoopParams(t_bar_s=0.010, n_bar=34.0, c_init_s=250e-6)
    rates = {"ap/s1": 850e6, "ap/s2": 640e6, "ap/s3": 390e6, "ap/s4": 280e6, "ap/s5": 250e6}
    plant = Plant(c_s=2.0e-3, rates_bps=rates)
    share = {"ap/s1": 0.75, "ap/s2": 1.0, "ap/s3": 1.0, "ap/s4": 0.75, "ap/s5": 0.4}
    st = initial(params, {s: StaMeasurement(r, None) for s, r in rates.items()})
    for k in range(2):                            # the first č and the second, which replace ĉ
        sent = {s: share[s] * st.x[s] for s in rates}
        mu = plant.aggregation(sent)
        res = step(params, st, {s: StaMeasurement(r, mu[s], delivered_pps=sent[s]) for s, r in rates.items()},
                   now_s=0.5 * (k + 1))
        assert res.c_check == pytest.approx(plant.c_s, rel=1e-6)
        st = res.state
    assert st.c_hat == pytest.approx(plant.c_s, rel=1e-6)
    # where the sent rate is unknown, the paced rate stands for it, and the same slot reads low: each
    # station's check is c · share · (1 - wᵀx)/(1 - wᵀsent), the median over those above BURST_MPDUS
    # (s5, sending 40 %, is at the plant's floor by now)
    sent = {s: share[s] * st.x[s] for s in rates}
    mu = plant.aggregation(sent)
    blind = step(params, st, {s: StaMeasurement(r, mu[s]) for s, r in rates.items()}, now_s=1.5)
    w = {s: params.w_of(r) for s, r in rates.items()}
    load = sum(w[s] * st.x[s] for s in rates), sum(w[s] * sent[s] for s in rates)
    assert mu["ap/s5"] <= BURST_MPDUS
    counted = [share[s] for s in rates if s != "ap/s5"]
    assert blind.c_check == pytest.approx(plant.c_s * statistics.median(counted) * (1 - load[0]) / (1 - load[1]))
    assert blind.c_check < 0.85 * plant.c_s


def test_first_c_check_when_the_held_rates_overfill_the_air_at_the_new_phy_rates_keeps_z() -> None:
    # The first č re-expresses z at the rates held over its slot, z = x ĉ / (1 - wᵀx), with w from the PHY
    # rates reported in the same step. Right after the start those can be far lower than the first ones
    # (rate control starting low), and wᵀx ≥ 1 then has no such z: the pairs keep theirs. Before this the
    # step lost every z and raised KeyError, which stopped the aggregation loop (an
    # aggtarget-5sta-mixed-mcs-5ms run, 2026-11-26).
    params = LoopParams(t_bar_s=0.005, n_bar=34.0)
    rates = {"ap/s1": 850e6, "ap/s2": 250e6}
    st = initial(params, {s: StaMeasurement(r, None) for s, r in rates.items()})
    quarter = {s: r / 4 for s, r in rates.items()}
    assert sum(params.w_of(quarter[s]) * st.x[s] for s in rates) > 1.0
    res = step(params, st, {s: StaMeasurement(quarter[s], 8.0, delivered_pps=0.2 * st.x[s]) for s in rates},
               now_s=0.5)
    assert res.c_check is not None and res.state.c_hat == res.c_check
    assert set(res.state.z) == set(rates)
    assert all(0 < x < st.x[s] for s, x in res.rates_pps.items())


def _settled_alone(params: LoopParams, plant: Plant, pair: str, steps: int = 60) -> LoopState:
    st = initial(params, {pair: StaMeasurement(plant.rates_bps[pair], None)})
    for k in range(steps):
        mu = plant.aggregation(st.x)
        st = step(params, st, {pair: StaMeasurement(plant.rates_bps[pair], mu[pair])}, now_s=0.5 * (k + 1)).state
    return st


def test_a_slower_pair_joining_keeps_the_aps_delay_under_tbar() -> None:
    # ν is station 1's target. A slower pair joining becomes station 1, and a ν left in the old station 1's
    # units gave every pair the airtime ν w_1 at the new, larger w_1: here 5x, the joined pair started at
    # 48 MPDUs of 60 Mbit/s and the AP's delay went to 12.2 ms against a T̄ of 5 ms, over T̄ for 6 s.
    params = LoopParams(t_bar_s=0.005, n_bar=48, c_init_s=300e-6)
    plant = Plant(c_s=300e-6, rates_bps={"ap/fast": 300e6})
    st = _settled_alone(params, plant, "ap/fast")
    mu_fast = plant.aggregation(st.x)["ap/fast"]
    plant.rates_bps["ap/slow"] = 60e6
    st = step(params, st, {"ap/fast": StaMeasurement(300e6, mu_fast), "ap/slow": StaMeasurement(60e6, 40.0)},
              now_s=31.0).state
    delays = []
    for k in range(30):
        mu = plant.aggregation(st.x)
        delays.append(plant.delay_s(mu))
        st = step(params, st, {s: StaMeasurement(plant.rates_bps[s], mu[s]) for s in mu}, now_s=31.5 + 0.5 * k).state
    assert max(delays) <= 1.05 * params.t_bar_s
    assert plant.airtime_shares(plant.aggregation(st.x)) == pytest.approx({"ap/fast": 0.5, "ap/slow": 0.5}, rel=0.02)


def test_the_slowest_pair_leaving_keeps_the_other_pairs_target() -> None:
    # The mirror: with station 1 gone, a ν left in its units cut every other pair's target by w_1new/w_1old
    # (48 -> 16 here, N̄ binding), and the outer loop took 5 s to bring it back at K2's pace.
    params = LoopParams(t_bar_s=0.005, n_bar=48, c_init_s=300e-6)
    plant = Plant(c_s=300e-6, rates_bps={"ap/slow": 100e6, "ap/fast": 300e6})
    st = initial(params, {s: StaMeasurement(r, None) for s, r in plant.rates_bps.items()})
    for k in range(100):
        mu = plant.aggregation(st.x)
        st = step(params, st, {s: StaMeasurement(plant.rates_bps[s], mu[s]) for s in mu}, now_s=0.5 * (k + 1)).state
    assert st.n_target["ap/fast"] == pytest.approx(48.0)
    mu_fast = plant.aggregation(st.x)["ap/fast"]
    res = step(params, st, {"ap/fast": StaMeasurement(300e6, mu_fast)}, now_s=50.5)
    assert res.state.n_target["ap/fast"] == pytest.approx(48.0)


def test_a_much_slower_pair_joining_starts_at_one_mpdu_or_more() -> None:
    # ν carried to a station 1 hundreds of times slower is under 1; (43) keeps ν >= 1 and z is in [1, N_max]
    params = LoopParams(t_bar_s=0.0015, n_bar=48, c_init_s=300e-6)
    plant = Plant(c_s=300e-6, rates_bps={"ap/fast": 866e6})
    st = _settled_alone(params, plant, "ap/fast")
    mu_fast = plant.aggregation(st.x)["ap/fast"]
    res = step(params, st, {"ap/fast": StaMeasurement(866e6, mu_fast), "ap/slow": StaMeasurement(6.5e6, None)},
               now_s=31.0)
    assert res.state.z["ap/slow"] == pytest.approx(1.0) and res.state.nu >= 1.0
