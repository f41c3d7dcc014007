"""The live feed shows the present: a feed far behind its stream, or asked to start after entries the
stream's MAXLEN has trimmed, says so with a `skipped` message (api/live.py) instead of replaying minutes
of old telemetry or leaving a silent gap.

Its own redis-server on a unix socket and its own controller: the streams are filled with ids chosen
here (ms-based, as XADD * makes them), so a span of a minute takes no minute to write."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest
import redis
from websockets.sync.client import connect

from adwiser_controller import keys
from api_accounts import ADMIN, login
from lab_document import lab_doc
from servers import ControllerServer, RedisServer, cli

PAIRS_PER_FRAME = 50
FRAMES = 300
FRAME_SPACING_MS = 200  # 300 frames: a minute of ids, far beyond any bound on the feed's lag
# The frame stream (one entry a frame) is behind only by more entries than one read takes: 40 ms frames.
FRAME_STREAM_FRAMES, FRAME_STREAM_SPACING_MS = 3000, 40


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ControllerServer, redis.Redis, str]]:
    server = RedisServer(tmp_path_factory.mktemp("redis-unix"), unix_socket=True).start()
    ctl = None
    try:
        res = cli(server.url, "create-admin", "--username", ADMIN[0], "--password-stdin", stdin=ADMIN[1] + "\n")
        assert res.returncode == 0, res.stderr
        ctl = ControllerServer(server.url, tmp_path_factory.mktemp("controller-unix")).start()
        admin, csrf = login(ctl.url, *ADMIN)
        res = admin.post("/api/v1/auth/tokens", headers={"X-CSRF-Token": csrf}, json={"name": "keeps-up"})
        assert res.status_code == 201, res.text
        token = res.json()["token"]
        admin.close()
        rdb = redis.Redis(unix_socket_path=str(server.socket), decode_responses=True)
        yield ctl, rdb, token
        rdb.close()
    finally:
        if ctl:
            ctl.stop()
        server.stop()


@pytest.fixture
def aid(site, request: pytest.FixtureRequest) -> str:
    ctl, _, token = site
    name = request.node.name[:40].replace("[", "-").replace("]", "").replace("_", "-")
    res = httpx.post(ctl.url + "/api/v1/versions", headers={"Authorization": f"Bearer {token}"},
                     json={"doc": lab_doc(name)}, timeout=10)
    assert res.status_code == 201, res.text
    return name


def _messages(site, aid: str, query: str, until, timeout: float = 15) -> list[dict]:
    """Every message but the status ones, until `until(messages)` holds (or the timeout)."""
    ctl, _, token = site
    url = ctl.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live?{query}"
    got: list[dict] = []
    with connect(url, additional_headers={"Authorization": f"Bearer {token}"}, open_timeout=5,
                 max_size=None) as ws:
        deadline = time.monotonic() + timeout
        while not until(got) and time.monotonic() < deadline:
            try:
                msg = json.loads(ws.recv(timeout=max(0.1, deadline - time.monotonic())))
            except TimeoutError:
                break
            assert msg["type"] != "error", msg
            if msg["type"] != "status":
                got.append(msg)
    return got


def _ids(msgs: list[dict], stream: str) -> list[str]:
    return [e["id"] for m in msgs if m["type"] == "telemetry" for e in m[stream]]


def _fill(rdb: redis.Redis, key: str, frames: int, per_frame: int, spacing_ms: int) -> list[list[str]]:
    """`frames` frames of `per_frame` entries each, `spacing_ms` apart, ending a few seconds ago; their ids."""
    start_ms = int(time.time() * 1000) - 5000 - frames * spacing_ms
    out = []
    pipe = rdb.pipeline(transaction=False)
    for f in range(frames):
        ids = [f"{start_ms + f * spacing_ms}-{i}" for i in range(per_frame)]
        for i, sid in enumerate(ids):
            pipe.xadd(key, {"ts_ns": str((start_ms + f * spacing_ms) * 10**6), "frame": str(f),
                            "pair": f"ap1/sta{i}"}, id=sid)
        out.append(ids)
    pipe.execute()
    return out


@pytest.mark.parametrize("stream, n, per_frame, spacing_ms", [
    ("pairs", FRAMES, PAIRS_PER_FRAME, FRAME_SPACING_MS), ("frames", FRAME_STREAM_FRAMES, 1, FRAME_STREAM_SPACING_MS)])
def test_a_feed_far_behind_its_stream_skips_to_the_newest_frame(site, aid, stream, n, per_frame, spacing_ms):
    _, rdb, _ = site
    key = keys.appliance(aid, "tm:pair" if stream == "pairs" else "tm:frame")
    frames = _fill(rdb, key, n, per_frame, spacing_ms)
    start = frames[0][0]
    query = f"pairs_after={start}" if stream == "pairs" else f"frames_after={start}&pairs=false"
    msgs = _messages(site, aid, query, lambda got: _ids(got, stream)[-1:] == frames[-1][-1:])
    assert msgs and msgs[0] == {"type": "skipped", "stream": stream, "from": start, "to": frames[-2][-1],
                                "entries": None}, [{k: m[k] for k in m if k not in ("frames", "pairs")} for m in msgs[:1]]
    # Then the newest frame, whole, and nothing older.
    assert _ids(msgs, stream) == frames[-1], _ids(msgs, stream)[:5]


def test_a_feed_that_keeps_up_goes_on_after_the_skip(site, aid):
    _, rdb, _ = site
    key = keys.appliance(aid, "tm:pair")
    frames = _fill(rdb, key, FRAMES, PAIRS_PER_FRAME, FRAME_SPACING_MS)
    ctl, _, token = site
    url = ctl.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live?pairs_after={frames[0][0]}"
    ids: list[str] = []
    with connect(url, additional_headers={"Authorization": f"Bearer {token}"}, open_timeout=5, max_size=None) as ws:
        deadline = time.monotonic() + 15
        while frames[-1][-1] not in ids and time.monotonic() < deadline:
            msg = json.loads(ws.recv(timeout=15))
            if msg["type"] == "telemetry":
                ids += [p["id"] for p in msg["pairs"]]
        later = rdb.xadd(key, {"ts_ns": str(time.time_ns()), "frame": str(FRAMES), "pair": "ap1/sta0"})
        while later not in ids and time.monotonic() < deadline:
            msg = json.loads(ws.recv(timeout=15))
            assert msg["type"] in ("status", "telemetry"), msg
            if msg["type"] == "telemetry":
                ids += [p["id"] for p in msg["pairs"]]
    assert ids == frames[-1] + [later], ids[:5]


def test_a_start_id_older_than_the_stream_s_first_entry_is_reported_skipped(site, aid):
    _, rdb, _ = site
    key = keys.appliance(aid, "tm:pair")
    frames = _fill(rdb, key, 100, 5, 1)
    written = [sid for f in frames for sid in f]
    rdb.xtrim(key, maxlen=100, approximate=False)
    kept = written[-100:]
    start = written[10]  # trimmed: the entries after it up to the first kept one are gone
    msgs = _messages(site, aid, f"pairs_after={start}", lambda got: _ids(got, "pairs")[-1:] == kept[-1:])
    first_ms, first_seq = (int(x) for x in kept[0].split("-"))
    just_before_kept = f"{first_ms}-{first_seq - 1}" if first_seq else f"{first_ms - 1}-{2**64 - 1}"
    assert msgs and msgs[0] == {"type": "skipped", "stream": "pairs", "from": start, "to": just_before_kept,
                                "entries": None}, [{k: m[k] for k in m if k not in ("frames", "pairs")} for m in msgs[:1]]
    # Not far behind: what the stream still holds follows, all of it.
    assert _ids(msgs, "pairs") == kept, _ids(msgs, "pairs")[:5]


def _ahead_of_the_stream(site, aid: str, prepare) -> tuple[list[dict], str]:
    """A feed asked to start after an id ahead of the stream's newest entry; `prepare(rdb, key)` runs once
    the feed has read the stream; then an entry after the start id is written. Every message but status."""
    ctl, rdb, token = site
    key = keys.appliance(aid, "tm:pair")
    ahead_ms = int(time.time() * 1000) + 60_000
    url = ctl.url.replace("http://", "ws://") + f"/api/v1/telemetry/{aid}/live?pairs_after={ahead_ms}-0"
    got: list[dict] = []
    with connect(url, additional_headers={"Authorization": f"Bearer {token}"}, open_timeout=5, max_size=None) as ws:
        assert json.loads(ws.recv(timeout=5))["type"] == "status"
        time.sleep(0.3)  # the feed has read the stream once and waits on it
        prepare(rdb, key)
        time.sleep(1.2)  # the feed has read it again
        later = rdb.xadd(key, {"ts_ns": str(time.time_ns()), "frame": "1", "pair": "ap1/sta0"}, id=f"{ahead_ms}-1")
        deadline = time.monotonic() + 10
        while later not in _ids(got, "pairs") and time.monotonic() < deadline:
            msg = json.loads(ws.recv(timeout=10))
            if msg["type"] != "status":
                got.append(msg)
    return got, later


def test_a_start_id_ahead_of_an_emptied_stream_skips_nothing(site, aid):
    _, rdb, _ = site
    key = keys.appliance(aid, "tm:pair")
    _fill(rdb, key, 10, 5, 1)
    rdb.xtrim(key, maxlen=0, approximate=False)  # the stream is there, its entries are all trimmed
    got, later = _ahead_of_the_stream(site, aid, lambda rdb, key: None)
    # Nothing after the client's id was ever written: nothing to skip, and nothing older to send.
    assert got == [m for m in got if m["type"] == "telemetry"], [m for m in got if m["type"] != "telemetry"]
    assert _ids(got, "pairs") == [later]


def test_a_start_id_ahead_of_the_stream_is_not_moved_back_by_entries_written_before_it(site, aid):
    def older_entries_trimmed(rdb, key):
        _fill(rdb, key, 40, 5, 1)  # ids before the client's: it asked to start after them
        rdb.xtrim(key, maxlen=100, approximate=False)

    _, rdb, _ = site
    first = f"{int(time.time() * 1000) - 60_000}-0"  # before the entries older_entries_trimmed writes
    rdb.xadd(keys.appliance(aid, "tm:pair"), {"ts_ns": str(time.time_ns()), "frame": "0", "pair": "ap1/sta0"}, id=first)
    got, later = _ahead_of_the_stream(site, aid, older_entries_trimmed)
    assert got == [m for m in got if m["type"] == "telemetry"], [m for m in got if m["type"] != "telemetry"]
    assert _ids(got, "pairs") == [later], _ids(got, "pairs")[:5]


def _history_end(site, aid: str, stream: str) -> dict:
    """The newest page of a stream's REST history, as the dashboard reads it before opening the feed."""
    ctl, _, token = site
    res = httpx.get(ctl.url + f"/api/v1/telemetry/{aid}/{stream}", params={"count": 10},
                    headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert res.status_code == 200, res.text
    return res.json()


def _written_after_history(rdb: redis.Redis, key: str, n: int, maxlen: int) -> list[str]:
    """`n` entries written now (XADD *: after every filled one), then the stream trimmed to `maxlen` exactly."""
    ids = [rdb.xadd(key, {"ts_ns": str(time.time_ns()), "frame": str(1000 + i), "pair": "ap1/sta0"}) for i in range(n)]
    rdb.xtrim(key, maxlen=maxlen, approximate=False)
    return ids


def test_start_at_last_trimmed_entry_reports_no_loss(site, aid):
    _, rdb, _ = site
    key = keys.appliance(aid, "tm:pair")
    written = [sid for f in _fill(rdb, key, 20, 5, 1) for sid in f]
    page = _history_end(site, aid, "pairs")
    assert page["last_id"] == written[-1] and page["entries_added"] == len(written), page["last_id"]
    # The history's last entry and every one before it trimmed, none after it: the client lost nothing.
    later = _written_after_history(rdb, key, 30, maxlen=30)
    msgs = _messages(site, aid, f"pairs_after={page['last_id']}&pairs_added={page['entries_added']}",
                     lambda got: _ids(got, "pairs")[-1:] == later[-1:])
    assert [m for m in msgs if m["type"] == "skipped"] == []
    assert _ids(msgs, "pairs") == later, _ids(msgs, "pairs")[:5]


def test_start_with_the_history_s_count_reports_exactly_the_entries_lost(site, aid):
    _, rdb, _ = site
    key = keys.appliance(aid, "tm:frame")
    written = [sid for f in _fill(rdb, key, 100, 1, 1) for sid in f]
    page = _history_end(site, aid, "frames")
    later = _written_after_history(rdb, key, 30, maxlen=20)  # 10 of the 30 written after the history read gone
    msgs = _messages(site, aid, f"frames_after={written[-1]}&frames_added={page['entries_added']}&pairs=false",
                     lambda got: _ids(got, "frames")[-1:] == later[-1:])
    ms, seq = (int(x) for x in later[10].split("-"))
    just_before_kept = f"{ms}-{seq - 1}" if seq else f"{ms - 1}-{2**64 - 1}"
    assert msgs and msgs[0] == {"type": "skipped", "stream": "frames", "from": written[-1], "to": just_before_kept,
                                "entries": 10}, [{k: m[k] for k in m if k not in ("frames", "pairs")} for m in msgs[:1]]
    assert _ids(msgs, "frames") == later[10:], _ids(msgs, "frames")[:5]


def test_a_count_the_stream_cannot_have_given_is_not_taken_for_one(site, aid):
    _, rdb, _ = site
    key = keys.appliance(aid, "tm:pair")
    written = [sid for f in _fill(rdb, key, 20, 5, 1) for sid in f]
    later = _written_after_history(rdb, key, 30, maxlen=30)
    # More entries than the stream was ever given up to that id (e.g. counted in a stream since deleted):
    # the feed does not know how many were lost, and says so rather than counting from a wrong number.
    msgs = _messages(site, aid, f"pairs_after={written[-1]}&pairs_added=5000",
                     lambda got: _ids(got, "pairs")[-1:] == later[-1:])
    assert msgs and msgs[0]["type"] == "skipped" and msgs[0]["entries"] is None, msgs[:1]
    assert _ids(msgs, "pairs") == later, _ids(msgs, "pairs")[:5]
