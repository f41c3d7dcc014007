"""A measured PHY rate (`phy_rate` with its time in `phy_rate_ts`, REDIS.md) is used while it is fresh; one its
writer stopped renewing gives way to the topology's operator-entered rate, or is kept as the last known, and
the status says so; a rate entered by hand (no time) does not expire. The runner against a real
redis-server, its status through the API."""

from __future__ import annotations

import asyncio

import pytest
from aggregation_plant import Plant
from test_aggregation_runner import drive, enable

from adwiser_controller import keys
from adwiser_controller.aggregation import phy_rate

PAIR = "ap1/sta1"


def _measured(rdb, aid: str, mbps: str, age_s: float | None) -> None:
    """The pair's rate in phy_rate, measured age_s ago by Redis's clock (None: entered by hand, no time)."""
    rdb.hset(keys.appliance(aid, "phy_rate"), PAIR, mbps)
    if age_s is not None:
        sec, usec = rdb.time()
        rdb.hset(keys.appliance(aid, "phy_rate_ts"), PAIR, f"{sec + usec / 1e6 - age_s:.3f}")


def _pair_after_steps(redis_server, aid: str, v: int, api) -> dict:
    plant = Plant(c_s=300e-6, rates_bps={PAIR: 100e6})
    _, statuses = asyncio.run(drive(redis_server.url, aid, v, plant, 3))
    served = api("viewer").get(f"/api/v1/appliances/{aid}/aggregation")
    assert served.status_code == 200, served.text
    assert served.json()["aps"]["ap1"]["pairs"][PAIR] == pytest.approx(statuses[-1]["aps"]["ap1"]["pairs"][PAIR])
    return statuses[-1]["aps"]["ap1"]["pairs"][PAIR]


def test_a_measured_rate_older_than_the_limit_gives_way_to_the_operator_entered_rate(api, appliance,
                                                                                      redis_server, rdb):
    # its writer stopped a minute ago: the loop paced on its 300 Mbit/s for good, whatever the MCS did since
    aid, _ = appliance
    v = enable(api, aid, phy_rate_mbps=100.0)
    _measured(rdb, aid, "300", 60.0)
    pair = _pair_after_steps(redis_server, aid, v, api)
    assert (pair["rate_source"], pair["phy_rate_mbps"]) == ("topology", 100.0)
    assert pair["rate_stale"] is True
    assert pair["rate_age_s"] == pytest.approx(60.0, abs=5.0)


def test_a_fresh_measured_rate_takes_precedence_over_the_operator_entered_one(api, appliance, redis_server, rdb):
    aid, _ = appliance
    v = enable(api, aid, phy_rate_mbps=100.0)
    _measured(rdb, aid, "300", 0.0)
    pair = _pair_after_steps(redis_server, aid, v, api)
    assert (pair["rate_source"], pair["phy_rate_mbps"], pair["rate_stale"]) == ("telemetry", 300.0, False)
    assert 0.0 <= pair["rate_age_s"] < phy_rate.MAX_AGE_S


def test_a_stale_measured_rate_is_kept_as_the_last_known_without_an_operator_entered_one(api, appliance,
                                                                                          redis_server, rdb):
    # unpaced instead, the pair would go back to slicing each time its rate's writer paused
    aid, _ = appliance
    v = enable(api, aid, phy_rate_mbps=None)
    _measured(rdb, aid, "300", 60.0)
    pair = _pair_after_steps(redis_server, aid, v, api)
    assert (pair["state"], pair["rate_source"], pair["phy_rate_mbps"], pair["rate_stale"]) == (
        "tracking", "telemetry", 300.0, True)
    assert rdb.hget(keys.appliance(aid, "pacing"), PAIR) is not None


def test_a_rate_entered_by_hand_without_a_time_does_not_expire(api, appliance, redis_server, rdb):
    aid, _ = appliance
    v = enable(api, aid, phy_rate_mbps=100.0)
    _measured(rdb, aid, "300", None)
    pair = _pair_after_steps(redis_server, aid, v, api)
    assert (pair["rate_source"], pair["phy_rate_mbps"], pair["rate_age_s"], pair["rate_stale"]) == (
        "telemetry", 300.0, None, False)


def test_a_measured_rate_timed_far_ahead_of_redis_clock_is_stale(api, appliance, redis_server, rdb):
    # its writer's clock an hour ahead: read as age 0, its rate stayed fresh for an hour after the writer stopped
    aid, _ = appliance
    v = enable(api, aid, phy_rate_mbps=100.0)
    _measured(rdb, aid, "300", -3600.0)
    pair = _pair_after_steps(redis_server, aid, v, api)
    assert (pair["rate_source"], pair["phy_rate_mbps"], pair["rate_stale"]) == ("topology", 100.0, True)
    assert pair["rate_age_s"] == pytest.approx(-3600.0, abs=5.0)


def test_a_measured_rate_timed_slightly_ahead_of_redis_clock_is_fresh_at_age_0(api, appliance, redis_server, rdb):
    # writer and Redis synced by NTP still differ by milliseconds
    aid, _ = appliance
    v = enable(api, aid, phy_rate_mbps=100.0)
    _measured(rdb, aid, "300", -0.2)
    pair = _pair_after_steps(redis_server, aid, v, api)
    assert (pair["rate_source"], pair["phy_rate_mbps"], pair["rate_stale"]) == ("telemetry", 300.0, False)
    assert pair["rate_age_s"] == 0.0
