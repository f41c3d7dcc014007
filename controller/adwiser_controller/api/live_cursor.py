"""Where the live feed (live.py) is in each stream it sends, and when it skips ahead to the present.

The dataplane writes one `tm:pair` entry per pair per frame (REDIS.md): up to some 100 thousand entries a second on
the largest site (4096 STAs, 40 ms frames), more than one socket can carry (a feed delivers some 20 to 40 thousand a second on a 2-core host).
A feed that replayed everything from its cursor never caught up, and once the cursor fell behind the
stream's MAXLEN trim it went on from the oldest entry left without a word. So every read is checked
against the stream (XINFO STREAM in the same MULTI as the XREAD: both see one state of the stream) and
the feed skips, sending `{"type": "skipped", "stream", "from", "to", "entries"}`, when
- a full batch came back and the stream's newest entry is more than MAX_LAG_MS newer (ms-based stream ids)
  than the batch's last: the batch is dropped and the feed goes on at the newest frame's first entry;
- entries after the cursor were trimmed (the cursor is older than the stream's first entry, e.g. a start id
  from long ago): the feed goes on at the first entry left, or, when a full batch came back (it fell a whole
  MAXLEN behind: it does not keep up), at the newest frame as above.
`from` is the last id the client had (or asked to start after), `to` the id the feed goes on after:
the entries in between are never sent. `entries` is how many, or null when the feed does not know
where its cursor is in the stream (it started at a client's id without the count its history read returned and
has not caught up since, or the stream was deleted and written anew): Redis counts the entries ever added
(`entries-added`), not the entries between two ids, and keeps no trimmed id: a start id that is the last entry
trimmed looks like one with entries lost after it unless the client says how many entries it counts up to.
A stream deleted and written anew is told from the one the count was made in by what the count implies
(_same_stream); one whose new entries trimmed outnumber the old stream's entries when the feed last looked, a
moment before, looks as the old one would and is not told apart (Redis keeps no mark of a stream's creation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import ResponseError

BATCH = 1000  # most stream entries read per XREAD
MAX_LAG_MS = 2000  # a feed further behind than this is not live: the Live page is meant to show the present
# A frame's entries are found by scanning back from the stream's end to the first entry of another frame;
# one entry per pair per frame, and a site has at most 4096 STAs (the schema), so 5 pages reach it.
FRAME_SCAN_PAGES = 5
U64_MAX = 2**64 - 1


def _parts(sid: str) -> tuple[int, int]:
    ms, seq = sid.split("-")
    return int(ms), int(seq)


def _just_before(sid: str) -> str:
    """The largest stream id below `sid`: reading after it starts at `sid`."""
    ms, seq = _parts(sid)
    return f"{ms}-{seq - 1}" if seq else f"{ms - 1}-{U64_MAX}"


@dataclass
class Cursor:
    key: str
    name: str  # "frames" or "pairs": the telemetry message's list and the skipped message's `stream`
    id: str  # the last entry sent (or to start after)
    # How many entries the stream had ever been given up to and including `id` (XINFO `entries-added`
    # counts them); None while not known.
    ordinal: int | None
    # The stream's last generated id and `entries-added` at the feed's last look: its newest count.
    seen: tuple[str, int] | None = None


async def _info(redis: Redis, key: str) -> dict[str, Any] | None:
    try:
        return await redis.xinfo_stream(key)
    except ResponseError:
        return None  # no such key: the dataplane has written nothing yet


async def start(redis: Redis, key: str, name: str, after: str, added: int | None = None) -> Cursor:
    """After the client's id, or else at the stream's current end. `added`: the entries the stream had ever been
    given up to and including `after`, as the client's history read found it (read() checks that the stream
    can have given that many, else counts nothing from it)."""
    if after:
        return Cursor(key, name, after, added)
    info = await _info(redis, key)
    if info is None:
        return Cursor(key, name, "0-0", 0)
    return Cursor(key, name, info["last-generated-id"], info["entries-added"])


def _info_or_none(reply: object) -> dict[str, Any] | None:
    if isinstance(reply, ResponseError) and "no such key" in str(reply):
        return None
    if isinstance(reply, Exception):
        raise reply
    return reply  # type: ignore[return-value]


async def _newest_frame_start(redis: Redis, key: str) -> tuple[str, int] | None:
    """The id just before the first entry of the stream's newest frame, and its ordinal."""
    pipe = redis.pipeline(transaction=True)
    pipe.xinfo_stream(key)
    pipe.xrevrange(key, count=BATCH)
    info, page = await pipe.execute()
    if not page:
        return None
    added, newest, frame, tail = info["entries-added"], page[0][0], page[0][1].get("frame"), 0
    for _ in range(FRAME_SCAN_PAGES):
        for sid, fields in page:
            if fields.get("frame") != frame:
                return sid, added - tail
            tail += 1
        if len(page) < BATCH:
            return "0-0", added - tail  # the whole stream is the newest frame
        page = await redis.xrevrange(key, max="(" + page[-1][0], count=BATCH)
        if not page:
            return "0-0", added - tail
    return _just_before(newest), added - 1  # no frame boundary within reach: the newest entry only


