"""The CLI's store operations (seed, apply, create-admin), run on the same async store as the API.

Redis that cannot be used (nothing listens, a wrong password, a malformed URL, no answer) is RedisUnavailable,
which names the address and the reason in one line (cli.py prints it and exits EXIT_REDIS).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from . import redis_client
from .audit import Audit
from .auth import USERNAME_PATTERN, Auth, Role, is_username
from .models import AdwiserConfig
from .store import Store

T = TypeVar("T")

# A one-shot command waits this long for Redis to connect and for each reply, seconds: an address that takes
# the connection and never answers (another service, a stopped process) would otherwise hang it for good.
REDIS_TIMEOUT_S = 5.0


class RedisUnavailable(Exception):
    def __init__(self, address: str, reason: str):
        super().__init__(f"redis {address}: {reason}")
        self.address = address
        self.reason = reason


def shown_address(redis_url: str) -> str:
    """The URL without its credentials (user info, `password=` parameter): the line goes to logs and terminals."""
    parts = urlsplit(redis_url)
    query = parse_qsl(parts.query)
    kept = [(k, v) for k, v in query if k not in ("password", "username")]
    if "@" not in parts.netloc and kept == query:
        return redis_url
    # Put together by hand: urlunsplit writes unix:///path as unix:/path when no host is left.
    netloc = parts.netloc.rpartition("@")[2]
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{urlencode(kept)}" if kept else "")


def _reason(exc: BaseException) -> str:
    # redis-py words a refused connection "Error 111 connecting to ... Connect call failed"; the socket error
    # under it says what happened ("Connection refused", "No such file or directory", a name not resolved).
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, OSError):
        if cause.errno and cause.errno > 0:
            return os.strerror(cause.errno)
        if cause.strerror:
            return cause.strerror
    return str(exc).rstrip(".") or type(exc).__name__


def _run(redis_url: str, fn: Callable[[aioredis.Redis], Awaitable[T]]) -> T:
    try:
        r = redis_client.connect(redis_url, socket_connect_timeout=REDIS_TIMEOUT_S, socket_timeout=REDIS_TIMEOUT_S)
    except ValueError as exc:
        raise RedisUnavailable(shown_address(redis_url), str(exc)) from None

    async def go() -> T:
        try:
            return await fn(r)
        finally:
            await r.aclose()

    try:
        return asyncio.run(go())
    except RedisError as exc:
        raise RedisUnavailable(shown_address(redis_url), _reason(exc)) from None


def seed(redis_url: str, cfg: AdwiserConfig, author: str, comment: str) -> int:
    async def go(r: aioredis.Redis) -> int:
        info = await Store(r).create_version(cfg, author, comment)
        await Audit(r).record(author, "cli", "local", "version.create", f"version:{info.version}",
                              detail={"appliance_id": cfg.appliance_id, "comment": comment, "parent": info.parent})
        return info.version

    return _run(redis_url, go)


def apply(redis_url: str, version: int, author: str) -> str:
    async def go(r: aioredis.Redis) -> str:
        aid, prev, _ = await Store(r).apply(version, author)
        await Audit(r).record(author, "cli", "local", "version.apply", f"version:{version}",
                              detail={"appliance_id": aid, "previous": prev})
        return aid

    return _run(redis_url, go)


def create_admin(redis_url: str, username: str, password: str) -> None:
    if not is_username(username):
        raise ValueError(f"username: must match {USERNAME_PATTERN}")

    async def go(r: aioredis.Redis) -> None:
        try:
            await Auth(r, 3600).create_user(username, password, Role.admin)
        except FileExistsError as exc:
            raise ValueError(f"username: {exc}") from None
        await Audit(r).record(username, "admin", "local", "user.create", f"user:{username}", detail={"via": "cli"})

    _run(redis_url, go)
