"""The ACK-burst classifier's least gap per receiving-STA count (runner/ack_gap.py; issue 9, 001 §4.1): the
burst rule replayed as ack_burst.c applies it, the round a gap must stay under, the choice per count, and the
m = 1 model's own gap. No network."""
from __future__ import annotations

import math
import statistics

import pytest

from runner import ack_dataset, ack_gap, ack_scale

MS = 1_000_000
US = 1_000


def _ack(t_ns: int, ackno: int) -> ack_dataset.Frame:
    return ack_dataset.Frame(t_ns, 66, False, True, True, flow=(80, 40000), ack=ackno, flags=0x10)


def _split_acks(ampdus: int, round_ns: int, split_ns: int) -> list[ack_dataset.Frame]:
    """One flow's ACKs: per A-MPDU (a round apart) two uplink PPDUs split_ns apart, each 5 ACKs of 2 segments
    20 µs apart; a last ACK closes the last burst."""
    acks, ackno = [_ack(0, 1)], 1
    for b in range(ampdus):
        for half in range(2):
            for a in range(5):
                ackno += 2 * ack_gap.MSS
                acks.append(_ack((b + 1) * round_ns + half * split_ns + a * 20 * US, ackno))
    acks.append(_ack((ampdus + 2) * round_ns, ackno))
    return acks


def test_a_least_gap_longer_than_the_split_joins_its_acks_into_one_burst_per_ampdu():
    acks = ack_gap.ack_series(_split_acks(6, 5 * MS, 1 * MS))
    split = ack_gap.bursts(*acks, 650)
    joined = ack_gap.bursts(*acks, 1500)
    assert [s for _, s in split] == [10.0] * 12
    assert [s for _, s in joined] == [20.0] * 6


def test_the_m1_models_gap_is_where_its_probability_reaches_the_threshold():
    model = {"m": 1, "intercept": -2.0, "coef": [0.002, 0.0], "threshold": 0.5}
    assert ack_gap.model_gap_us(model) == pytest.approx(1000.0)
    with pytest.raises(ValueError):
        ack_gap.model_gap_us(dict(model, m=2))


def test_the_round_is_the_least_median_time_between_a_pairs_ampdus():
    ppdus = [{"pair": "ap1/sta1", "start_us": i * 4000} for i in range(20)] + \
            [{"pair": "ap1/sta2", "start_us": i * 3000 + 7} for i in range(20)]
    assert ack_gap.round_us(ppdus) == 3000.0


def _rows(stas: int, gap_ratios: dict[float, list[float]], round_us: float) -> dict[float, list[dict[str, object]]]:
    """Per gap, slots of pairs sta1..staN whose true / raw is the given ratio in every slot."""
    out = {}
    for g, ratios in gap_ratios.items():
        out[g] = [{"pair": f"ap1/sta{i}", "slot": s, "stas": stas, "raw": 10.0, "truth": 10.0 * r,
                   "round_us": round_us} for i, r in enumerate(ratios, start=1)
                  for s in range(ack_scale.MIN_SLOTS // len(ratios) + 5)]
    return out


def test_the_gap_with_the_least_spread_across_pairs_is_chosen_below_half_the_round():
    # 2000 µs would even the pairs out more, but the round is 3 ms: it may not exceed 1.5 ms
    rows = _rows(5, {0: [0.9, 1.1, 1.0], 1000: [0.95, 1.05, 1.0], 2000: [1.0, 1.0, 1.0]}, 3000.0)
    chosen = ack_gap.choose(rows)
    assert chosen[5]["gap_us"] == 1000.0 and chosen[5]["limit_us"] == 1500
    assert chosen[5]["spread"] == pytest.approx(ack_gap.spread(rows[1000]), abs=1e-4)
    assert ack_gap.spread(rows[1000]) == pytest.approx(statistics.pstdev([math.log(0.95), math.log(1.05), 0.0]))


def test_one_sta_keeps_the_models_gap_and_a_count_with_few_slots_is_left_to_interpolation():
    one = _rows(1, {0: [1.0], 1000: [1.0]}, 4000.0)
    assert ack_gap.choose(one)[1]["gap_us"] == 0.0
    few = {0: [{"pair": "ap1/sta1", "slot": 1, "stas": 4, "raw": 10.0, "truth": 9.0, "round_us": 4000.0}]}
    assert ack_gap.choose(few) == {}
