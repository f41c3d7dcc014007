"""A frame whose `slices` JSON nests deeper than Python's json can read (it raises RecursionError, no
ValueError) is served with `slices` null, as any other unreadable `slices`: it took the frame history,
the appliance status (its last frame) and so the live feed down with it."""

from __future__ import annotations

import json

from websockets.sync.client import connect

from adwiser_controller import keys

TOO_DEEP = "[" * 100_000 + "]" * 100_000


def test_too_deeply_nested_slices_are_served_as_null(api, appliance, rdb):
    aid, _ = appliance
    rdb.xadd(keys.appliance(aid, "tm:frame"), {"ts_ns": "1", "frame": "1", "slices": TOO_DEEP})
    page = api("viewer").get(f"/api/v1/telemetry/{aid}/frames")
    assert page.status_code == 200, page.text
    assert page.json()["entries"][0]["slices"] is None
    status = api("viewer").get(f"/api/v1/appliances/{aid}")
    assert status.status_code == 200, status.text
    assert status.json()["last_frame"]["slices"] is None


def test_too_deeply_nested_slices_do_not_close_the_live_feed(controller, tokens, appliance, rdb):
    aid, _ = appliance
    url = controller.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live"
    with connect(url, additional_headers={"Authorization": f"Bearer {tokens['viewer']}"}, open_timeout=5) as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "status"
        rdb.xadd(keys.appliance(aid, "tm:frame"), {"ts_ns": "1", "frame": "1", "slices": TOO_DEEP})
        while (msg := json.loads(ws.recv(timeout=5)))["type"] != "telemetry":
            pass
    assert msg["frames"][0]["slices"] is None
