"""A limit on failed logins, per user name and per client address, counted in Redis.

Without one, anyone could try passwords as fast as the server hashes them. Each attempt is counted
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
    def __init__(self, r: aioredis.Redis, per_user: int, per_client: int, window_s: int):
        self.per_user = per_user
        self.per_client = per_client
        self.window_s = window_s
        self._count = r.register_script(_COUNT)
        self._uncount = r.register_script(_UNCOUNT)

    @staticmethod
    def _keys(username: str, client: str) -> list[str]:
        return [keys.login_failures("user", hashlib.sha256(username.encode()).hexdigest()),
                keys.login_failures("client", client)]

    async def attempt(self, username: str, client: str) -> int | None:
        """Counts an attempt; None if it may go on, else the seconds until it may be tried again."""
        user_n, user_ttl, client_n, client_ttl = await self._count(keys=self._keys(username, client),
                                                                   args=[self.window_s])
        waits = [ttl for n, ttl, limit in ((user_n, user_ttl, self.per_user), (client_n, client_ttl, self.per_client))
                 if n > limit]
        return max(waits) if waits else None

    async def succeeded(self, username: str, client: str) -> None:
        await self._uncount(keys=self._keys(username, client))
