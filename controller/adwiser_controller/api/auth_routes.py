"""Login/logout, the caller's identity, users (admin) and API tokens."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.security import HTTPAuthorizationCredentials
from pydantic import BaseModel, Field

from ..auth import (PASSWORD_MIN, USERNAME_PATTERN, AuthError, LastAdmin, NoSuchUser, PasswordChangedMeanwhile,
                    Principal, Role, TokenInfo, User)
from ..json_int import OptionalJsonInt
from ..problems import ProblemException, responses
from .body import Body, StrictJsonRoute
from .deps import (SESSION_COOKIE, Services, admin, bearer_scheme, client_of, cookie_scheme, current_principal,
                   services, set_session_cookie, viewer)

router = APIRouter(prefix="/api/v1/auth", tags=["auth"], route_class=StrictJsonRoute)

Username = Field(pattern=USERNAME_PATTERN, description="Lowercase user name, 2-32 characters.")
Password = Field(min_length=PASSWORD_MIN, max_length=256, description=f"At least {PASSWORD_MIN} characters.")
# A role arrives as a JSON string, which a strict enum refuses (see body.py).
RoleName = Annotated[Role, Field(strict=False)]


class LoginRequest(Body):
    username: str = Field(max_length=64)
    password: str = Field(max_length=256)


class Me(BaseModel):
    username: str
    role: Role
    via: str
    csrf_token: str | None = Field(description="Send as X-CSRF-Token on writes made with the session cookie.")


class PasswordChange(Body):
    current_password: str = Field(max_length=256)
    new_password: str = Password


class NewUser(Body):
    username: str = Username
    password: str = Password
    role: RoleName


class UserUpdate(Body):
    role: RoleName | None = None
    disabled: bool | None = None
    password: str | None = Field(default=None, min_length=PASSWORD_MIN, max_length=256,
                                 description="New password; revokes the user's sessions and tokens.")


class NewToken(Body):
    name: str = Field(min_length=1, max_length=64, description="What the token is for, e.g. 'ansible'.")
    role: RoleName | None = Field(default=None, description="Role the token acts with; at most yours (default yours).")
    expires_in_s: OptionalJsonInt = Field(default=None, ge=60, le=366 * 86400,
                                          description="Lifetime, seconds; null = none.")


class CreatedToken(BaseModel):
    token: str = Field(description="The secret, shown only once: `Authorization: Bearer <token>`.")
    info: TokenInfo


@router.post("/login", response_model=Me, responses=responses(401, 422, 429), summary="Log in; sets the session cookie")
async def login(body: LoginRequest, request: Request, response: Response,
                svc: Services = Depends(services)) -> Me:
    client = client_of(request)
    retry_after = await svc.login_limit.attempt(body.username, client)
    if retry_after is not None:
        await svc.audit.record(body.username, "", client, "auth.login", f"user:{body.username}", "denied",
                               detail={"reason": "too many failed logins"})
        raise ProblemException(429, f"too many failed logins: try again in {retry_after} s", "username",
                               headers={"Retry-After": str(retry_after)})
    checked = await svc.auth.check_password(body.username, body.password)
    if checked is None:
        await svc.audit.record(body.username, "", client_of(request), "auth.login", f"user:{body.username}", "denied")
        raise ProblemException(401, "wrong user name or password", "password")
    await svc.login_limit.succeeded(body.username, client)
    user = checked.user
    secret, csrf = await svc.auth.open_session(checked, client_of(request))
    set_session_cookie(response, secret, svc.settings)
    await svc.audit.record(user.username, user.role.value, client_of(request), "auth.login", f"user:{user.username}")
    return Me(username=user.username, role=user.role, via="session", csrf_token=csrf)


@router.post("/logout", status_code=204, responses=responses(401, 403, 422), summary="End the session")
async def logout(request: Request, who: Principal = Depends(current_principal),
                 cookie: str | None = Depends(cookie_scheme), svc: Services = Depends(services)) -> Response:
    if who.via == "session" and cookie:
        await svc.auth.close_session(cookie)
    await svc.audit.record(who.username, who.role.value, client_of(request), "auth.logout", f"user:{who.username}")
    # A response of its own: the one the dependencies share carries the session cookie extended (deps.py).
    response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response


@router.get("/me", response_model=Me, responses=responses(401, 403, 422), summary="Who am I")
async def me(who: Principal = Depends(viewer)) -> Me:
    return Me(username=who.username, role=who.role, via=who.via, csrf_token=who.csrf_token)


@router.put("/me/password", status_code=204, response_model=None, responses=responses(401, 403, 422, 429),
            summary="Change my password")
async def change_password(body: PasswordChange, request: Request, who: Principal = Depends(viewer),
                          cookie: str | None = Depends(cookie_scheme),
                          svc: Services = Depends(services)) -> None:
    """Ends the user's other sessions and revokes their API tokens; the session that made the change stays."""
    # A wrong current password is a failed login: unlimited, a token of a lower role than its user's (or a
    # session left open) could guess the password here and log in with the user's whole role.
    client = client_of(request)
    retry_after = await svc.login_limit.attempt(who.username, client)
    if retry_after is not None:
        raise ProblemException(429, f"too many wrong passwords: try again in {retry_after} s", "current_password",
                               headers={"Retry-After": str(retry_after)})
    checked = await svc.auth.check_password(who.username, body.current_password)
    if checked is None:
        raise ProblemException(403, "current password is wrong", "current_password")
    await svc.login_limit.succeeded(who.username, client)
    try:
        await svc.auth.update_user(who.username, None, None, body.new_password,
                                   keep_session=cookie if who.via == "session" else None, checked=checked)
    except PasswordChangedMeanwhile:   # an admin's reset landed while it was checked: the reset stands
        raise ProblemException(403, "current password is no longer yours: it was reset while it was checked",
                               "current_password") from None
    except NoSuchUser:   # deleted since this request was authenticated
        raise ProblemException(401, "your user was deleted", "cookie.adwiser_session" if who.via == "session"
                               else "header.Authorization") from None
    await svc.audit.record(who.username, who.role.value, client_of(request), "auth.password", f"user:{who.username}")


