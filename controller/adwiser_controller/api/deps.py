"""Request dependencies: the shared services, who is calling, and role checks.

A caller is authenticated by `Authorization: Bearer adw_...` (API token) or
by the `adwiser_session` cookie (web UI). Writes made with the cookie must
echo the session's CSRF token in `X-CSRF-Token`; token calls need not (a
browser never sends a bearer token by itself).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
from fastapi import Depends, Request, Response
from fastapi.security import APIKeyCookie, HTTPAuthorizationCredentials, HTTPBearer

from ..audit import Audit
from ..auth import Auth, AuthError, Principal, Role
from ..login_limit import LoginLimit
from ..problems import ProblemException
from ..settings import Settings
from ..store import Store

SESSION_COOKIE = "adwiser_session"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}

bearer_scheme = HTTPBearer(auto_error=False, description="API token: `Authorization: Bearer adw_<id>_<secret>`")
cookie_scheme = APIKeyCookie(name=SESSION_COOKIE, auto_error=False, description="Web UI session cookie")


@dataclass
class Services:
    redis: aioredis.Redis
    store: Store
    auth: Auth
    audit: Audit
    settings: Settings
    login_limit: LoginLimit


def services(request: Request) -> Services:
    return request.app.state.services


def set_session_cookie(response: Response, secret: str, settings: Settings) -> None:
    """The cookie lives as long as the session's sliding lifetime from now (auth.py extends it on every
    request): set once at login, the browser dropped it 12 h after the login however busy its user was."""
    response.set_cookie(SESSION_COOKIE, secret, max_age=settings.session_ttl_s, httponly=True, samesite="strict",
                        secure=settings.secure_cookies, path="/")


def client_of(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def authenticate(svc: Services, authorization: str | None, cookie: str | None,
                       refresh: bool = True) -> Principal:
    """`refresh=False`: a re-check that does not extend the session's sliding lifetime."""
    try:
        if authorization:
            return await svc.auth.token_principal(authorization)
        if cookie:
            return await svc.auth.session_principal(cookie, refresh=refresh)
    except AuthError as exc:
        raise ProblemException(401, str(exc), exc.field, headers={"WWW-Authenticate": "Bearer"}) from None
    raise ProblemException(401, "log in (session cookie) or send an API token", "header.Authorization",
                           headers={"WWW-Authenticate": "Bearer"})


async def current_principal(
    request: Request,
    response: Response,
    bearer: HTTPAuthorizationCredentials | None = Depends(bearer_scheme),
    cookie: str | None = Depends(cookie_scheme),
    svc: Services = Depends(services),
) -> Principal:
    principal = await authenticate(svc, bearer.credentials if bearer else None, cookie)
    if principal.via == "session" and request.method not in SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER)
        if not sent or sent != principal.csrf_token:
            raise ProblemException(403, f"writes with the session cookie need the {CSRF_HEADER} header "
                                        "returned by login", f"header.{CSRF_HEADER}")
    if principal.via == "session" and cookie:
        set_session_cookie(response, cookie, svc.settings)
    return principal


def require(role: Role) -> Callable[..., Awaitable[Principal]]:
    async def check(principal: Principal = Depends(current_principal)) -> Principal:
        if principal.role.rank < role.rank:
            raise ProblemException(403, f"needs role {role.value}; {principal.username} acts as "
                                        f"{principal.role.value}", "role")
        return principal

    return check


viewer = require(Role.viewer)
operator = require(Role.operator)
admin = require(Role.admin)
