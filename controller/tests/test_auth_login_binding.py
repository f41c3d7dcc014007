"""A login opens a session only under the password it checked.

The login read the user's hash, spent 0.1-0.2 s verifying it off the event loop, and then stamped the session with
the user's id and password epoch as they were when it was written. A password reset (an admin locking out a stolen
password) that landed during the verification gave the session opened with the old password the new epoch: it
outlived the reset. Deleting the user and giving the name to someone else meanwhile did the same with the new
user's id: the old user's password opened a session as the new user. These run the interleavings in-process on
the real Redis."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable

import redis.asyncio as aioredis

from adwiser_controller import auth as auth_module
from adwiser_controller.auth import Auth, AuthError, Principal, Role

_names = itertools.count(1)


def _login_with_a_change_during_the_check(url: str, change: Callable[[Auth, str], Awaitable[None]],
                                          monkeypatch) -> Principal | None:
    """Logs in with the first password while `change` runs during its verification: what the session acts as,
    None if no session was opened or it is refused."""
    async def go() -> Principal | None:
        r = aioredis.from_url(url, decode_responses=True)
        try:
            auth = Auth(r, 3600)
            name = f"checked{next(_names)}"
            await auth.create_user(name, "first password", Role.operator)
            verify = auth_module.verify_password

            async def changed_meanwhile(stored: str | None, password: str) -> bool:
                ok = await verify(stored, password)
                await change(auth, name)
                return ok

            monkeypatch.setattr(auth_module, "verify_password", changed_meanwhile)
            checked = await auth.check_password(name, "first password")
            monkeypatch.undo()
            try:
                if checked is None:
                    return None
                cookie, _ = await auth.open_session(checked, "test")
                try:
                    return await auth.session_principal(cookie)
                except AuthError:
                    return None
            finally:   # not left in the session's store for the tests after this one
                await auth.delete_user(name)
        finally:
            await r.aclose()

    return asyncio.run(go())


def test_a_login_checked_against_the_password_before_a_reset_does_not_outlive_the_reset(redis_server, monkeypatch):
    async def reset(auth: Auth, name: str) -> None:
        await auth.update_user(name, None, None, "reset password")

    assert _login_with_a_change_during_the_check(redis_server.url, reset, monkeypatch) is None


def test_a_deleted_users_password_opens_no_session_as_the_next_user_of_the_name(redis_server, monkeypatch):
    async def replace(auth: Auth, name: str) -> None:
        await auth.delete_user(name)
        await auth.create_user(name, "other password", Role.operator)

    assert _login_with_a_change_during_the_check(redis_server.url, replace, monkeypatch) is None
