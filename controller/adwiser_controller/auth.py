"""Operators: users with roles, web-UI sessions and API tokens, all in Redis.

- Passwords are hashed with Argon2id (passwords.py, off the event loop); a login for an unknown
  user still costs one verification, so timing does not reveal user names.
- A session is a random cookie value; Redis keeps only its SHA-256, with the
  user, a CSRF token (to be echoed in `X-CSRF-Token` on writes made with the
  cookie) and a sliding expiry. It also keeps the user's stamp as it was read
  with the password hash the login checked: the user's id (random, new for every user made, so a session of a
  deleted user never passes for a new user of the same name) and the user's
  session epoch (raised by a password change or by disabling the user, which
  ends every session opened before).
- An API token is `adw_<id>_<secret>`; Redis keeps the SHA-256 of the secret,
  the owner, the role it acts with (at most the owner's), an expiry and the
  owner's stamp, as a session does: the tokens are revoked after the change
  that deletes the user, resets their password or disables them, as a step of
  its own, so a token written after that step by a request authenticated
  before it, or left behind when the step failed, must still not act (for the
  next user given the name, or past the reset).
- Roles are ordered viewer < operator < admin. The first admin is made by the
  `create-admin` CLI command; there is no default password. A change that
  removes an active admin (demote, disable, delete) is checked against the
  other admins and written in one Redis transaction, so two admins removing
  each other at once cannot leave none.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from enum import Enum

from collections.abc import Callable

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline
from redis.exceptions import WatchError
from pydantic import BaseModel, Field

from . import keys
from .passwords import hash_password, verify_password
from .store import now_rfc3339

USERNAME_PATTERN = r"^[a-z][a-z0-9_.-]{1,31}$"
EXPIRED_TOKEN_KEPT_S = 86400   # an expired API token's record stays this long, s, then Redis removes it
PASSWORD_MIN = 10


class Role(str, Enum):
    viewer = "viewer"
    operator = "operator"
    admin = "admin"

    @property
    def rank(self) -> int:
        return {"viewer": 0, "operator": 1, "admin": 2}[self.value]


class User(BaseModel):
    username: str
    role: Role
    created_at: str
    disabled: bool = False


class Principal(BaseModel):
    """Who is making a request, and how they proved it."""

    username: str
    role: Role
    via: str = Field(description="'session' (cookie) or 'token' (Authorization: Bearer).")
    csrf_token: str | None = None
    token_id: str | None = None
    # A token's expiry (Unix seconds; None: none, or not a token): the latest a token it makes may expire.
    token_expires_at: float | None = None
    # The user's stamp (id and session epoch, Auth._stamp) when the request was authenticated.
    uid: str | None = None
    epoch: str | None = None


class TokenInfo(BaseModel):
    id: str
    name: str
    username: str
    role: Role
    created_at: str
    expires_at: float | None = Field(description="Expiry, Unix seconds; null = never.")


@dataclass(frozen=True)
class CheckedLogin:
    """A user whose password was checked, with their stamp (Auth._stamp) as it was read with the hash checked: the
    session it opens is stamped with it, so a reset, or the user's replacement, during the check ends it."""

    user: User
    uid: str
    epoch: str


class LastAdmin(Exception):
    """409: the change would leave no active admin."""


class PasswordChangedMeanwhile(Exception):
    """403: the password a change was allowed by is no longer the user's (reset, or the user replaced, since)."""


class NoSuchUser(LookupError):
    """404: the user is not (or no longer) there."""


class AuthError(Exception):
    """401: credentials missing, unknown or expired; `field` names the credential."""

    def __init__(self, detail: str, field: str):
        super().__init__(detail)
        self.field = field


