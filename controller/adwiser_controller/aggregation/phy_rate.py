"""The PHY rate μ_R of each controlled pair (the w_i of 000 eq. 4), and whether its measurement is fresh.

A measured rate is a field of the `phy_rate` hash whose writer also put the time it measured it in
`phy_rate_ts` (REDIS.md; the testbed's ground-truth feed does). A writer that stopped (its process died,
its link went idle) leaves its last rate in the hash, and the loop kept pacing on it for good: an MCS
that changed meanwhile was never seen. So a measured rate older than max_age_s is stale: the pair's
operator-entered `phy_rate_mbps` of the topology is used instead, and without one the stale rate, as the
last known, with the status saying so (`rate_stale`). A `phy_rate` field without a time is one entered
by hand: no writer keeps it up to date, so it has no age and does not expire; nor does the topology's.

Ages are read against the Redis server's clock (TIME), the one clock every writer and every runner
share a view of; the writers' times are unix seconds on their own clocks, so those are kept in sync
(NTP), and a time ahead of Redis's by up to MAX_AHEAD_S (what synced clocks still differ by) counts as age 0.
One further ahead is from a writer whose clock is wrong: read as age 0 too, its rate stayed fresh for as long as
the clock was ahead (an hour ahead: an hour after its writer stopped), so it is stale, its age negative (by how
much the writer's clock is ahead) so that the status shows why.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import redis.asyncio as aioredis

from .. import keys
from ..models import PHY_RATE_MAX_MBPS, PHY_RATE_MIN_MBPS

# 10 slots of the default Δ (0.5 s); the testbed's feed writes every 0.1 s while its pair has traffic
MAX_AGE_S = 5.0
# NTP keeps clocks within milliseconds; a second ahead is no skew of synced clocks any more
MAX_AHEAD_S = 1.0


def _number(v: str | None) -> float | None:
    try:
        x = float(v) if v not in (None, "") else None
    except ValueError:
        return None
    return x if x is not None and math.isfinite(x) else None


@dataclass(frozen=True)
class Measured:
    mbps: float
    age_s: float | None    # None: entered by hand (no time), no age
    stale: bool


@dataclass(frozen=True)
class PhyRate:
    mbps: float | None
    source: str            # telemetry (the phy_rate hash) | topology (operator-entered) | none
    age_s: float | None    # age of the pair's measured rate in phy_rate, s (None: none, or no time)
    stale: bool            # that measured rate is older than the limit (so not used if the topology has one)


async def read(r: aioredis.Redis, aid: str, max_age_s: float = MAX_AGE_S) -> dict[str, Measured]:
    """The pairs' rates in `phy_rate`; a rate outside the topology's range for `phy_rate_mbps` (802.11's 1 Mbit/s
    up to 10 Gbit/s, models.PHY_RATE_*) is none: 1e303 Mbit/s parses as finite, but w of its 1e309 bit/s was 0
    and every step of the AP's loops divided by it; 5e-324 Mbit/s made w infinite.
    A time in `phy_rate_ts` that is no number leaves its rate stale: its writer meant it to age; so does one more
    than MAX_AHEAD_S ahead of Redis's clock (its age then negative)."""
    pipe = r.pipeline(transaction=True)
    pipe.hgetall(keys.appliance(aid, "phy_rate"))
    pipe.hgetall(keys.appliance(aid, "phy_rate_ts"))
    pipe.time()
    raw, times, (sec, usec) = await pipe.execute()
    now = sec + usec / 1e6
    out: dict[str, Measured] = {}
    for pair, s in raw.items():
        mbps = _number(s)
        if mbps is None or not PHY_RATE_MIN_MBPS <= mbps <= PHY_RATE_MAX_MBPS:
            continue
        if pair not in times:
            out[pair] = Measured(mbps, None, False)
            continue
        ts = _number(times[pair])
        if ts is None:
            out[pair] = Measured(mbps, None, True)
        elif ts - now > MAX_AHEAD_S:
            out[pair] = Measured(mbps, now - ts, True)
        else:
            age = max(now - ts, 0.0)
            out[pair] = Measured(mbps, age, age > max_age_s)
    return out


def resolve(measured: Measured | None, configured_mbps: float | None) -> PhyRate:
    """The rate the loop uses for a pair: a fresh measured one, else the operator's, else a stale one."""
    if measured is not None and not measured.stale:
        return PhyRate(measured.mbps, "telemetry", measured.age_s, False)
    age = measured.age_s if measured is not None else None
    if configured_mbps:
        return PhyRate(configured_mbps, "topology", age, measured is not None)
    if measured is not None:
        return PhyRate(measured.mbps, "telemetry", age, True)
    return PhyRate(None, "none", None, False)
