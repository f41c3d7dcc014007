"""The downlink goals' breakdown (runner/downlink_breakdown.py) on a hand-made run:
one pair, a set-up of small batches, a first second, then steady frames."""
import json
import math
from pathlib import Path

from runner import downlink_breakdown

FRAME_NS = 40_000_000


def _pair(k: int, released: int, drains: int, v_ms: float) -> dict:
    return {"type": "pair", "ts_ns": 1_000_000_000 + k * FRAME_NS, "frame": k, "pair": "ap1/sta1",
            "released_pkts": released, "drains": drains, "v_sum_ms": v_ms * drains}


def _run(tmp_path: Path) -> Path:
    recs = [_pair(0, 0, 0, 0.0), _pair(1, 1, 1, 0.6), _pair(2, 3, 1, 1.4)]       # connection set-up
    recs += [_pair(3 + k, 60, 1, 15.0) for k in range(25)]                      # the first second
    recs += [_pair(28 + k, 130, 1, 19.5) for k in range(50)]                    # steady
    (tmp_path / "adwiser-dp.telemetry.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    (tmp_path / "adwiser-dp.stats.json").write_text(json.dumps(
        {"core": {"drains_completed": 76, "drains_capped": 0, "drains_superseded": 0,
                  "slice_deferrals": 19, "slice_deferred_ns": 38_000_000}}))
    log = ["[ ID] Interval           Transfer     Bitrate"]
    log += [f"[  5]   {k}.00-{k + 1}.00   sec  4.00 MBytes  {30.0 if k == 0 else 38.0} Mbits/sec" for k in range(20)]
    log += ["[  5]  20.00-20.24  sec  0.00 Bytes  0.00 bits/sec",
            "[  5]   0.00-20.24  sec  88.9 MBytes  36.8 Mbits/sec                  receiver"]
    (tmp_path / "iperf3-srv-ap1-sta1.log").write_text("\n".join(log) + "\n")
    return tmp_path


def test_drains_of_the_set_up_and_the_first_second_are_split_from_the_steady_ones(tmp_path: Path) -> None:
    res = downlink_breakdown.breakdown(_run(tmp_path), 20.0, {"ap1/sta1": 40.0})
    row = res["pairs"]["ap1/sta1"]
    assert row["boundary"] == {"drains": 2, "mean_v_ms": 1.0}
    assert row["first_s"] == {"drains": 25, "mean_v_ms": 15.0}
    assert row["steady"] == {"drains": 50, "mean_v_ms": 19.5}
    assert row["all"]["drains"] == 77
    assert math.isclose(row["all"]["mean_v_ms"], round((2 * 1.0 + 25 * 15.0 + 50 * 19.5) / 77, 3))


def test_held_back_batches_wait_per_drain_predicts_the_steady_mean_v(tmp_path: Path) -> None:
    res = downlink_breakdown.breakdown(_run(tmp_path), 20.0)
    # 38 ms of waiting over 76 drains: 0.5 ms per drain, so eq. (1) settles at V = 19.5 on average
    assert res["deferral"]["wait_ms_per_drain"] == 0.5
    assert res["deferral"]["mean_wait_ms"] == 2.0
    assert res["deferral"]["steady_v_predicted_ms"] == 19.5


def test_receiver_steady_seconds_exclude_second_0_and_the_tail_after_20_s(tmp_path: Path) -> None:
    res = downlink_breakdown.breakdown(_run(tmp_path), 20.0, {"ap1/sta1": 40.0})
    rx = res["pairs"]["ap1/sta1"]["receiver"]
    assert rx["second_0_mbps"] == 30.0 and rx["seconds_1_on_mbps"] == 38.0
    assert rx["after_20_s"] == [[20.0, 20.24, 0.0]]
    assert rx["steady_share_of_beta_half"] == 0.95
    assert res["steady_utility"] == round(math.log(38.0), 4)
