"""Versioned configuration store on Redis (controller/REDIS.md).

Every change is a new immutable version: `adwiser:version:<n>` holds the whole
document with author, time, comment and parent. Creating a version is one Lua
script, so the number, the hash and the indexes appear together or not at all,
and an optimistic `base` check (the head the client edited) refuses lost
updates with 409. Applying sets `desired` and publishes the number on the
appliance's config channel; the dataplane acknowledges by setting `active`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aioredis
from pydantic import BaseModel, Field, ValidationError

from . import keys
from .models import AdwiserConfig

APPLY_HISTORY_MAX = 1000  # apply events kept per appliance

# KEYS: seq, versions, appliances, appliance versions. ARGV: appliance, base (-1 = any), doc, author, created_at,
# comment. Returns the new version number, or {-1, head} if head != base.
_CREATE_LUA = """
local head = redis.call('ZREVRANGE', KEYS[4], 0, 0)[1]
local base = tonumber(ARGV[2])
if base >= 0 then
  local h = head and tonumber(head) or 0
  if h ~= base then return {-1, h} end
end
local n = redis.call('INCR', KEYS[1])
local parent = head or ''
redis.call('HSET', 'adwiser:version:' .. n, 'doc', ARGV[3], 'author', ARGV[4], 'created_at', ARGV[5],
           'comment', ARGV[6], 'parent', parent, 'appliance_id', ARGV[1])
redis.call('ZADD', KEYS[2], n, n)
redis.call('ZADD', KEYS[4], n, n)
redis.call('SADD', KEYS[3], ARGV[1])
return {n, parent}
"""


class NotFound(LookupError):
    def __init__(self, what: str, field: str):
        super().__init__(what)
        self.field = field


class StoredInvalid(ValueError):
    """A stored version's document does not validate under this controller's models (stored under looser
    rules by an older controller, or edited in Redis): it is refused, never published; `errors` are pydantic's."""

    def __init__(self, n: int, errors: list[Any]):
        super().__init__(f"version {n} does not validate under this controller's schema")
        self.errors = errors


class HeadMoved(Exception):
    def __init__(self, head: int):
        super().__init__(f"the latest version is {head}")
        self.head = head


class VersionInfo(BaseModel):
    version: int = Field(description="Version number, increasing across all appliances.")
    appliance_id: str
    author: str = Field(description="User (or 'cli:<login>') who created the version.")
    created_at: str = Field(description="Creation time, RFC 3339 UTC.")
    comment: str
    parent: int | None = Field(description="The appliance's latest version when this one was created.")


class Version(VersionInfo):
    doc: AdwiserConfig


class ApplyEvent(BaseModel):
    version: int
    author: str
    at: str = Field(description="Time of the apply, RFC 3339 UTC.")


def now_rfc3339() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _info(n: int, h: dict[str, str]) -> VersionInfo:
    doc_aid = h.get("appliance_id") or json.loads(h["doc"])["appliance_id"]
    return VersionInfo(
        version=n, appliance_id=doc_aid, author=h.get("author", ""), created_at=h.get("created_at", ""),
        comment=h.get("comment", ""), parent=int(h["parent"]) if h.get("parent") else None,
    )


class Store:
    def __init__(self, r: aioredis.Redis):
        self.r = r
        self._create = r.register_script(_CREATE_LUA)

    async def create_version(self, cfg: AdwiserConfig, author: str, comment: str, base: int | None = None) -> VersionInfo:
        aid = cfg.appliance_id
        doc = json.dumps(cfg.model_dump(mode="json"), separators=(",", ":"))
        created = now_rfc3339()
        res = await self._create(
            keys=[keys.VERSION_SEQ, keys.VERSIONS, keys.APPLIANCES, keys.appliance(aid, "versions")],
            args=[aid, -1 if base is None else base, doc, author, created, comment],
        )
        n, parent = int(res[0]), res[1]
        if n < 0:
            raise HeadMoved(int(parent))
        return VersionInfo(version=n, appliance_id=aid, author=author, created_at=created, comment=comment,
                           parent=int(parent) if parent not in ("", None) else None)

    async def head(self, aid: str) -> int | None:
        top = await self.r.zrevrange(keys.appliance(aid, "versions"), 0, 0)
        return int(top[0]) if top else None

    async def head_version(self, aid: str) -> Version:
        n = await self.head(aid)
        if n is None:
            raise NotFound(f"appliance {aid!r} has no configuration version", "appliance")
        return await self.get(n)

    async def list(self, aid: str | None, offset: int, limit: int) -> tuple[int, list[VersionInfo]]:
        zkey = keys.appliance(aid, "versions") if aid else keys.VERSIONS
        total = await self.r.zcard(zkey)
        nums = [int(x) for x in await self.r.zrevrange(zkey, offset, offset + limit - 1)]
        pipe = self.r.pipeline(transaction=False)
        for n in nums:
            pipe.hmget(keys.version(n), "appliance_id", "author", "created_at", "comment", "parent")
        out = []
        for n, vals in zip(nums, await pipe.execute()):
            h = dict(zip(("appliance_id", "author", "created_at", "comment", "parent"), vals))
            if h["appliance_id"] is None:
                continue
            out.append(_info(n, {k: v or "" for k, v in h.items()}))
        return total, out

    async def get(self, n: int) -> Version:
        h = await self.r.hgetall(keys.version(n))
        if not h:
            raise NotFound(f"version {n} does not exist", "version")
        info = _info(n, h)
        try:
            doc = AdwiserConfig.model_validate_json(h["doc"])
        except ValidationError as exc:
            raise StoredInvalid(n, list(exc.errors())) from None
        return Version(**info.model_dump(), doc=doc)

    async def get_raw_doc(self, n: int) -> dict[str, Any]:
        doc = await self.r.hget(keys.version(n), "doc")
        if doc is None:
            raise NotFound(f"version {n} does not exist", "version")
        return json.loads(doc)

    async def appliances(self) -> list[str]:
        return sorted(await self.r.smembers(keys.APPLIANCES))

    async def apply(self, n: int, author: str) -> tuple[str, int | None, int]:
        """Make version n the desired one of its appliance; returns (appliance, previous desired, this apply's
        `apply_seq`, which the dataplane's refusal of it names)."""
        version = await self.get(n)  # parses and re-validates the stored document: never publish a bad one
        aid = version.appliance_id
        event = ApplyEvent(version=n, author=author, at=now_rfc3339()).model_dump_json()
        pipe = self.r.pipeline(transaction=True)
        pipe.set(keys.appliance(aid, "desired"), n, get=True)  # the previous one, read in the same transaction
        pipe.incr(keys.appliance(aid, "apply_seq"))  # before the publish: the dataplane reads it with the version
        pipe.lpush(keys.appliance(aid, "applied"), event)
        pipe.ltrim(keys.appliance(aid, "applied"), 0, APPLY_HISTORY_MAX - 1)
        pipe.publish(keys.appliance(aid, "config"), n)
        prev, seq = (await pipe.execute())[:2]
        return aid, int(prev) if prev is not None else None, int(seq)

    async def apply_history(self, aid: str, limit: int) -> list[ApplyEvent]:
        raw = await self.r.lrange(keys.appliance(aid, "applied"), 0, limit - 1)
        return [ApplyEvent.model_validate_json(x) for x in raw]