def is_username(name: str) -> bool:
    """Whether a user could have this name. Any other name is no user and must not reach Redis as a user's key:
    `alice:tokens` is the key of alice's set of tokens, which HGET refuses (WRONGTYPE, a 503), so a login with it
    told whether alice exists."""
    return re.fullmatch(USERNAME_PATTERN, name) is not None


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class Auth:
    def __init__(self, r: aioredis.Redis, session_ttl_s: int, clock=time.time):
        self.r = r
        self.session_ttl_s = session_ttl_s
        self.clock = clock

    # ------------------------------------------------------------ users
    async def create_user(self, username: str, password: str, role: Role) -> User:
        if len(password) < PASSWORD_MIN:
            raise ValueError(f"password: at least {PASSWORD_MIN} characters")
        user = User(username=username, role=role, created_at=now_rfc3339())
        record = {"password": await hash_password(password), "role": role.value, "created_at": user.created_at,
                  "disabled": "0", "uid": secrets.token_hex(8), "epoch": "0"}
        key = keys.user(username)
        # The record and the index in one transaction: written in steps, a step that failed left a record
        # that is no user (no role) but kept the name taken. A record without a role is such a remnant.
        while True:
            async with self.r.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key)
                    if await pipe.hexists(key, "role"):
                        raise FileExistsError(f"user {username!r} exists")
                    pipe.multi()
                    pipe.delete(key)
                    pipe.hset(key, mapping=record)
                    pipe.sadd(keys.USERS, username)
                    await pipe.execute()
                    return user
                except WatchError:
                    continue

    async def get_user(self, username: str) -> User | None:
        if not is_username(username):
            return None
        h = await self.r.hgetall(keys.user(username))
        if not h or "role" not in h:
            return None
        return User(username=username, role=Role(h["role"]), created_at=h.get("created_at", ""),
                    disabled=h.get("disabled") == "1")

    async def list_users(self) -> list[User]:
        out = []
        for name in sorted(await self.r.smembers(keys.USERS)):
            u = await self.get_user(name)
            if u:
                out.append(u)
        return out

    async def _change_keeping_an_admin(self, username: str, removes_admin: bool,
                                       change: Callable[[Pipeline, bool], None], session_key: str | None = None,
                                       checked: CheckedLogin | None = None) -> None:
        """Queues `change` in a MULTI, refused with LastAdmin if `removes_admin` and `username` is the only
        active admin, with NoSuchUser if `username` is not a user (any more), and with PasswordChangedMeanwhile
        if the user's stamp is no longer the one of `checked`. Every user's record is WATCHed, so a concurrent
        change to any of them re-runs the checks; `session_key` too, and `change` is told whether it exists."""
        while True:
            async with self.r.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(keys.USERS)
                    names = sorted(await pipe.smembers(keys.USERS))
                    await pipe.watch(*(keys.user(n) for n in names), *([session_key] if session_key else []))
                    session_exists = bool(session_key and await pipe.exists(session_key))
                    # A user deleted after the caller looked it up: the change's fields written on their own
                    # would be a record outside the index (one that logs in if it got a password).
                    if username not in names or not await pipe.hexists(keys.user(username), "role"):
                        raise NoSuchUser(f"no user {username!r}")
                    if checked is not None:
                        uid, epoch = await pipe.hmget(keys.user(username), "uid", "epoch")
                        if (uid or "", epoch or "0") != (checked.uid, checked.epoch):
                            raise PasswordChangedMeanwhile(f"{username!r}: the password checked is no longer theirs")
                    if removes_admin:
                        active_admins = set()
                        for n in names:
                            role, disabled = await pipe.hmget(keys.user(n), "role", "disabled")
                            if role == Role.admin.value and disabled != "1":
                                active_admins.add(n)
                        if active_admins == {username}:
                            raise LastAdmin(f"{username!r} is the last active admin")
                    pipe.multi()
                    change(pipe, session_exists)
                    await pipe.execute()
                    return
                except WatchError:
                    continue

    async def update_user(self, username: str, role: Role | None, disabled: bool | None,
                          password: str | None, keep_session: str | None = None,
                          checked: CheckedLogin | None = None) -> User:
        """A password change or disabling ends the user's sessions (the epoch) and revokes their tokens, but
        for the session whose cookie is `keep_session` (the user changing their own password): its epoch is
        raised in the same transaction as the user's, so no request on it ever sees the two differ.
        `checked`: the check of the user's password that allows the change (their own); the change is
        refused if the password was reset (or the user replaced) since it read the hash."""
        mapping: dict[str, str] = {}
        if role is not None:
            mapping["role"] = role.value
        if disabled is not None:
            mapping["disabled"] = "1" if disabled else "0"
        if password is not None:
            if len(password) < PASSWORD_MIN:
                raise ValueError(f"password: at least {PASSWORD_MIN} characters")
            mapping["password"] = await hash_password(password)
        ends_sessions = bool(disabled) or password is not None

        kept = keys.session(digest(keep_session)) if keep_session and ends_sessions else None

        def change(pipe: Pipeline, kept_exists: bool) -> None:
            if mapping:
                pipe.hset(keys.user(username), mapping=mapping)
            if ends_sessions:
                pipe.hincrby(keys.user(username), "epoch", 1)
                if kept and kept_exists:   # a valid session's epoch equals its user's: both raised by one
                    pipe.hincrby(kept, "epoch", 1)

        await self._change_keeping_an_admin(username, (role is not None and role != Role.admin) or bool(disabled),
                                            change, kept, checked)
        if ends_sessions:
            await self.revoke_all(username)
        user = await self.get_user(username)
        assert user is not None
        return user

    async def delete_user(self, username: str) -> None:
        def change(pipe: Pipeline, _: bool) -> None:
            pipe.delete(keys.user(username))
            pipe.srem(keys.USERS, username)

        await self._change_keeping_an_admin(username, True, change)
        await self.revoke_all(username)

    async def check_password(self, username: str, password: str) -> CheckedLogin | None:
        stored = uid = epoch = None
        if is_username(username):
            stored, uid, epoch = await self.r.hmget(keys.user(username), "password", "uid", "epoch")
        if not await verify_password(stored, password):
            return None
        user = await self.get_user(username)
        return CheckedLogin(user, uid or "", epoch or "0") if user and not user.disabled else None

    # ------------------------------------------------------------ sessions
    async def _stamp(self, username: str) -> tuple[str, str]:
        """The user's id and session epoch ('' and '0' for a user stored before they existed)."""
        uid, epoch = await self.r.hmget(keys.user(username), "uid", "epoch")
        return uid or "", epoch or "0"

    async def open_session(self, checked: CheckedLogin, client: str) -> tuple[str, str]:
        """Returns (cookie value, CSRF token)."""
        secret = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(24)
        key = keys.session(digest(secret))
        pipe = self.r.pipeline(transaction=True)   # with its expiry or not at all: never a session for good
        pipe.hset(key, mapping={"username": checked.user.username, "csrf": csrf, "created_at": now_rfc3339(),
                                "client": client, "uid": checked.uid, "epoch": checked.epoch})
        pipe.expire(key, self.session_ttl_s)
        await pipe.execute()
        return secret, csrf

    async def session_principal(self, secret: str, refresh: bool = True) -> Principal:
        """`refresh=False` checks the session without extending its sliding lifetime."""
        key = keys.session(digest(secret))
        h = await self.r.hgetall(key)
        if not h:
            raise AuthError("session unknown or expired: log in again", "cookie.adwiser_session")
        user = await self.get_user(h["username"])
        if user is None or user.disabled:
            await self.r.delete(key)
            raise AuthError("the session's user no longer exists or is disabled", "cookie.adwiser_session")
        stamp = await self._stamp(user.username)
        if (h.get("uid", ""), h.get("epoch", "0")) != stamp:
            await self.r.delete(key)
            raise AuthError("the session was ended by a password change, or its user was replaced: log in again",
                            "cookie.adwiser_session")
        if refresh:
            await self.r.expire(key, self.session_ttl_s)
        return Principal(username=user.username, role=user.role, via="session", csrf_token=h["csrf"],
                         uid=stamp[0], epoch=stamp[1])

    async def close_session(self, secret: str) -> None:
        await self.r.delete(keys.session(digest(secret)))

    # ------------------------------------------------------------ API tokens
    async def create_token(self, owner: Principal, name: str, role: Role,
                           expires_at: float | None) -> tuple[str, TokenInfo]:
        """A token for `owner`, stored only while the owner's user still has the stamp the request was
        authenticated with and is enabled (checked and written in one transaction); AuthError if not."""
        token_id = secrets.token_hex(8)
        secret = secrets.token_urlsafe(32)
        info = TokenInfo(id=token_id, name=name, username=owner.username, role=role, created_at=now_rfc3339(),
                         expires_at=expires_at)
        user_key = keys.user(owner.username)
        while True:
            async with self.r.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(user_key)
                    has_role, disabled, uid, epoch = await pipe.hmget(user_key, "role", "disabled", "uid", "epoch")
                    if has_role is None or disabled == "1" or (uid or "", epoch or "0") != (owner.uid, owner.epoch):
                        raise AuthError("your user was deleted, disabled or given a new password since this request "
                                        "was authenticated: log in again",
                                        "header.Authorization" if owner.via == "token" else "cookie.adwiser_session")
                    pipe.multi()
                    pipe.hset(keys.token(token_id), mapping={
                        "digest": digest(secret), "name": name, "username": owner.username, "role": role.value,
                        "created_at": info.created_at, "expires_at": "" if expires_at is None else repr(expires_at),
                        "uid": uid or "", "epoch": epoch or "0"})
                    if expires_at is not None:   # Redis forgets it a day after it expired (refused as expired till then)
                        pipe.expireat(keys.token(token_id), int(expires_at) + EXPIRED_TOKEN_KEPT_S)
                    pipe.sadd(keys.user_tokens(owner.username), token_id)
                    await pipe.execute()
                    return f"adw_{token_id}_{secret}", info
                except WatchError:
                    continue

    async def token_info(self, token_id: str) -> TokenInfo | None:
        h = await self.r.hgetall(keys.token(token_id))
        if not h:
            return None
        return TokenInfo(id=token_id, name=h["name"], username=h["username"], role=Role(h["role"]),
                         created_at=h["created_at"], expires_at=float(h["expires_at"]) if h["expires_at"] else None)

    async def list_tokens(self, username: str) -> list[TokenInfo]:
        out = []
        for tid in sorted(await self.r.smembers(keys.user_tokens(username))):
            info = await self.token_info(tid)
            if info:
                out.append(info)
            else:   # its key expired in Redis
                await self.r.srem(keys.user_tokens(username), tid)
        return out

    async def revoke_token(self, token_id: str) -> None:
        info = await self.token_info(token_id)
        if info:
            await self.r.srem(keys.user_tokens(info.username), token_id)
        await self.r.delete(keys.token(token_id))

    async def revoke_all(self, username: str) -> None:
        for tid in await self.r.smembers(keys.user_tokens(username)):
            await self.r.delete(keys.token(tid))
        await self.r.delete(keys.user_tokens(username))

    async def token_principal(self, bearer: str) -> Principal:
        field = "header.Authorization"
        parts = bearer.split("_", 2)
        if len(parts) != 3 or parts[0] != "adw":
            raise AuthError("malformed API token (expected adw_<id>_<secret>)", field)
        h = await self.r.hgetall(keys.token(parts[1]))
        if not h or not hmac.compare_digest(h["digest"], digest(parts[2])):
            raise AuthError("unknown or revoked API token", field)
        if h["expires_at"] and float(h["expires_at"]) <= self.clock():
            raise AuthError("API token expired", field)
        user = await self.get_user(h["username"])
        if user is None or user.disabled:
            raise AuthError("the token's user no longer exists or is disabled", field)
        stamp = await self._stamp(user.username)
        # A token made before tokens carried the stamp has none: it is revoked by the changes as before.
        if "uid" in h and (h["uid"], h.get("epoch", "0")) != stamp:
            await self.revoke_token(parts[1])
            raise AuthError("the token was revoked: its user was replaced or given a new password", field)
        role = Role(h["role"]) if Role(h["role"]).rank <= user.role.rank else user.role
        return Principal(username=user.username, role=role, via="token", token_id=parts[1],
                         token_expires_at=float(h["expires_at"]) if h["expires_at"] else None,
                         uid=stamp[0], epoch=stamp[1])
