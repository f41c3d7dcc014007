"""Telemetry from the dataplane's streams: REST history, WebSocket live feed, Prometheus /metrics."""

from __future__ import annotations

import json
import time

import pytest
from reference_dataplane import ReferenceDataplane
from websockets.sync.client import connect

from adwiser_controller import keys


@pytest.fixture
def running(api, appliance, redis_server):
    """An appliance whose (reference) dataplane runs its first version and writes telemetry."""
    aid, v1 = appliance
    dp = ReferenceDataplane(redis_server.url, aid, telemetry=True).start()
    assert api("operator").post(f"/api/v1/versions/{v1}/apply", params={"wait_ms": 3000}).json()["acknowledged"]
    deadline = time.monotonic() + 5
    while not api("viewer").get(f"/api/v1/telemetry/{aid}/frames", params={"count": 3}).json()["entries"]:
        assert time.monotonic() < deadline, "no telemetry"
        time.sleep(0.05)
    yield aid, v1
    dp.stop()


def test_frame_history_is_typed_and_pages_forward(api, running):
    aid, v1 = running
    time.sleep(0.3)
    page = api("viewer").get(f"/api/v1/telemetry/{aid}/frames", params={"count": 3}).json()
    entries = page["entries"]
    assert 1 <= len(entries) <= 3
    e = entries[-1]
    assert e["version"] == v1 and isinstance(e["frame"], int) and e["frame_ms"] == 40.0
    assert e["slices"][0]["pairs"] == ["ap1/sta1"]
    assert [x["frame"] for x in entries] == sorted(x["frame"] for x in entries)
    time.sleep(0.2)
    more = api("viewer").get(f"/api/v1/telemetry/{aid}/frames", params={"after": page["last_id"]}).json()
    assert more["entries"] and more["entries"][0]["frame"] > e["frame"]


def test_pair_history_filters_one_pair(api, running):
    aid, _ = running
    res = api("viewer").get(f"/api/v1/telemetry/{aid}/pairs", params={"pair": "ap2/sta2", "count": 5}).json()
    assert res["entries"] and {x["pair"] for x in res["entries"]} == {"ap2/sta2"}
    assert res["entries"][0]["s_ms"] == 20.0 and isinstance(res["entries"][0]["r_pkts"], int)


def test_pair_filtered_paging_moves_past_a_window_without_the_pair(api, appliance, rdb):
    # count=1 scans 64 entries after `after`; 199 entries of another pair lie between the two of ap1/sta1.
    aid, _ = appliance
    s = keys.appliance(aid, "tm:pair")
    rdb.xadd(s, {"pair": "ap1/sta1", "ts_ns": "1", "frame": "0"}, id="1000-0")
    for i in range(1, 200):
        rdb.xadd(s, {"pair": "ap2/sta2", "ts_ns": "1", "frame": str(i)}, id=f"{1000 + i}-0")
    rdb.xadd(s, {"pair": "ap1/sta1", "ts_ns": "1", "frame": "200"}, id="1200-0")
    frames, after, pages = [], "999-0", 0
    while pages < 20:
        page = api("viewer").get(f"/api/v1/telemetry/{aid}/pairs",
                                 params={"pair": "ap1/sta1", "count": 1, "after": after}).json()
        pages += 1
        frames += [e["frame"] for e in page["entries"]]
        if page["last_id"] == after:  # nothing more: the end of the stream
            assert page["entries"] == []
            break
        after = page["last_id"]
    assert frames == [0, 200] and after == "1200-0", (frames, after, pages)


def test_ns_timestamp_keeps_every_digit(api, appliance, rdb):
    aid, _ = appliance
    rdb.xadd(keys.appliance(aid, "tm:frame"), {"ts_ns": "1734000000123456789", "frame": "1", "version": "2.0"})
    e = api("viewer").get(f"/api/v1/telemetry/{aid}/frames", params={"count": 1}).json()["entries"][0]
    assert e["ts_ns"] == 1734000000123456789 and e["frame"] == 1 and e["version"] == 2


