"""The audit log: every change, who made it, from where, when (a bounded Redis stream)."""

from __future__ import annotations

import json
import time
from typing import Any

import redis.asyncio as aioredis
from pydantic import BaseModel, Field

from . import keys
from .store import now_rfc3339

AUDIT_MAXLEN = 100_000  # entries kept (approximately; XADD MAXLEN ~)


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

    async def record(self, username: str, role: str, client: str, action: str, target: str,
                     outcome: str = "ok", detail: dict[str, Any] | None = None) -> None:
        await self.r.xadd(keys.AUDIT, {
            "at": now_rfc3339(), "ts": repr(time.time()), "username": username, "role": role, "client": client,
            "action": action, "target": target, "outcome": outcome, "detail": json.dumps(detail or {}),
        }, maxlen=AUDIT_MAXLEN, approximate=True)

    async def list(self, count: int, before: str | None) -> list[AuditEntry]:
        top = f"({before}" if before else "+"
        raw = await self.r.xrevrange(keys.AUDIT, max=top, min="-", count=count)
        out = []
        for sid, f in raw:
            out.append(AuditEntry(id=sid, at=f.get("at", ""), username=f.get("username", ""), role=f.get("role", ""),
                                  client=f.get("client", ""), action=f.get("action", ""), target=f.get("target", ""),
                                  outcome=f.get("outcome", ""), detail=json.loads(f.get("detail") or "{}")))
        return out
