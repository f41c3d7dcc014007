"""A new version whose loop parameters are those the AP's loop already runs continues that loop: only new
parameters (K1, K2, T̄, N̄, c_init, ...) start it again from loop.initial. Runner against a real redis-server,
the dataplane played by the analytic plant (aggregation_plant.py), as in test_aggregation_runner.py."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from aggregation_plant import Plant
from test_aggregation_runner import drive, enable


def _store(api, doc: dict[str, Any], comment: str) -> int:
    res = api("operator").post("/api/v1/versions", json={"doc": doc, "comment": comment})
    assert res.status_code == 201, res.text
    return int(res.json()["version"])


def _settled(api, aid: str, url: str):
    v = enable(api, aid, t_bar_ms=5.0)
    plant = Plant(c_s=300e-6, rates_bps={"ap1/sta1": 100e6})
    runner, statuses = asyncio.run(drive(url, aid, v, plant, 40))
    doc = api("operator").get(f"/api/v1/versions/{v}").json()["doc"]
    return plant, runner, statuses[-1]["aps"]["ap1"], doc


def _same_document(doc: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(doc)


def _pair_added_on_the_other_ap(doc: dict[str, Any]) -> dict[str, Any]:
    new = copy.deepcopy(doc)
    new["policies"]["aggregation_target"]["pairs"].append("ap2/sta2")
    return new


@pytest.mark.parametrize("edit", [_same_document, _pair_added_on_the_other_ap])
def test_a_version_with_the_loops_parameters_unchanged_continues_the_aps_loop(api, appliance, redis_server, edit):
    # Every version change restarted every AP's loop from loop.initial: z = W and ĉ = c_init, so a settled
    # 100 Mbit/s pair paced at 91 Mbit/s went to 32 for a Δ and ĉ lost its 300 µs estimate, on an apply that
    # changed nothing the AP's loop uses (the same document again, or a pair added on another AP).
    aid, _ = appliance
    plant, runner, before, doc = _settled(api, aid, redis_server.url)
    v2 = _store(api, edit(doc), "an edit that leaves ap1's loop parameters as they are")
    _, statuses = asyncio.run(drive(redis_server.url, aid, v2, plant, 1, runner=runner, t0=20.0))
    after = statuses[-1]["aps"]["ap1"]
    assert statuses[-1]["version"] == v2
    assert after["k"] == before["k"] + 1
    assert after["c_hat_us"] == pytest.approx(before["c_hat_us"], rel=0.02)
    assert after["pairs"]["ap1/sta1"]["pace_bps"] == pytest.approx(before["pairs"]["ap1/sta1"]["pace_bps"], rel=0.02)


def test_a_version_with_new_loop_parameters_restarts_the_aps_loop(api, appliance, redis_server):
    aid, _ = appliance
    plant, runner, _, doc = _settled(api, aid, redis_server.url)
    doc["policies"]["aggregation_target"]["k1"] = 0.4
    v2 = _store(api, doc, "K1 0.5 -> 0.4")
    _, statuses = asyncio.run(drive(redis_server.url, aid, v2, plant, 1, runner=runner, t0=20.0))
    assert statuses[-1]["aps"]["ap1"]["k"] == 0


def test_a_policy_disabled_and_enabled_again_restarts_the_loop(api, appliance, redis_server):
    # while disabled nothing is paced: the state from before says nothing of the slots since
    aid, _ = appliance
    plant, runner, _, doc = _settled(api, aid, redis_server.url)
    doc["policies"]["aggregation_target"]["enabled"] = False
    off = _store(api, doc, "off")
    asyncio.run(drive(redis_server.url, aid, off, plant, 2, runner=runner, t0=20.0))
    doc["policies"]["aggregation_target"]["enabled"] = True
    on = _store(api, doc, "on again, same parameters")
    _, statuses = asyncio.run(drive(redis_server.url, aid, on, plant, 1, runner=runner, t0=21.0))
    assert statuses[-1]["aps"]["ap1"]["k"] == 0
