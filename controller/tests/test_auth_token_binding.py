"""An API token acts only for the user record, and the password epoch, it was made under.

A user's tokens are revoked after the change that deletes the user, resets their password or disables them,
as a second Redis step; a token written after that step (its request was authenticated before the change) or
left behind when the step failed outlived the change, and acted for the next user given the same name. These
run the interleavings in-process on the real Redis, in the order the race or the failure leaves them."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from adwiser_controller.auth import Auth, AuthError, Principal, Role

_names = itertools.count(1)


def _run(url: str, scenario: Callable[[Auth, str], Awaitable[Principal | None]]) -> Principal | None:
    async def go() -> Principal | None:
        r = aioredis.from_url(url, decode_responses=True)
        try:
            return await scenario(Auth(r, 3600), f"bound{next(_names)}")
        finally:
            await r.aclose()

    return asyncio.run(go())


async def _logged_in(auth: Auth, name: str, role: Role) -> Principal:
    await auth.create_user(name, "first password", role)
    checked = await auth.check_password(name, "first password")
    assert checked is not None
    cookie, _ = await auth.open_session(checked, "test")
    return await auth.session_principal(cookie)


async def _token_acting(auth: Auth, owner: Principal) -> Principal | None:
    """What a token asked for by `owner` acts as: None if it was refused at creation or on use."""
    try:
        token, _ = await auth.create_token(owner, "late", owner.role, None)
        return await auth.token_principal(token)
    except AuthError:
        return None


def test_a_token_asked_for_before_its_user_was_deleted_does_not_act_for_a_new_user_of_that_name(redis_server):
    async def scenario(auth: Auth, name: str) -> Principal | None:
        owner = await _logged_in(auth, name, Role.operator)
        await auth.delete_user(name)                     # an admin deletes the user meanwhile ...
        await auth.create_user(name, "other password", Role.admin)   # ... and later gives the name to someone else
        return await _token_acting(auth, owner)

    assert _run(redis_server.url, scenario) is None


def test_a_token_asked_for_before_a_password_reset_does_not_outlive_it(redis_server):
    async def scenario(auth: Auth, name: str) -> Principal | None:
        owner = await _logged_in(auth, name, Role.operator)
        await auth.update_user(name, None, None, "reset password")   # an admin locks out a stolen session
        return await _token_acting(auth, owner)

    assert _run(redis_server.url, scenario) is None


def test_a_token_left_behind_by_a_failed_revocation_does_not_act_for_a_new_user_of_that_name(redis_server,
                                                                                             monkeypatch):
    async def scenario(auth: Auth, name: str) -> Principal | None:
        owner = await _logged_in(auth, name, Role.operator)
        token, _ = await auth.create_token(owner, "ansible", Role.operator, None)

        async def store_gone(username: str) -> None:
            raise RedisConnectionError("connection lost")

        with monkeypatch.context() as m:
            m.setattr(auth, "revoke_all", store_gone)
            with pytest.raises(RedisConnectionError):
                await auth.delete_user(name)             # the user is gone, the revocation after it failed
        await auth.create_user(name, "other password", Role.admin)
        try:
            return await auth.token_principal(token)
        except AuthError:
            return None

    assert _run(redis_server.url, scenario) is None