def test_every_numeric_pair_field_the_dataplane_writes_is_served_as_a_number(api, appliance, rdb):
    # A pair record as adwiser-dp writes it (dataplane/dp/frame_telemetry.c; an nfqueue run's telemetry line),
    # every value as the text XADD stores; API.md: "Numbers are numbers; the field set is what the dataplane writes".
    aid, _ = appliance
    record = {"ts_ns": 1795733659428027748, "frame": 3, "pair": "ap1/sta1", "mode": "sliced", "s_ms": 20.0,
              "r_pkts": 40, "v_ms": 19.2, "released_pkts": 40, "released_bytes": 60560, "queue_pkts": 0,
              "limit_pkts": 4096, "drops_tail": 0, "drops_other": 0, "tput_mbps": 12.5, "reassigned": 0,
              "drains": 2, "v_sum_ms": 37.5, "paced": 0, "pace_bps": 0, "agg_est": 3.5, "agg_bursts": 4,
              "agg_raw": 4.1, "agg_stas": 1, "acked_segs": 16.0, "dup_acks": 0, "retx_pkts": 0, "loss_frac": 0.0,
              "ack_delay_samples": 1, "ack_delay_ms": 4.2, "ack_delay_min_ms": 4.2}
    rdb.xadd(keys.appliance(aid, "tm:pair"), {k: str(v) for k, v in record.items()})
    e = api("viewer").get(f"/api/v1/telemetry/{aid}/pairs", params={"count": 1}).json()["entries"][0]
    not_numbers = {k: e[k] for k, v in record.items() if not isinstance(v, str) and not isinstance(e[k], int | float)}
    assert not_numbers == {}


def test_telemetry_of_unknown_appliance_is_404(api):
    res = api("viewer").get("/api/v1/telemetry/ghost/frames")
    assert res.status_code == 404 and res.json()["field"] == "appliance"


def test_bad_stream_id_is_422_naming_after(api, running):
    aid, _ = running
    res = api("viewer").get(f"/api/v1/telemetry/{aid}/frames", params={"after": "yesterday"})
    assert res.status_code == 422 and res.json()["field"] == "query.after"


@pytest.mark.parametrize("kind", ["frames", "pairs", "aggregation"])
@pytest.mark.parametrize("after", ["99999999999999999999-0", "0-99999999999999999999",
                                   "18446744073709551615-18446744073709551615"])
def test_stream_id_out_of_redis_range_is_422_naming_after(api, appliance, rdb, kind, after):
    # Redis refuses these (a part above 2^64-1; nothing after the largest id): not a store outage.
    aid, _ = appliance
    stream = {"frames": "tm:frame", "pairs": "tm:pair", "aggregation": "tm:aggregation"}[kind]
    rdb.xadd(keys.appliance(aid, stream), {"ts_ns": "1", "frame": "1", "pair": "ap1/sta1"})
    res = api("viewer").get(f"/api/v1/telemetry/{aid}/{kind}", params={"after": after})
    assert res.status_code == 422 and res.json()["field"] == "query.after", res.text


def test_largest_id_but_one_is_a_valid_after(api, appliance):
    aid, _ = appliance
    res = api("viewer").get(f"/api/v1/telemetry/{aid}/frames",
                            params={"after": "18446744073709551615-18446744073709551614"})
    assert res.status_code == 200 and res.json()["entries"] == []


def ws_url(controller, aid: str, pairs: bool = True) -> str:
    return controller.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live?pairs={str(pairs).lower()}"


def test_websocket_streams_status_then_new_frames_and_pairs(controller, tokens, running):
    aid, v1 = running
    with connect(ws_url(controller, aid), additional_headers={"Authorization": f"Bearer {tokens['viewer']}"},
                 open_timeout=5) as ws:
        first = json.loads(ws.recv(timeout=5))
        assert first["type"] == "status" and first["status"]["active"] == v1
        frames, pairs = [], []
        deadline = time.monotonic() + 5
        while (not frames or not pairs) and time.monotonic() < deadline:
            msg = json.loads(ws.recv(timeout=5))
            if msg["type"] == "telemetry":
                frames += msg["frames"]
                pairs += msg["pairs"]
        assert frames and frames[0]["version"] == v1
        assert {p["pair"] for p in pairs} <= {"ap1/sta1", "ap2/sta2"} and pairs


