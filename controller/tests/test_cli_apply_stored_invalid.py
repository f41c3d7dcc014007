"""`apply N` from the command line refuses a stored version that no longer validates, naming its field."""

from __future__ import annotations

import json

from servers import cli


def test_cli_apply_of_a_version_that_no_longer_validates_names_the_field_and_publishes_nothing(
        appliance, rdb, redis_server):
    # Stored under looser rules (an older controller) or edited in Redis, as the API's test of the same case.
    aid, v1 = appliance
    raw = json.loads(rdb.hget(f"adwiser:version:{v1}", "doc"))
    raw["topology"]["aps"][0]["channel"] = 999
    rdb.hset(f"adwiser:version:{v1}", "doc", json.dumps(raw))
    res = cli(redis_server.url, "apply", str(v1))
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert f"version {v1}: doc.topology.aps[0].channel: " in res.stderr, res.stderr
    assert rdb.get(f"adwiser:appliance:{aid}:desired") is None
