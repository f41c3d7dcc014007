"""A query parameter given twice (`?limit=1&limit=500`) is refused with 422 naming it, as an unknown name is,
on every route: one of the two values would otherwise be used without a word (query_check.py)."""

from __future__ import annotations

import pytest
from websockets.sync.client import connect

from test_telemetry import recv_until_closed


@pytest.mark.parametrize("method, path, query, name", [
    ("GET", "/api/v1/versions", "limit=1&limit=500", "limit"),
    ("GET", "/api/v1/topology", "appliance={aid}&appliance={aid}", "appliance"),
    ("GET", "/api/v1/appliances/{aid}/applied", "limit=5&limit=5", "limit"),
    ("GET", "/api/v1/telemetry/{aid}/frames", "count=1&after=0-0&count=2", "count"),
    ("GET", "/api/v1/audit", "count=1&count=1000", "count"),
    ("POST", "/api/v1/versions/{v}/apply", "wait_ms=0&wait_ms=10", "wait_ms"),
], ids=["versions", "topology", "applied", "frames", "audit", "apply"])
def test_a_query_parameter_given_twice_is_refused_422_naming_it(api, appliance, method, path, query, name):
    aid, v = appliance
    url = path.format(aid=aid, v=v) + "?" + query.format(aid=aid)
    res = api("operator").request(method, url)
    assert res.status_code == 422, res.text
    body = res.json()
    assert body["field"] == f"query.{name}" and [e["field"] for e in body["errors"]] == [f"query.{name}"], body
    assert name in body["detail"] and "more than once" in body["detail"], body


def test_unknown_and_repeated_query_parameters_are_named_together(api, appliance):
    res = api("viewer").get("/api/v1/versions?limit=1&limt=2&offset=0&offset=1")
    assert res.status_code == 422, res.text
    assert [e["field"] for e in res.json()["errors"]] == ["query.limt", "query.offset"], res.json()


def test_the_live_socket_closes_4422_on_a_query_parameter_given_twice(controller, tokens, appliance):
    aid, _ = appliance
    url = controller.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live?pairs=true&pairs=false"
    with connect(url, additional_headers={"Authorization": f"Bearer {tokens['viewer']}"}, open_timeout=5) as ws:
        got, code = recv_until_closed(ws, 4)
    assert code == 4422 and [m["type"] for m in got] == ["error"] and got[0]["field"] == "query.pairs", (code, got)