def test_websocket_sees_the_version_change_after_apply(controller, tokens, api, running):
    aid, v1 = running
    doc = api("viewer").get(f"/api/v1/versions/{v1}").json()["doc"]
    doc["slice_map"]["slices"][0]["duration_ms"] = 30
    v2 = api("operator").post("/api/v1/versions", json={"doc": doc}).json()["version"]
    with connect(ws_url(controller, aid, pairs=False),
                 additional_headers={"Authorization": f"Bearer {tokens['viewer']}"}, open_timeout=5) as ws:
        assert api("operator").post(f"/api/v1/versions/{v2}/apply", params={"wait_ms": 3000}).json()["acknowledged"]
        deadline = time.monotonic() + 5
        seen = None
        while time.monotonic() < deadline:
            msg = json.loads(ws.recv(timeout=5))
            if msg["type"] == "telemetry" and msg["frames"] and msg["frames"][-1]["version"] == v2:
                seen = msg["frames"][-1]
                break
        assert seen is not None and seen["frame_ms"] == 50.0 and msg["pairs"] == []


def test_websocket_without_credentials_is_closed_with_an_error(controller, running):
    aid, _ = running
    with connect(ws_url(controller, aid), open_timeout=5) as ws:
        msg = json.loads(ws.recv(timeout=5))
        assert msg["type"] == "error" and msg["status"] == 401


def test_websocket_with_session_cookie_from_another_origin_is_refused(controller, running):
    from api_accounts import PASSWORDS, login

    aid, _ = running
    client, _csrf = login(controller.url, "viewer1", PASSWORDS["viewer"])
    cookie = client.cookies["adwiser_session"]
    client.close()
    with connect(ws_url(controller, aid), origin="http://evil.example",
                 additional_headers={"Cookie": f"adwiser_session={cookie}"}, open_timeout=5) as ws:
        msg = json.loads(ws.recv(timeout=5))
        assert msg["type"] == "error" and msg["status"] == 403


def recv_until_closed(ws, seconds: float) -> tuple[list[dict], int | None]:
    """Messages received until the server closes the socket (or `seconds` pass), and the close code."""
    from websockets.exceptions import ConnectionClosed

    got: list[dict] = []
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            got.append(json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic()))))
    except (ConnectionClosed, TimeoutError):
        pass
    return got, ws.close_code


def test_websocket_is_closed_4401_once_its_token_is_revoked(controller, api, appliance):
    aid, _ = appliance
    res = api("viewer").post("/api/v1/auth/tokens", json={"name": "ws"})
    tok, tid = res.json()["token"], res.json()["info"]["id"]
    with connect(ws_url(controller, aid), additional_headers={"Authorization": f"Bearer {tok}"},
                 open_timeout=5) as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "status"
        assert api("viewer").delete(f"/api/v1/auth/tokens/{tid}").status_code == 204
        got, code = recv_until_closed(ws, 4)
    assert got and got[-1]["type"] == "error" and got[-1]["status"] == 401, got
    assert [m["type"] for m in got[:-1]].count("status") <= 1 and code == 4401


def test_websocket_is_closed_4401_once_its_session_is_logged_out(controller, appliance):
    from api_accounts import PASSWORDS, login

    aid, _ = appliance
    client, csrf = login(controller.url, "viewer1", PASSWORDS["viewer"])
    cookie = client.cookies["adwiser_session"]
    try:
        with connect(ws_url(controller, aid), additional_headers={"Cookie": f"adwiser_session={cookie}"},
                     open_timeout=5) as ws:
            assert json.loads(ws.recv(timeout=5))["type"] == "status"
            assert client.post("/api/v1/auth/logout", headers={"X-CSRF-Token": csrf}).status_code == 204
            got, code = recv_until_closed(ws, 4)
    finally:
        client.close()
    assert got and got[-1]["type"] == "error" and got[-1]["status"] == 401 and code == 4401, (got, code)


@pytest.mark.parametrize("query, field, wrong", [("pairs=maybe", "query.pairs", "valid boolean"),
                                                ("pairz=false", "query.pairz", "unknown query parameter")],
                         ids=["malformed", "misspelt"])
