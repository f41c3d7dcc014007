"""A pair's bottleneck-classifier window and release-to-ACK delay floor start empty when its loop starts again: on
the policy switched off and on, and on the pair leaving the policy and coming back. Runner against a real
redis-server, as in test_aggregation_runner.py. Before, the samples from before the gap stayed in both and decided
the first verdicts and floors after it."""

from __future__ import annotations

from typing import Any

from lab_document import lab_doc
from test_aggregation_runner import tick_once, warmed_up

from adwiser_controller import keys

PAIR = "ap1/sta1"


def _store(api, aid: str, *, enabled: bool, pairs: list[str]) -> int:
    doc = lab_doc(aid)
    doc["policies"]["aggregation_target"].update({"enabled": enabled, "pairs": pairs, "t_bar_ms": 5.0,
                                                  "delta_s": 0.5})
    for sta in doc["topology"]["stas"]:
        sta["phy_rate_mbps"] = 100.0
    res = api("operator").post("/api/v1/versions", json={"doc": doc})
    assert res.status_code == 201, res.text
    return int(res.json()["version"])


def _slot(rdb, runner, url: str, aid: str, version: int, now_s: float, entries: int, *, agg: str,
          least_ms: str) -> dict[str, Any]:
    """`entries` telemetry entries of PAIR, then one step of the runner under `version`."""
    rdb.set(keys.appliance(aid, "active"), version)
    for _ in range(entries):
        rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": PAIR, "released_pkts": "100", "retx_pkts": "0",
                                                  "drops_tail": "0", "drops_other": "0", "agg_est": agg,
                                                  "ack_delay_ms": "20", "ack_delay_min_ms": least_ms,
                                                  "ack_delay_samples": "10"})
    return tick_once(runner, url, aid, now_s)


def _stale_then_back(api, rdb, redis_server, aid: str, gap_version: int) -> list[dict[str, Any]]:
    """PAIR's window filled with backhaul-like samples (small A-MPDUs) and a 1 ms delay floor, one step under
    gap_version (more such entries meanwhile), then three steps of PAIR's loop again with one new sample each at
    a 5 ms floor; PAIR's status in those three."""
    v, _, runner = warmed_up(api, aid, redis_server.url)
    url = redis_server.url
    _slot(rdb, runner, url, aid, v, 10.0, 5, agg="1", least_ms="1")
    _slot(rdb, runner, url, aid, gap_version, 10.5, 5, agg="1", least_ms="1")   # the dataplane goes on reporting
    back = [_slot(rdb, runner, url, aid, v, 11.0 + 0.5 * k, 1, agg="20", least_ms="5") for k in range(3)]
    return [s["aps"]["ap1"]["pairs"][PAIR] for s in back]


def _assert_fresh(back: list[dict[str, Any]]) -> None:
    # at most three samples since the pair's loop started again, fewer than the window's n = 5: no verdict yet
    assert [p["bottleneck"] for p in back[1:]] == ["unknown", "unknown"]
    # the floor is the least delay since, not the 1 ms from before
    assert [p["ack_delay_floor_ms"] for p in back[1:]] == [5.0, 5.0]


def test_a_policy_switched_off_and_on_again_starts_its_pairs_windows_and_delay_floors_empty(api, appliance,
                                                                                            redis_server, rdb):
    aid, _ = appliance
    _assert_fresh(_stale_then_back(api, rdb, redis_server, aid, _store(api, aid, enabled=False, pairs=[PAIR])))


def test_a_pair_that_leaves_the_policy_and_returns_starts_its_window_and_delay_floor_empty(api, appliance,
                                                                                         redis_server, rdb):
    aid, _ = appliance
    _assert_fresh(_stale_then_back(api, rdb, redis_server, aid, _store(api, aid, enabled=True, pairs=["ap2/sta2"])))
