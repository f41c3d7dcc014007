"""A limit on failed logins, per user name and client address, per client address, and per user name from
every address, counted in Redis.

Without one, anyone could try passwords as fast as the server hashes them. The name's own count is kept per
address and its count from every address has a higher limit: with one count per name, anyone who knew a name
could lock its user out from everywhere with a few wrong passwords a minute; now one address can only lock the
name for itself, and a lockout of the name everywhere takes failures from several addresses (past the
per-address limit), while guessing from many addresses is still bounded per name. Each attempt is counted
before its password is checked (so a burst sent at once cannot all pass the count) and taken back
if it succeeds, so only failures use up the limit. Counters are fixed windows: the first attempt
sets the window's expiry, and past the limit every attempt, with the right password or not, is
refused with 429 until it ends. A name that is no user is counted and refused the same way, so the
answers never tell which names exist. The name is kept as its SHA-256, not as sent.
"""

from __future__ import annotations

import hashlib

import redis.asyncio as aioredis

from . import keys

# KEYS: counters; ARGV[1]: window, s. Returns, per counter, its count and the window's seconds left.
_COUNT = """
local out = {}
for i, k in ipairs(KEYS) do
  local n = redis.call('INCR', k)
  if n == 1 then redis.call('EXPIRE', k, ARGV[1]) end
  local ttl = redis.call('TTL', k)
  if ttl < 0 then redis.call('EXPIRE', k, ARGV[1]); ttl = tonumber(ARGV[1]) end
  out[#out + 1] = n
  out[#out + 1] = ttl
end
return out
"""

# Taken back only while the window lasts: a counter that expired meanwhile is not made again.
_UNCOUNT = """
for i, k in ipairs(KEYS) do
  if redis.call('EXISTS', k) == 1 then redis.call('DECR', k) end
end
return 0
"""


class LoginLimit:
    def __init__(self, r: aioredis.Redis, per_user_client: int, per_client: int, per_user: int, window_s: int):
        self.limits = (per_user_client, per_client, per_user)
        self.window_s = window_s
        self._count = r.register_script(_COUNT)
        self._uncount = r.register_script(_UNCOUNT)

    @staticmethod
    def _keys(username: str, client: str) -> list[str]:
        name = hashlib.sha256(username.encode()).hexdigest()
        return [keys.login_failures("user-client", f"{name}:{client}"), keys.login_failures("client", client),
                keys.login_failures("user", name)]

    async def attempt(self, username: str, client: str) -> int | None:
        """Counts an attempt; None if it may go on, else the seconds until it may be tried again."""
        out = await self._count(keys=self._keys(username, client), args=[self.window_s])
        waits = [ttl for n, ttl, limit in zip(out[0::2], out[1::2], self.limits) if n > limit]
        return max(waits) if waits else None

    async def succeeded(self, username: str, client: str) -> None:
        await self._uncount(keys=self._keys(username, client))
