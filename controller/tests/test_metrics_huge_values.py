"""A number in Redis too large for a double (the dataplane's `active`, a pair's counter) is left out of
/metrics, as a field that is no number is: Prometheus samples are doubles, and converting one made the
whole scrape a 500, for every appliance."""

from __future__ import annotations

import json
import time

from adwiser_controller import keys

HUGE = "9" * 400  # an int Python parses exactly, beyond a double's range


def test_a_value_beyond_a_double_is_left_out_of_metrics(api, appliance, rdb):
    aid, _ = appliance
    rdb.set(keys.appliance(aid, "heartbeat"), json.dumps({"ts_ns": time.time_ns(), "pid": 1}), ex=3)
    rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap1/sta1", "drops_tail": HUGE, "drops_other": "2",
                                               "r_pkts": HUGE, "tput_mbps": "10"})
    rdb.xadd(keys.appliance(aid, "tm:frame"), {"ts_ns": "1", "frame": "1", "reassignments": HUGE, "utility": "1.5"})
    rdb.set(keys.appliance(aid, "active"), HUGE)
    try:
        resp = api("viewer").get("/metrics")
        assert resp.status_code == 200, resp.text
        text = resp.text
        assert f'adwiser_pair_drops_other_total{{appliance="{aid}",pair="ap1/sta1"}} 2.0' in text
        assert f'adwiser_pair_throughput_mbps{{appliance="{aid}",pair="ap1/sta1"}} 10.0' in text
        assert f'adwiser_frame_utility{{appliance="{aid}"}} 1.5' in text
        for name in ("adwiser_pair_drops_tail_total", "adwiser_pair_batch_pkts", "adwiser_frame_reassignments",
                     "adwiser_config_version_active"):
            assert f'{name}{{appliance="{aid}"' not in text, name
    finally:
        # The session's other tests scrape every appliance.
        rdb.delete(keys.appliance(aid, "active"), keys.appliance(aid, "tm:pair"), keys.appliance(aid, "tm:frame"))
