"""The live feed's start ids (`frames_after`, `pairs_after`): a client reads history over REST, then opens the
socket after the last ids that read returned, so entries written in between are neither lost nor repeated."""

from __future__ import annotations

import json
import time

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from adwiser_controller import keys


def _live(controller, aid: str, query: str) -> str:
    return controller.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live?{query}"


def test_entries_written_between_the_history_read_and_the_socket_are_delivered_once(controller, tokens, api,
                                                                                      appliance, rdb):
    aid, _ = appliance
    frame, pair = keys.appliance(aid, "tm:frame"), keys.appliance(aid, "tm:pair")
    rdb.xadd(frame, {"ts_ns": "1", "frame": "1"})
    rdb.xadd(pair, {"ts_ns": "1", "frame": "1", "pair": "ap1/sta1"})
    frames_last = api("viewer").get(f"/api/v1/telemetry/{aid}/frames").json()["last_id"]
    pairs_last = api("viewer").get(f"/api/v1/telemetry/{aid}/pairs").json()["last_id"]
    # Written after the history read and before the socket starts: the page never saw these.
    gap_frame = rdb.xadd(frame, {"ts_ns": "2", "frame": "2"})
    gap_pair = rdb.xadd(pair, {"ts_ns": "2", "frame": "2", "pair": "ap1/sta1"})
    frames: list[str] = []
    pairs: list[str] = []
    with connect(_live(controller, aid, f"frames_after={frames_last}&pairs_after={pairs_last}"),
                 additional_headers={"Authorization": f"Bearer {tokens['viewer']}"}, open_timeout=5) as ws:
        # Written once the socket is open: the feed goes on after the catch-up.
        later = rdb.xadd(frame, {"ts_ns": "3", "frame": "3"})
        deadline = time.monotonic() + 5
        while later not in frames and time.monotonic() < deadline:
            msg = json.loads(ws.recv(timeout=5))
            assert msg["type"] != "error", msg
            if msg["type"] == "telemetry":
                frames += [f["id"] for f in msg["frames"]]
                pairs += [p["id"] for p in msg["pairs"]]
    assert frames == [gap_frame, later] and pairs == [gap_pair], (frames, pairs)


@pytest.mark.parametrize("name, value, wrong", [("frames_after", "yesterday", "should match pattern"),
                                                ("pairs_after", "1-2-3", "should match pattern"),
                                                ("frames_after", "99999999999999999999-0", "at most"),
                                                ("pairs_added", "-1", "greater than or equal to 0"),
                                                ("pairs_added", "12", "needs pairs_after")],
                         ids=["words", "three-parts", "out-of-range", "negative-count", "count-without-its-id"])
def test_malformed_start_id_is_closed_4422_naming_the_parameter(controller, tokens, appliance, name, value, wrong):
    aid, _ = appliance
    got: list[dict] = []
    with connect(_live(controller, aid, f"{name}={value}"),
                 additional_headers={"Authorization": f"Bearer {tokens['viewer']}"}, open_timeout=5) as ws:
        try:
            while True:
                got.append(json.loads(ws.recv(timeout=4)))
        except (ConnectionClosed, TimeoutError):
            pass
        code, reason = ws.close_code, ws.close_reason
    assert [m["type"] for m in got] == ["error"] and got[0]["field"] == f"query.{name}", got
    assert code == 4422 and name in reason and wrong in reason and reason == got[0]["detail"], (code, reason)
