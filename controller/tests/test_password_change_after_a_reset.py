"""A user's own password change is refused when their password was reset while the current one was checked.

PUT /auth/me/password verified `current_password` (0.1-0.2 s off the event loop), then wrote the new one. An
admin's reset (locking out someone who has the password) landing during the verification was overwritten by the
change it had just made stale: whoever knew the old password chose the account's password after the reset.
Run in-process on the real Redis, the reset injected into the verification."""

from __future__ import annotations

import asyncio

import httpx

from adwiser_controller import auth as auth_module
from adwiser_controller.app import create_app
from adwiser_controller.auth import Auth, Role
from adwiser_controller.settings import Settings

NAME = "resetduring"


def test_a_password_change_checked_against_a_password_reset_meanwhile_is_refused(redis_server, monkeypatch):
    async def go() -> tuple[int, bool, bool]:
        app = create_app(Settings(redis_url=redis_server.url, webui_dist=None))
        async with app.router.lifespan_context(app):
            auth: Auth = app.state.services.auth
            await auth.create_user(NAME, "first password", Role.operator)
            try:
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(transport=transport, base_url="http://controller") as client:
                    res = await client.post("/api/v1/auth/login", json={"username": NAME, "password": "first password"})
                    assert res.status_code == 200, res.text
                    csrf = res.json()["csrf_token"]
                    verify = auth_module.verify_password

                    async def reset_meanwhile(stored: str | None, password: str) -> bool:
                        ok = await verify(stored, password)
                        await auth.update_user(NAME, None, None, "reset password")   # the admin's PATCH
                        return ok

                    monkeypatch.setattr(auth_module, "verify_password", reset_meanwhile)
                    res = await client.put("/api/v1/auth/me/password", headers={"X-CSRF-Token": csrf},
                                           json={"current_password": "first password",
                                                 "new_password": "chosen by whoever"})
                    monkeypatch.undo()
                return (res.status_code, await auth.check_password(NAME, "reset password") is not None,
                        await auth.check_password(NAME, "chosen by whoever") is not None)
            finally:
                await auth.delete_user(NAME)

    status, reset_holds, change_holds = asyncio.run(go())
    assert (reset_holds, change_holds) == (True, False), status
    assert status == 403, status