@router.get("/users", response_model=list[User], responses=responses(401, 403, 422), summary="Users (admin)")
async def users(svc: Services = Depends(services), _: Principal = Depends(admin)) -> list[User]:
    return await svc.auth.list_users()


@router.post("/users", response_model=User, status_code=201, responses=responses(401, 403, 409, 422),
             summary="Create a user (admin)")
async def create_user(body: NewUser, request: Request, svc: Services = Depends(services),
                      who: Principal = Depends(admin)) -> User:
    try:
        user = await svc.auth.create_user(body.username, body.password, body.role)
    except FileExistsError as exc:
        raise ProblemException(409, str(exc), "username") from None
    await svc.audit.record(who.username, who.role.value, client_of(request), "user.create", f"user:{body.username}",
                           detail={"role": body.role.value})
    return user


async def _user_or_404(svc: Services, username: str) -> User:
    user = await svc.auth.get_user(username)
    if user is None:
        raise ProblemException(404, f"no user {username!r}", "username")
    return user


@router.patch("/users/{username}", response_model=User, responses=responses(401, 403, 404, 409, 422),
              summary="Change a user's role, password or disabled flag (admin)")
async def update_user(username: str, body: UserUpdate, request: Request, svc: Services = Depends(services),
                      who: Principal = Depends(admin)) -> User:
    await _user_or_404(svc, username)
    try:
        updated = await svc.auth.update_user(username, body.role, body.disabled, body.password)
    except LastAdmin:
        raise ProblemException(409, "this is the last active admin", "username") from None
    except NoSuchUser as exc:
        raise ProblemException(404, str(exc), "username") from None
    await svc.audit.record(who.username, who.role.value, client_of(request), "user.update", f"user:{username}",
                           detail={"role": body.role.value if body.role else None, "disabled": body.disabled,
                                   "password_changed": body.password is not None})
    return updated


@router.delete("/users/{username}", status_code=204, response_model=None, responses=responses(401, 403, 404, 409),
               summary="Delete a user and revoke their sessions' tokens (admin)")
async def delete_user(username: str, request: Request, svc: Services = Depends(services),
                      who: Principal = Depends(admin)) -> None:
    user = await _user_or_404(svc, username)
    if username == who.username:
        raise ProblemException(409, "you cannot delete yourself", "username")
    try:
        await svc.auth.delete_user(username)
    except LastAdmin:
        raise ProblemException(409, "this is the last active admin", "username") from None
    except NoSuchUser as exc:
        raise ProblemException(404, str(exc), "username") from None
    await svc.audit.record(who.username, who.role.value, client_of(request), "user.delete", f"user:{username}")


@router.get("/tokens", response_model=list[TokenInfo], responses=responses(401, 403, 422), summary="My API tokens")
async def tokens(svc: Services = Depends(services), who: Principal = Depends(viewer)) -> list[TokenInfo]:
    return await svc.auth.list_tokens(who.username)


@router.post("/tokens", response_model=CreatedToken, status_code=201, responses=responses(401, 403, 422),
             summary="Create an API token for automation")
async def create_token(body: NewToken, request: Request, svc: Services = Depends(services),
                       who: Principal = Depends(viewer)) -> CreatedToken:
    role = body.role or who.role
    if role.rank > who.role.rank:
        raise ProblemException(403, f"a token cannot have more than your role ({who.role.value})", "role")
    now = time.time()
    expires = now + body.expires_in_s if body.expires_in_s else None
    # A token made with a token expires no later than it; refused rather than shortened, as the API never
    # changes what it was sent. Sessions are not bounded: a user logged in may make lasting tokens.
    limit = who.token_expires_at
    if limit is not None and (expires is None or expires > limit):
        left = int(limit - now)
        raise ProblemException(422, f"expires_in_s: at most {left} s, when the token making this one expires "
                                    "(a token cannot outlive the token that made it)", "expires_in_s")
    try:
        secret, info = await svc.auth.create_token(who, body.name, role, expires)
    except AuthError as exc:
        raise ProblemException(401, str(exc), exc.field, headers={"WWW-Authenticate": "Bearer"}) from None
    await svc.audit.record(who.username, who.role.value, client_of(request), "token.create", f"token:{info.id}",
                           detail={"name": body.name, "role": role.value, "expires_at": expires})
    return CreatedToken(token=secret, info=info)


@router.delete("/tokens/{token_id}", status_code=204, response_model=None, responses=responses(401, 403, 404),
               summary="Revoke an API token (yours, or anyone's as admin)")
async def revoke_token(token_id: str, request: Request, svc: Services = Depends(services),
                       who: Principal = Depends(viewer),
                       _b: HTTPAuthorizationCredentials | None = Depends(bearer_scheme)) -> None:
    info = await svc.auth.token_info(token_id)
    if info is None or (info.username != who.username and who.role != Role.admin):
        raise ProblemException(404, f"no token {token_id!r} of yours", "token_id")
    await svc.auth.revoke_token(token_id)
    await svc.audit.record(who.username, who.role.value, client_of(request), "token.revoke", f"token:{token_id}")
