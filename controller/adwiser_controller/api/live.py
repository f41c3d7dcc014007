"""WebSocket live feed of an appliance's telemetry.

Messages (JSON text frames):
- `{"type": "status", "status": <ApplianceStatus>}` on connect and about once a second;
- `{"type": "telemetry", "frames": [...], "pairs": [...]}` with every new stream entry
  since the previous message (XREAD BLOCK), entries shaped as in the REST history;
- `{"type": "skipped", "stream": "frames"|"pairs", "from": <id>, "to": <id>, "entries": <n>|null}` when the
  feed leaves out the entries between `from` and `to`: it is more than MAX_LAG_MS behind its stream (the
  Live page shows the present, not a replay: it goes on at the newest frame) or entries after its cursor
  were trimmed by the stream's MAXLEN (live_cursor.py);
- `{"type": "error", "detail": ...}` before the server closes the socket (ws_refusal.py).
The feed starts just after `frames_after` / `pairs_after` (the last ids a client's REST
history read returned), or else at each stream's current end; `frames_added` / `pairs_added` (the
`entries_added` that read returned) let it count exactly the entries trimmed after those ids.
Authentication as for REST (cookie or bearer header); a cookie-authenticated socket must come from the same origin
(cross-site WebSocket hijacking). The credential is checked again with every status message:
once the token is revoked or expired, the session ended, or the user disabled or deleted, the
server sends a 401 error and closes with 4401. A query it cannot take (`?pairs=maybe`, a
malformed start id, a misspelt name) is closed with 4422 before the socket is served
(problems.py). A client that has not taken a message within SEND_TIMEOUT_S is closed with 1013.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Query, WebSocket, WebSocketDisconnect
from redis.exceptions import RedisError

from .. import keys
from ..problems import ProblemException
from ..store_errors import unavailable_reason
from ..stream_ids import U64_MAX, After
from ..telemetry import appliance_status, parse_frame, parse_pair
from ..ws_refusal import refuse
from . import live_cursor
from .body import StrictJsonRoute
from .deps import SESSION_COOKIE, Services, authenticate

router = APIRouter(prefix="/api/v1", tags=["telemetry"], route_class=StrictJsonRoute)
# A message the client has not taken within this long: it has stopped reading. Without a bound the
# handler waited on the full socket for good: the feed held the connection, the batch in hand and the
# unsent frames, and neither the credential check nor the server's keepalive ping (queued behind the
# same full buffer) ever ran again, so such a client stayed connected until the controller restarted.
SEND_TIMEOUT_S = 10.0
SLOW_CLIENT_CLOSE = 1013  # "try again later": a client that was only slow for a while may reconnect
# The `entries_added` a REST history read returned with the `last_id` given as the start id: with it the feed
# counts exactly how many entries after that id were trimmed (none when only it and older ones were).
Added = Annotated[int | None, Query(ge=0, le=U64_MAX, description="The history's `entries_added` for the start id.")]


async def _send(ws: WebSocket, msg: dict[str, object]) -> bool:
    """Send one message; False, after closing the socket, when the client did not take it in time."""
    try:
        await asyncio.wait_for(ws.send_json(msg), SEND_TIMEOUT_S)
    except TimeoutError:
        # The close frame cannot reach a client that reads nothing either: the websockets protocol
        # gives up on it after its close timeouts and aborts the TCP connection.
        await ws.close(code=SLOW_CLIENT_CLOSE, reason="not reading the live feed")
        return False
    return True


async def _still_authenticated(ws: WebSocket, svc: Services, bearer: str | None, cookie: str | None,
                               refresh: bool) -> bool:
    """False (after sending the 401 error and closing with 4401) when the credential is not (or no longer) valid."""
    try:
        await authenticate(svc, bearer, cookie, refresh=refresh)
    except ProblemException as exc:
        await refuse(ws, 401, exc.detail, exc.field)
        return False
    return True


@router.websocket("/telemetry/{appliance}/live")
async def live(ws: WebSocket, appliance: str, pairs: bool = True, frames_after: After = "",
               pairs_after: After = "", frames_added: Added = None, pairs_added: Added = None) -> None:
    svc: Services = ws.app.state.services
    auth_header = ws.headers.get("authorization", "")
    bearer = auth_header[7:] if auth_header.lower().startswith("bearer ") else None
    cookie = ws.cookies.get(SESSION_COOKIE)
    await ws.accept()
    # A count belongs to the id it was read with: alone it says nothing, and is refused as a query it cannot take.
    for name, added, after in (("frames", frames_added, frames_after), ("pairs", pairs_added, pairs_after)):
        if added is not None and not after:
            await refuse(ws, 422, f"query.{name}_added: needs {name}_after, the id it counts up to",
                         f"query.{name}_added")
            return
    # From the first credential check on: Redis down there too is a 503 message and close 1011, not an
    # exception that drops the accepted socket without a close frame.
    try:
        # Before the cookie is looked at: a page of another origin that the cookie reaches (same site) must
        # neither extend the session's sliding lifetime nor learn from 401 against 403 whether it is valid.
        origin = ws.headers.get("origin")
        if bearer is None and cookie and origin and urlsplit(origin).netloc != ws.headers.get("host"):
            await refuse(ws, 403, "cross-origin socket refused", "origin")
            return
        if not await _still_authenticated(ws, svc, bearer, cookie, refresh=True):
            return
        if appliance not in await svc.store.appliances():
            await refuse(ws, 404, f"no appliance {appliance!r}", "appliance")
            return
        start = [("frames", keys.appliance(appliance, "tm:frame"), frames_after, frames_added)]
        if pairs:
            start.append(("pairs", keys.appliance(appliance, "tm:pair"), pairs_after, pairs_added))
        # Without a start id, from the stream's current end. A client that read history over REST first
        # passes the last id it got: whatever was written between that read and this socket comes next
        # instead of being skipped (XREAD is exclusive of the id it is given), unless the feed is far
        # behind or the entries were trimmed meanwhile (then a skipped message says so).
        cursors = [await live_cursor.start(svc.redis, key, name, after, added) for name, key, after, added in start]
        next_status = 0.0
        while True:
            if time.monotonic() >= next_status:
                # Not extending a session's lifetime: an open socket is not activity of its user.
                if not await _still_authenticated(ws, svc, bearer, cookie, refresh=False):
                    return
                st = await appliance_status(svc.redis, appliance, await svc.store.head(appliance))
                if not await _send(ws, {"type": "status", "status": st.model_dump(mode="json")}):
                    return
                next_status = time.monotonic() + 1.0
            skips, got = await live_cursor.read(svc.redis, cursors)
            for skip in skips:
                if not await _send(ws, skip):
                    return
            if not any(got.values()):
                # Every stream read to its end: wait for the next entries (the first ones to come).
                blocked = await svc.redis.xread({c.key: c.id for c in cursors}, count=live_cursor.BATCH, block=500)
                got = live_cursor.advanced(cursors, blocked)
                if not any(got.values()):
                    continue
            msg: dict[str, object] = {
                "type": "telemetry", "appliance_id": appliance,
                "frames": [parse_frame(sid, f) for sid, f in got.get("frames", [])],
                "pairs": [parse_pair(sid, f) for sid, f in got.get("pairs", [])]}
            if not await _send(ws, msg):
                return
    except WebSocketDisconnect:
        return
    except RedisError as exc:
        await ws.send_json({"type": "error", "status": 503, "detail": f"store unavailable: {unavailable_reason(exc)}",
                           "field": "redis"})
        await ws.close(code=1011)
