"""The AP's n_bar in the loop status is the N̄ its loop works to: n_target_max above N_max (the most one A-MPDU
holds, which bounds every target, loop.py _nbar) is cut to N_max there as in the pairs' n_bar."""

from __future__ import annotations

import asyncio

from aggregation_plant import Plant
from lab_document import lab_doc
from test_aggregation_runner import PAIRS, drive


def test_the_aps_nbar_in_the_status_is_cut_to_n_max_as_the_loop_cuts_it(api, appliance, redis_server):
    aid, _ = appliance
    doc = lab_doc(aid)
    doc["policies"]["aggregation_target"].update(
        {"enabled": True, "pairs": list(PAIRS), "t_bar_ms": 50.0, "delta_s": 0.5, "n_target_max": 100,
         "n_max_mpdus": 64})
    for sta in doc["topology"]["stas"]:
        sta["phy_rate_mbps"] = 400.0
    res = api("operator").post("/api/v1/versions", json={"doc": doc, "comment": "n_target_max above N_max"})
    assert res.status_code == 201, res.text
    plant = Plant(c_s=250e-6, rates_bps={"ap1/sta1": 400e6})
    _, statuses = asyncio.run(drive(redis_server.url, aid, int(res.json()["version"]), plant, 3))
    ap = statuses[-1]["aps"]["ap1"]
    assert ap["pairs"]["ap1/sta1"]["n_target"] == 64.0      # ν_max = min(N̄, N_max): the loop's N̄ is 64
    assert ap["n_bar"] == ap["pairs"]["ap1/sta1"]["n_bar"] == 64.0
