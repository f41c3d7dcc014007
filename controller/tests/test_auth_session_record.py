"""A web-UI session is stored with its expiry or not at all (run in-process on the real Redis)."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError

from adwiser_controller import keys
from adwiser_controller.auth import Auth, Role


def test_a_login_cut_off_by_a_lost_connection_leaves_no_session_that_never_expires(redis_server, monkeypatch):
    # The session's hash was written, then its expiry as a command of its own: a connection lost between the
    # two left a session without a TTL, valid past the 12 h lifetime until a logout or password change.
    send = Connection.send_packed_command
    lost = []

    async def drops_the_expiry(self: Connection, command: Any, check_health: bool = True) -> None:
        parts = [command] if isinstance(command, (bytes, str)) else list(command)
        packed = b"".join(p.encode() if isinstance(p, str) else p for p in parts)
        if not lost and b"EXPIRE" in packed:
            lost.append(True)
            raise RedisConnectionError("connection lost")
        await send(self, command, check_health)

    async def scenario() -> list[int]:
        r = aioredis.from_url(redis_server.url, decode_responses=True)
        try:
            auth = Auth(r, 3600)
            await auth.create_user("sess1", "first password", Role.viewer)
            checked = await auth.check_password("sess1", "first password")
            assert checked is not None
            before = set(await r.keys(keys.session("*")))
            with monkeypatch.context() as m:
                m.setattr(Connection, "send_packed_command", drops_the_expiry)
                try:
                    await auth.open_session(checked, "test")
                except RedisConnectionError:
                    pass
            assert lost, "the failure was not injected"
            return [await r.ttl(k) for k in set(await r.keys(keys.session("*"))) - before]
        finally:
            await r.aclose()

    ttls = asyncio.run(scenario())
    assert all(0 < t <= 3600 for t in ttls), ttls
