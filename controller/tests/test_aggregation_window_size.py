"""A version that changes the bottleneck classifier's n (bottleneck_frames) or p (bottleneck_packets) and keeps the
loop's parameters continues the loop, and its verdicts are over the last n samples and about p packets from that
step on, whether or not the pair had new samples in it. Runner against a real redis-server, as in
test_aggregation_runner.py."""

from __future__ import annotations

from typing import Any

import pytest
from lab_document import lab_doc
from test_aggregation_runner import tick_once, warmed_up

from adwiser_controller import keys

PAIR = "ap1/sta1"


def _store(api, aid: str, **classifier: int) -> int:
    doc = lab_doc(aid)
    doc["policies"]["aggregation_target"].update({"enabled": True, "pairs": [PAIR], "t_bar_ms": 5.0, "delta_s": 0.5,
                                                  **classifier})
    for sta in doc["topology"]["stas"]:
        sta["phy_rate_mbps"] = 100.0
    res = api("operator").post("/api/v1/versions", json={"doc": doc})
    assert res.status_code == 201, res.text
    return int(res.json()["version"])


def _slot(rdb, runner, url: str, aid: str, version: int, now_s: float,
          entries: list[dict[str, str]]) -> dict[str, Any]:
    rdb.set(keys.appliance(aid, "active"), version)
    for f in entries:
        rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": PAIR, "drops_tail": "0", "drops_other": "0", **f})
    return tick_once(runner, url, aid, now_s)["aps"]["ap1"]["pairs"][PAIR]


def test_a_smaller_classifier_window_takes_effect_in_a_step_without_new_samples(api, appliance, redis_server, rdb):
    aid, _ = appliance
    v, _, runner = warmed_up(api, aid, redis_server.url)
    url = redis_server.url
    # five aggregation samples and 60 packets with 30 lost, then 60 packets without loss: the window's
    # p = 100 packets hold both slots' (loss 30 / 150)
    busy = [{"released_pkts": "12", "retx_pkts": str(6 * k), "agg_est": a}
            for k, a in enumerate(("4", "4", "4", "20", "20"), start=1)]
    before = _slot(rdb, runner, url, aid, v, 10.0, busy)
    _slot(rdb, runner, url, aid, v, 10.5, [{"released_pkts": "60", "retx_pkts": "30"}])
    held = _slot(rdb, runner, url, aid, v, 11.0, [])
    assert before["bottleneck"] != "unknown" and held["loss"] == pytest.approx(0.2)
    # n 5 -> 2 and p 100 -> 50, in a step in which the pair is idle (no sample, no packet)
    smaller = _store(api, aid, bottleneck_frames=2, bottleneck_packets=50)
    pair = _slot(rdb, runner, url, aid, smaller, 11.5, [{"released_pkts": "0", "retx_pkts": "30"}])
    assert pair["agg_ratio"] == pytest.approx(20 / held["n_target"])  # the last two samples, not the five
    assert pair["loss"] == 0.0                                          # the last 60 packets (>= p), not 120