def test_websocket_query_it_cannot_take_is_closed_4422_naming_the_parameter(controller, tokens, appliance,
                                                                            query, field, wrong):
    aid, _ = appliance
    url = controller.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live?{query}"
    with connect(url, additional_headers={"Authorization": f"Bearer {tokens['viewer']}"}, open_timeout=5) as ws:
        got, code = recv_until_closed(ws, 4)
        reason = ws.close_reason
    assert [m["type"] for m in got] == ["error"] and got[0]["status"] == 422 and got[0]["field"] == field, got
    name = field.removeprefix("query.")
    assert code == 4422 and name in reason and wrong in reason and reason == got[0]["detail"], (code, reason, got)


def test_metrics_expose_versions_liveness_and_pair_state(api, running):
    aid, v1 = running
    text = api("viewer").get("/metrics").text
    assert f'adwiser_config_version_active{{appliance="{aid}"}} {float(v1)}' in text
    assert f'adwiser_dataplane_up{{appliance="{aid}"}} 1.0' in text
    assert f'adwiser_config_pending{{appliance="{aid}"}} 0.0' in text
    assert f'adwiser_pair_throughput_mbps{{appliance="{aid}",pair="ap1/sta1"}} 25.0' in text
    assert f'adwiser_frame_utility{{appliance="{aid}"}}' in text
    assert "adwiser_controller_request_seconds_bucket" in text


def test_heartbeat_loss_shows_the_dataplane_down(api, appliance, redis_server, rdb):
    aid, v1 = appliance
    dp = ReferenceDataplane(redis_server.url, aid, telemetry=False).start()
    assert api("operator").post(f"/api/v1/versions/{v1}/apply", params={"wait_ms": 3000}).json()["acknowledged"]
    assert api("viewer").get(f"/api/v1/appliances/{aid}").json()["alive"] is True
    dp.stop()
    assert rdb.get(keys.appliance(aid, "heartbeat")) is None
    st = api("viewer").get(f"/api/v1/appliances/{aid}").json()
    assert st["alive"] is False and st["active"] == v1


def metric_lines(text: str, aid: str) -> list[str]:
    return [ln for ln in text.splitlines() if not ln.startswith("#") and f'appliance="{aid}"' in ln]


def test_metrics_omit_frame_and_pair_values_once_the_dataplane_is_gone(api, appliance, rdb):
    # Entries left by a dataplane that died: no heartbeat.
    aid, _ = appliance
    rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap1/sta1", "tput_mbps": "80"}, id="1000-0")
    rdb.xadd(keys.appliance(aid, "tm:frame"), {"frame": "1", "utility": "4.2"}, id="1000-0")
    lines = metric_lines(api("viewer").get("/metrics").text, aid)
    assert f'adwiser_dataplane_up{{appliance="{aid}"}} 0.0' in lines
    assert not [ln for ln in lines if ln.startswith(("adwiser_pair_", "adwiser_frame_"))], lines


def test_metrics_omit_frame_and_pair_values_while_the_heartbeat_is_stale(api, appliance, rdb):
    # The heartbeat key is still there but its ts_ns is older than heartbeat_stale_s (3 s).
    aid, _ = appliance
    rdb.set(keys.appliance(aid, "heartbeat"), json.dumps({"ts_ns": time.time_ns() - 10 * 10**9, "pid": 1}), ex=3)
    rdb.xadd(keys.appliance(aid, "tm:pair"), {"pair": "ap1/sta1", "tput_mbps": "80"})
    rdb.xadd(keys.appliance(aid, "tm:frame"), {"frame": "1", "utility": "4.2"})
    lines = metric_lines(api("viewer").get("/metrics").text, aid)
    assert not [ln for ln in lines if ln.startswith(("adwiser_pair_", "adwiser_frame_"))], lines
    rdb.set(keys.appliance(aid, "heartbeat"), json.dumps({"ts_ns": time.time_ns(), "pid": 1}), ex=3)
    lines = metric_lines(api("viewer").get("/metrics").text, aid)
    assert f'adwiser_pair_throughput_mbps{{appliance="{aid}",pair="ap1/sta1"}} 80.0' in lines
    assert f'adwiser_frame_utility{{appliance="{aid}"}} 4.2' in lines
