"""A pair's cumulative counters start from zero again when the dataplane restarts and when a version adds the pair
back after an earlier one removed it; the dataplane says since when (`counters_since_ns` of `tm:pair`, REDIS.md).
/metrics gives that as the counters' created time, so that Prometheus tells a counter that restarted and climbed
past its old value between two scrapes from one that went on; an entry without the field gives none."""

from __future__ import annotations

import json
import time

from prometheus_client.utils import floatToGoString

from adwiser_controller import keys

COUNTERS = ("adwiser_pair_drops_tail", "adwiser_pair_drops_other")


def live_pairs(rdb, aid: str, since_ns: int) -> None:
    """The appliance's dataplane alive, with the entries of two pairs: ap1/sta1's counters since `since_ns`, and
    ap2/sta2's from a dataplane that predates the field."""
    rdb.set(keys.appliance(aid, "heartbeat"), json.dumps({"ts_ns": time.time_ns(), "pid": 1}), ex=3)
    rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap1/sta1", "drops_tail": "7", "drops_other": "2",
                                               "counters_since_ns": str(since_ns)})
    rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap2/sta2", "drops_tail": "3", "drops_other": "0"})


def test_a_pairs_counters_since_time_is_their_created_time(api, appliance, rdb):
    aid, _ = appliance
    since_ns = 1795402100012000000
    live_pairs(rdb, aid, since_ns)
    text = api("viewer").get("/metrics").text
    for name in COUNTERS:
        assert f'{name}_created{{appliance="{aid}",pair="ap1/sta1"}} {floatToGoString(since_ns / 1e9)}' in text, text
        assert f'{name}_total{{appliance="{aid}",pair="ap2/sta2"}}' in text
        assert f'{name}_created{{appliance="{aid}",pair="ap2/sta2"}}' not in text  # an entry without the field

