"""The audit log: every change, who made it, from where, when (bounded Redis streams).

Denied logins go to a stream of their own: anyone can send them without an account, and in the one
capped stream a few hours of wrong guesses pushed every configuration and account change out. Each
stream is capped on its own; reading merges them, newest first. Their ids are taken from one sequence
(a script gives each entry an id past the last of both streams), so an id names one entry of either
and `before` pages through both without skipping or repeating any.
"""

from __future__ import annotations

import json
import time
from typing import Any

import redis.asyncio as aioredis
from pydantic import BaseModel, Field

from . import keys
from .store import now_rfc3339

AUDIT_MAXLEN = 100_000          # entries kept of changes and everything else (approximately; XADD MAXLEN ~)
DENIED_LOGINS_MAXLEN = 100_000  # entries kept of denied logins (approximately)

# KEYS[1]: the stream written, KEYS[2]: the other; ARGV[1]: its cap, then field, value, ...
# The id is the server's time in ms, or if an entry of either stream has that id or a later one, the
# next id after the later of the two streams' last entries.
_XADD_PAST_BOTH = """
local function last(key)
  local e = redis.call('XREVRANGE', key, '+', '-', 'COUNT', 1)
  if #e == 0 then return 0, -1 end
  local ms, seq = string.match(e[1][1], '^(%d+)-(%d+)$')
  return tonumber(ms), tonumber(seq)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ms, seq = last(KEYS[1])
local ms2, seq2 = last(KEYS[2])
if ms2 > ms or (ms2 == ms and seq2 > seq) then ms, seq = ms2, seq2 end
local id
if now > ms then id = string.format('%.0f-0', now) else id = string.format('%.0f-%.0f', ms, seq + 1) end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], id, unpack(ARGV, 2))
"""


def _order(stream_id: str) -> tuple[int, int]:
    ms, seq = stream_id.split("-")
    return int(ms), int(seq)


class AuditEntry(BaseModel):
    id: str = Field(description="Redis stream id (ms-seq); use as `before` to page back.")
    at: str = Field(description="Time, RFC 3339 UTC.")
    username: str
    role: str
    client: str = Field(description="Address the request came from.")
    action: str = Field(description="What was done, e.g. version.create, version.apply, auth.login.")
    target: str = Field(description="What it was done to, e.g. version:12, user:alice.")
    outcome: str = Field(description="'ok' or 'denied'/'failed'.")
    detail: dict[str, Any] = Field(default_factory=dict)


class Audit:
    def __init__(self, r: aioredis.Redis):
        self.r = r
        self._xadd = r.register_script(_XADD_PAST_BOTH)

    async def record(self, username: str, role: str, client: str, action: str, target: str,
                     outcome: str = "ok", detail: dict[str, Any] | None = None) -> None:
        denied_login = action == "auth.login" and outcome != "ok"
        streams = [keys.AUDIT_DENIED_LOGINS, keys.AUDIT] if denied_login else [keys.AUDIT, keys.AUDIT_DENIED_LOGINS]
        fields = {"at": now_rfc3339(), "ts": repr(time.time()), "username": username, "role": role, "client": client,
                  "action": action, "target": target, "outcome": outcome, "detail": json.dumps(detail or {})}
        cap = DENIED_LOGINS_MAXLEN if denied_login else AUDIT_MAXLEN
        await self._xadd(keys=streams, args=[cap, *(x for kv in fields.items() for x in kv)])

    async def list(self, count: int, before: str | None) -> list[AuditEntry]:
        top = f"({before}" if before else "+"
        raw = []
        for stream in (keys.AUDIT, keys.AUDIT_DENIED_LOGINS):
            raw += await self.r.xrevrange(stream, max=top, min="-", count=count)
        raw.sort(key=lambda e: _order(e[0]), reverse=True)
        out = []
        for sid, f in raw[:count]:
            out.append(AuditEntry(id=sid, at=f.get("at", ""), username=f.get("username", ""), role=f.get("role", ""),
                                  client=f.get("client", ""), action=f.get("action", ""), target=f.get("target", ""),
                                  outcome=f.get("outcome", ""), detail=json.loads(f.get("detail") or "{}")))
        return out