def _same_stream(info: dict[str, Any], point: tuple[str, int] | None) -> bool:
    """Whether the stream `info` describes can be the one in which `point` (an id and the entries ever added up to
    and including it) was counted. Trimming (MAXLEN; the dataplane never XDELs) removes the oldest entries, so
    the stream holds none at or before the id exactly when it lost at least that many; and it never loses count."""
    if point is None:
        return True
    sid, count = point
    added, first = info["entries-added"], info["first-entry"]
    none_left = not first or _parts(first[0]) > _parts(sid)
    return added >= count and none_left == (added - info["length"] >= count)


def _skipped(c: Cursor, to: str, ordinal: int | None) -> dict[str, object]:
    entries = ordinal - c.ordinal if ordinal is not None and c.ordinal is not None else None
    msg: dict[str, object] = {"type": "skipped", "stream": c.name, "from": c.id, "to": to, "entries": entries}
    c.id, c.ordinal = to, ordinal
    return msg


async def read(redis: Redis, cursors: list[Cursor]) -> tuple[list[dict[str, object]], dict[str, list]]:
    """Skipped messages, then each stream's entries to send (by cursor name), at most BATCH each; no wait."""
    pipe = redis.pipeline(transaction=True)
    for c in cursors:
        pipe.xinfo_stream(c.key)
    pipe.xread({c.key: c.id for c in cursors}, count=BATCH)
    *infos, got = await pipe.execute(raise_on_error=False)
    if isinstance(got, Exception):
        raise got
    batches = {stream: entries for stream, entries in got or []}
    skips: list[dict[str, object]] = []
    out: dict[str, list] = {}
    for c, reply in zip(cursors, infos, strict=True):
        info = _info_or_none(reply)
        batch = batches.get(c.key, [])
        if info is None:
            out[c.name] = batch
            continue
        added, length = info["entries-added"], info["length"]
        point = (c.id, c.ordinal) if c.ordinal is not None else None
        if not (_same_stream(info, point) and _same_stream(info, c.seen)):
            c.ordinal = None  # the stream was deleted and written anew
        c.seen = (info["last-generated-id"], added)
        first = info["first-entry"][0] if info["first-entry"] else None
        generated = info["last-generated-id"]
        if c.ordinal is not None:
            trimmed = c.ordinal < added - length
        else:
            # A cursor at or ahead of the newest id ever generated has nothing after it to lose.
            trimmed = added > length and _parts(c.id) < _parts(first if first else generated)
        last = info["last-entry"][0] if info["last-entry"] else None
        # Far behind: a full batch, and either older than the bound or a whole MAXLEN behind (trimmed).
        behind = len(batch) == BATCH and last is not None and (
            trimmed or _parts(last)[0] - _parts(batch[-1][0])[0] > MAX_LAG_MS)
        newest = await _newest_frame_start(redis, c.key) if behind else None
        if newest is not None and _parts(newest[0]) > _parts(c.id):
            skips.append(_skipped(c, *newest))
            batch = []
        elif trimmed:
            to = _just_before(first) if first else generated
            if to != c.id:
                skips.append(_skipped(c, to, added - length))
        if batch:
            c.id = batch[-1][0]
            if c.ordinal is not None:
                c.ordinal += len(batch)
        if len(batch) < BATCH and newest is None and _parts(c.id) == _parts(generated):
            # The read reached the stream's end as the MULTI saw it. Not so a cursor ahead of it (a
            # client's start id): entries still to come before its id are never sent, yet Redis counts them.
            c.ordinal = added
        out[c.name] = batch
    return skips, out


def advanced(cursors: list[Cursor], got: list[Any]) -> dict[str, list]:
    """Each stream's entries of a blocking XREAD (which comes back with the first new ones), cursors moved on."""
    batches = {stream: entries for stream, entries in got or []}
    out: dict[str, list] = {}
    for c in cursors:
        batch = batches.get(c.key, [])
        if batch:
            c.id = batch[-1][0]
            if c.ordinal is not None:
                c.ordinal += len(batch)
        out[c.name] = batch
    return out
