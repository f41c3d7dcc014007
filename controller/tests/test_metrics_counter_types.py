"""/metrics types each series as what it counts: the dataplane's cumulative drop counts are counters."""

from __future__ import annotations

import json
import time

from adwiser_controller import keys


def test_cumulative_pair_drops_are_exposed_as_counters(api, appliance, rdb):
    aid, _ = appliance
    rdb.set(keys.appliance(aid, "heartbeat"), json.dumps({"ts_ns": time.time_ns(), "pid": 1}), ex=3)
    rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap1/sta1", "drops_tail": "7", "drops_other": "2",
                                               "tput_mbps": "10"})
    text = api("viewer").get("/metrics").text
    for name, value in (("adwiser_pair_drops_tail", 7), ("adwiser_pair_drops_other", 2)):
        assert f"# TYPE {name}_total counter" in text, text
        assert f'{name}_total{{appliance="{aid}",pair="ap1/sta1"}} {float(value)}' in text
        assert f"# TYPE {name} gauge" not in text
    assert f'adwiser_pair_throughput_mbps{{appliance="{aid}",pair="ap1/sta1"}} 10.0' in text
