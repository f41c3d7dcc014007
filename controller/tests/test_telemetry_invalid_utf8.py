"""A stream field that is no valid UTF-8 (REDIS.md: all text is UTF-8; a writer's bug, or an STA agent
passing a raw interface name) is served with the bytes it cannot decode as U+FFFD: decoding it strictly
raised UnicodeDecodeError, making the pair history a 500 and dropping the live feed without a close frame."""

from __future__ import annotations

import json

from websockets.sync.client import connect

from adwiser_controller import keys

BAD = {"pair": b"ap1/sta\xff", "mode": "sliced", "tput_mbps": b"10"}


def test_a_stream_field_that_is_no_utf8_is_served_with_replacement_characters(api, appliance, rdb):
    aid, _ = appliance
    rdb.xadd(keys.appliance(aid, "tm:pair"), BAD)
    page = api("viewer").get(f"/api/v1/telemetry/{aid}/pairs")
    assert page.status_code == 200, page.text
    e = page.json()["entries"][0]
    assert (e["pair"], e["tput_mbps"]) == ("ap1/sta\ufffd", 10.0)


def test_a_stream_field_that_is_no_utf8_does_not_close_the_live_feed(controller, tokens, appliance, rdb):
    aid, _ = appliance
    url = controller.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live"
    with connect(url, additional_headers={"Authorization": f"Bearer {tokens['viewer']}"}, open_timeout=5) as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "status"
        rdb.xadd(keys.appliance(aid, "tm:pair"), BAD)
        while (msg := json.loads(ws.recv(timeout=5)))["type"] != "telemetry":
            pass
    assert msg["pairs"][0]["pair"] == "ap1/sta\ufffd"
