"""A telemetry stream deleted and written anew under a live feed (an operator's DEL or FLUSHDB): the feed's count
of the entries before its cursor belongs to the old stream, and a `skipped` message counted from it is wrong.
Redis's `entries-added` starts again at 0, but a new stream may soon have more entries than the old one had.

The feed's reads (api/live_cursor.py) against a redis-server of this module's own on a unix socket; the streams
are filled with ids chosen here (ms-based, as XADD * makes them, the new stream's after the old one's)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
import redis.asyncio as aioredis

from adwiser_controller.api import live_cursor
from servers import RedisServer

KEY = "adwiser:appliance:lab:tm:pair"


@pytest.fixture(scope="module")
def unix_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    with RedisServer(tmp_path_factory.mktemp("redis-recreated"), unix_socket=True) as server:
        yield server


async def _fill(r: aioredis.Redis, start_ms: int, n: int) -> list[str]:
    """`n` entries 1 ms apart from `start_ms` on: their ids."""
    ids = [f"{start_ms + i}-0" for i in range(n)]
    pipe = r.pipeline(transaction=False)
    for i, sid in enumerate(ids):
        pipe.xadd(KEY, {"ts_ns": str((start_ms + i) * 10**6), "frame": str(i), "pair": "ap1/sta1"}, id=sid)
    await pipe.execute()
    return ids


def _just_before(sid: str) -> str:
    ms, seq = (int(x) for x in sid.split("-"))
    return f"{ms}-{seq - 1}" if seq else f"{ms - 1}-{2**64 - 1}"


def _run(unix_redis: RedisServer, scenario) -> None:
    async def run() -> None:
        r = aioredis.Redis(unix_socket_path=str(unix_redis.socket), decode_responses=True)
        try:
            await r.delete(KEY)
            await scenario(r)
        finally:
            await r.aclose()

    asyncio.run(run())


def test_a_stream_written_anew_with_fewer_entries_trimmed_than_the_old_one_had_reports_the_loss(unix_redis):
    async def scenario(r: aioredis.Redis) -> None:
        t0 = int(time.time() * 1000) - 60_000
        old = await _fill(r, t0, 100)
        cursor = await live_cursor.start(r, KEY, "pairs", "")  # at the end of the old stream
        assert await live_cursor.read(r, [cursor]) == ([], {"pairs": []})
        await r.delete(KEY)
        new = await _fill(r, t0 + 10_000, 150)
        await r.xtrim(KEY, maxlen=90, approximate=False)  # 60 of the new stream's entries are gone
        skips, got = await live_cursor.read(r, [cursor])
        # Counted from the old stream (100 entries up to the cursor), none of the 60 was after the cursor.
        assert skips == [{"type": "skipped", "stream": "pairs", "from": old[-1], "to": _just_before(new[60]),
                          "entries": None}], skips
        assert [sid for sid, _ in got["pairs"]] == new[60:]

    _run(unix_redis, scenario)


def test_a_stream_written_anew_is_not_counted_from_the_old_one_by_a_feed_behind_it(unix_redis):
    async def scenario(r: aioredis.Redis) -> None:
        t0 = int(time.time() * 1000) - 60_000
        await _fill(r, t0, 10)
        cursor = await live_cursor.start(r, KEY, "pairs", "")
        await _fill(r, t0 + 10, 1990)
        _, got = await live_cursor.read(r, [cursor])  # one batch: 990 entries of the old stream still to send
        assert len(got["pairs"]) == live_cursor.BATCH
        sent = got["pairs"][-1][0]
        await r.delete(KEY)
        new = await _fill(r, t0 + 10_000, 1500)
        await r.xtrim(KEY, maxlen=200, approximate=False)
        skips, got = await live_cursor.read(r, [cursor])
        # Not 1300 - 1010 = 290 (the new stream's trimmed entries less the old stream's up to the cursor): all
        # 1300 were after the cursor, and so were the old stream's 990 deleted with it.
        assert skips == [{"type": "skipped", "stream": "pairs", "from": sent, "to": _just_before(new[1300]),
                          "entries": None}], skips
        assert [sid for sid, _ in got["pairs"]] == new[1300:]

    _run(unix_redis, scenario)
