"""What a client is told when Redis cannot be used: the reason, never the store's address.

redis-py words its errors with the address it used ("Error 111 connecting to 10.0.0.5:6379. Connect
call failed ('10.0.0.5', 6379)."), and /api/v1/health answers anyone, so the store's address reached
clients that need no login. They get the socket error ("Connection refused") or else the kind of
error ("TimeoutError"); the whole message goes to the controller's log for the operator.
"""

from __future__ import annotations

import logging
import os
import re

from redis.exceptions import RedisError

log = logging.getLogger(__name__)

# redis-py's "could not connect" message; the OSError it came from is not always chained to it (a connect
# retried after a dropped connection carries the drop as its context instead).
_CONNECT_ERRNO = re.compile(r"^Error (\d+) connecting to ")


def unavailable_reason(exc: RedisError) -> str:
    log.warning("store unavailable: %s", exc)
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, OSError) and cause.errno and cause.errno > 0:
        return os.strerror(cause.errno)
    found = _CONNECT_ERRNO.match(str(exc))
    if found:
        return os.strerror(int(found.group(1)))
    return type(exc).__name__
