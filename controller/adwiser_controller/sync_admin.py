"""The CLI's store operations (seed, apply, create-admin), run on the same async store as the API."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import redis.asyncio as aioredis

from .audit import Audit
from .auth import USERNAME_PATTERN, Auth, Role
from .models import AdwiserConfig
from .store import Store

T = TypeVar("T")


def _run(redis_url: str, fn: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
    async def go() -> T:
        r = aioredis.from_url(redis_url, decode_responses=True)
        try:
            return await fn(r)
        finally:
            await r.aclose()

    return asyncio.run(go())


def seed(redis_url: str, cfg: AdwiserConfig, author: str, comment: str) -> int:
    async def go(r: aioredis.Redis) -> int:
        info = await Store(r).create_version(cfg, author, comment)
        await Audit(r).record(author, "cli", "local", "version.create", f"version:{info.version}",
                              detail={"appliance_id": cfg.appliance_id, "comment": comment})
        return info.version

    return _run(redis_url, go)


def apply(redis_url: str, version: int, author: str) -> str:
    async def go(r: aioredis.Redis) -> str:
        aid, prev = await Store(r).apply(version, author)
        await Audit(r).record(author, "cli", "local", "version.apply", f"version:{version}",
                              detail={"appliance_id": aid, "previous": prev})
        return aid

    return _run(redis_url, go)


def create_admin(redis_url: str, username: str, password: str) -> None:
    import re

    if not re.match(USERNAME_PATTERN, username):
        raise ValueError(f"username: must match {USERNAME_PATTERN}")

    async def go(r: aioredis.Redis) -> None:
        try:
            await Auth(r, 3600).create_user(username, password, Role.admin)
        except FileExistsError as exc:
            raise ValueError(f"username: {exc}") from None
        await Audit(r).record(username, "admin", "local", "user.create", f"user:{username}", detail={"via": "cli"})

    _run(redis_url, go)
