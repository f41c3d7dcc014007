"""A non-finite number in a telemetry stream ("nan", "inf": what Python's str() or C's printf write for
one) is served as null, as an empty field is: JSON has no NaN, and a browser's JSON.parse refuses the
whole live-feed message that carries one (the REST history's response models already write null)."""

from __future__ import annotations

import json

from websockets.sync.client import connect

from adwiser_controller import keys


def _strict(text: str) -> object:
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def test_non_finite_frame_values_reach_the_live_feed_as_null(controller, tokens, appliance, rdb):
    aid, _ = appliance
    url = controller.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live"
    with connect(url, additional_headers={"Authorization": f"Bearer {tokens['viewer']}"}, open_timeout=5) as ws:
        assert _strict(ws.recv(timeout=5))["type"] == "status"
        rdb.xadd(keys.appliance(aid, "tm:frame"), {"ts_ns": "1", "frame": "1", "version": "1", "utility": "nan",
                                                   "utility_bound": "-inf", "frame_ms": "40"})
        while True:
            msg = _strict(ws.recv(timeout=5))
            if msg["type"] == "telemetry":
                break
    f = msg["frames"][0]
    assert (f["utility"], f["utility_bound"], f["frame_ms"]) == (None, None, 40.0)


def test_non_finite_numbers_in_a_frames_slices_reach_the_live_feed_as_null(controller, tokens, appliance, rdb):
    # `slices` is JSON the dataplane writes; Python's json reads NaN, Infinity and 1e400 (inf) in it,
    # and send_json wrote them back out as NaN/Infinity.
    aid, _ = appliance
    url = controller.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live"
    with connect(url, additional_headers={"Authorization": f"Bearer {tokens['viewer']}"}, open_timeout=5) as ws:
        assert _strict(ws.recv(timeout=5))["type"] == "status"
        rdb.xadd(keys.appliance(aid, "tm:frame"), {
            "ts_ns": "1", "frame": "1", "version": "1",
            "slices": '[{"duration_ms": NaN, "pairs": ["ap1/sta1"], "early_ms": -Infinity},'
                      ' {"duration_ms": 1e400, "pairs": [], "early_ms": 0.5}]'})
        while True:
            msg = _strict(ws.recv(timeout=5))
            if msg["type"] == "telemetry":
                break
    assert msg["frames"][0]["slices"] == [{"duration_ms": None, "pairs": ["ap1/sta1"], "early_ms": None},
                                          {"duration_ms": None, "pairs": [], "early_ms": 0.5}]
