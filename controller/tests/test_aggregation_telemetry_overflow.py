"""Telemetry values that are finite each but overflow the slot's weighted mean (000 (37)) do not reach the
loop, the pacing hash or the status as NaN: the runner against a real redis-server, as in
test_aggregation_runner.py."""

from __future__ import annotations

import json
import math

import pytest
from test_aggregation_runner import tick_once, warmed_up

from adwiser_controller import keys

# what the pair's 7.5 kpkt/s pace releases in half the 0.5 s slot, as frame bytes: it carried its paced rate,
# so the classifier keeps it on the WLAN and the loop steps it (bottleneck.py (ii))
HALF_SLOT = {"released_pkts": "1900", "released_bytes": "2800000"}


@pytest.mark.parametrize("stream,fields", [
    ("tm:pair", {"agg_est": "5", "agg_bursts": "1e308"}),
    ("tm:sta", {"mpdus": "5", "frames": "1e308"}),
])
def test_weights_whose_sum_overflows_give_the_slots_mean_not_nan(api, appliance, redis_server, rdb, stream, fields):
    # Two entries of 1e308 A-MPDUs each: Σ weights and Σ N x weight were inf and μ̃_N inf / inf = NaN, which
    # (45) put into z and (46) into every rate of the AP, and the status JSON carried NaN.
    aid, _ = appliance
    v, plant, runner = warmed_up(api, aid, redis_server.url)
    k = runner.state[aid].loops["ap1"].k
    for _ in range(2):
        extra = fields if stream == "tm:pair" else {}
        rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap1/sta1", **HALF_SLOT, **extra})
        if stream == "tm:sta":
            rdb.xadd(keys.appliance(aid, "tm:sta"), {"pair": "ap1/sta1", **fields})
    ap = tick_once(runner, redis_server.url, aid, 1.5)["aps"]["ap1"]
    pair = ap["pairs"]["ap1/sta1"]
    assert ap["k"] == k + 1 and pair["state"] == "tracking"
    assert pair["mu_n"] == pytest.approx(5.0)
    assert math.isfinite(pair["z"]) and math.isfinite(pair["pace_bps"]) and pair["pace_bps"] > 0
    json.loads(rdb.get(keys.appliance(aid, "aggregation")), parse_constant=lambda c: pytest.fail(f"status has {c}"))


def _served_without_non_finite_numbers(api, rdb, aid: str) -> None:
    json.loads(rdb.get(keys.appliance(aid, "aggregation")), parse_constant=lambda c: pytest.fail(f"status has {c}"))
    res = api("viewer").get(f"/api/v1/appliances/{aid}/aggregation")
    assert res.status_code == 200, res.text


def test_released_bytes_whose_sum_overflows_leave_the_send_rate_unknown_and_the_step_taken(api, appliance,
                                                                                           redis_server, rdb):
    # Σ released_bytes of two finite entries is an int above the largest float: the send rate's division raised
    # OverflowError, the appliance's step failed and its loops restarted at every Δ that read such a slot.
    aid, _ = appliance
    v, plant, runner = warmed_up(api, aid, redis_server.url)
    k = runner.state[aid].loops["ap1"].k
    for _ in range(2):
        rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap1/sta1", "released_pkts": "1900",
                                                   "released_bytes": "1e308", "agg_est": "5"})
    ap = tick_once(runner, redis_server.url, aid, 1.5)["aps"]["ap1"]
    pair = ap["pairs"]["ap1/sta1"]
    assert ap["k"] == k + 1 and pair["delivered_bps"] is None
    assert math.isfinite(pair["pace_bps"]) and pair["pace_bps"] > 0
    _served_without_non_finite_numbers(api, rdb, aid)


@pytest.mark.parametrize("fields", [
    {"ack_delay_ms": "1e308", "ack_delay_min_ms": "1", "ack_delay_samples": "10"},   # Σ delay x samples
    {"ack_delay_ms": "1e-300", "ack_delay_min_ms": "0", "ack_delay_samples": "1e308"},  # Σ samples, an int
    {"ack_delay_ms": "8e307", "ack_delay_min_ms": "-1.5e308", "ack_delay_samples": "1"},  # delay over its floor
])
def test_release_to_ack_delays_whose_sums_overflow_are_no_delay_not_inf(api, appliance, redis_server, rdb, fields):
    # Σ ack_delay_ms x ack_delay_samples went to inf (the status JSON carried Infinity, which the API cannot
    # serve), Σ ack_delay_samples to an int no float holds (OverflowError: the step failed), and a finite mean
    # over a finite floor to an ack_queue_ms of inf
    aid, _ = appliance
    v, plant, runner = warmed_up(api, aid, redis_server.url)
    for _ in range(2):
        rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap1/sta1", **HALF_SLOT, "agg_est": "5", **fields})
    pair = tick_once(runner, redis_server.url, aid, 1.5)["aps"]["ap1"]["pairs"]["ap1/sta1"]
    assert pair["ack_queue_ms"] is None
    assert pair["ack_delay_ms"] is None or math.isfinite(pair["ack_delay_ms"])
    _served_without_non_finite_numbers(api, rdb, aid)


def test_aggregation_samples_whose_sum_overflows_give_a_finite_ratio_to_the_target(api, appliance, redis_server,
                                                                                    rdb):
    # the classifier's window summed its n samples: five finite agg_est of 1e308 gave agg_ratio inf, which the
    # status JSON carried as Infinity (and the API could not serve)
    aid, _ = appliance
    v, plant, runner = warmed_up(api, aid, redis_server.url)
    for _ in range(5):
        rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap1/sta1", **HALF_SLOT, "agg_est": "1e308"})
    pair = tick_once(runner, redis_server.url, aid, 1.5)["aps"]["ap1"]["pairs"]["ap1/sta1"]
    assert pair["agg_ratio"] is not None and math.isfinite(pair["agg_ratio"])
    _served_without_non_finite_numbers(api, rdb, aid)
