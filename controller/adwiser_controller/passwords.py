"""Argon2id password hashing and checking, run off the event loop.

One hash or check costs about 0.1-0.2 s of CPU and 64 MiB (argon2-cffi's defaults). Run in the
server's event loop, it held up every other request and live socket meanwhile, so a burst of wrong
logins, which anyone can send, stalled the whole controller for as long as it lasted. The work runs
in worker threads instead (argon2-cffi releases the GIL), at most HASHING_AT_ONCE at a time, so such a
burst queues for the CPU and memory those threads are given while the event loop keeps serving.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

HASHING_AT_ONCE = 2

_hasher = PasswordHasher()
_pool = ThreadPoolExecutor(max_workers=HASHING_AT_ONCE, thread_name_prefix="argon2")
# Checked in place of a missing user's hash: a login for an unknown name costs one check too, so its
# timing does not tell which names exist.
_DUMMY_HASH = _hasher.hash("not a password of anyone")


def _verify(stored: str, password: str) -> bool:
    try:
        return _hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


async def hash_password(password: str) -> str:
    return await asyncio.get_running_loop().run_in_executor(_pool, _hasher.hash, password)


async def verify_password(stored: str | None, password: str) -> bool:
    """`stored` None (no such user) is checked against a dummy hash and is never a match."""
    ok = await asyncio.get_running_loop().run_in_executor(_pool, _verify, stored or _DUMMY_HASH, password)
    return ok and stored is not None
