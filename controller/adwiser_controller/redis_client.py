"""The controller's connections to Redis (the API, the aggregation loop, the admin commands), made alike.

Replies are decoded as UTF-8 with bytes that are none read as U+FFFD: the dataplane, the STA agents and the
testbed write stream fields and hashes, and one byte that is no UTF-8 raised UnicodeDecodeError in the reply
parser, which is no RedisError: the API answered 500, the live feed dropped without a close frame, and the
aggregation loop read the same entry again at every step, its loops restarting for good. What the controller
writes is checked before it is stored (a lone surrogate in a request is refused with 422), so replacing on
encode changes nothing it writes.
"""
from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis


def connect(url: str, **options: Any) -> aioredis.Redis:
    return aioredis.from_url(url, decode_responses=True, encoding_errors="replace", **options)
