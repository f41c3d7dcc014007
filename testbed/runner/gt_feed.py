"""The emulator's ground truth as the aggregation loop's STA-side measurements.

A STA-side agent would read each A-MPDU's size from MAC timestamps (001 §2.2)
and the PHY rate from radiotap headers (000 §IV-H). In the testbed the
emulator's ground-truth log (one JSON line per PPDU, emu/README.md) says
both exactly, so this thread tails it and every `period_s` writes, per
downlink pair it carries (AP -> STA, best effort):

- `XADD adwiser:appliance:<id>:tm:sta` {pair, mpdus (mean MPDUs per A-MPDU
  of the period), frames, mpdus_ok (MPDUs the STA received in them)}
- `HSET adwiser:appliance:<id>:phy_rate` pair -> μ_R in Mbit/s (and
  `phy_rate_ts` pair -> the unix time it was written, so the loop ignores it
  once this feed stops, controller/REDIS.md), the harmonic
  mean of the PHY rates of the last second's MPDUs (μ_R = ΣN / Σ(N/R) over
  its PPDUs of N MPDUs at rate R), so that w = (l + l_oh)/μ_R times the mean
  A-MPDU size is the mean payload airtime E[(l + l_oh) N/R] of 000 eq. 4.
  000 takes μ_R = 1/E[1/R] per PPDU, assuming N and R independent; on the
  emulated air they are not (an A-MPDU is bounded by a duration at the
  slowest rate of its retry chain, and rate-control probes go unaggregated),
  and in a 5-STA run that μ_R put the fastest STA's payload airtime per
  A-MPDU about 4 % over its true one and the slowest's about 4 % under, so
  the loop's equal airtime was not equal (testbed/findings/aggregation-target.md, "The PHY rate behind w").

This is the documented rate source "emulator ground truth" of the
controller (controller/REDIS.md). With `aggregation=False` it writes the PHY
rate alone: the loop then reads μ̃_N from the appliance's own ACK-burst
estimate (`agg_est`), as on a campus without a STA-side agent.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from pathlib import Path

import redis


class GroundTruthFeed:
    def __init__(self, redis_url: str, appliance: str, gt_path: Path, pairs: list[str],
                 period_s: float = 0.1, rate_window_s: float = 1.0, aggregation: bool = True):
        self.r = redis.Redis.from_url(redis_url, decode_responses=True)
        self.aggregation = aggregation
        self.aid, self.gt_path, self.pairs = appliance, gt_path, set(pairs)
        self.period_s, self.rate_window_s = period_s, rate_window_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="gt-feed", daemon=True)
        self.samples = 0

    def start(self) -> GroundTruthFeed:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.r.close()

    def _run(self) -> None:
        rates: dict[str, deque[tuple[float, float, int]]] = {p: deque() for p in self.pairs}   # (t, R, N)
        buf = ""
        f = None
        while not self._stop.is_set():
            if f is None:
                try:
                    f = open(self.gt_path, encoding="utf-8", errors="replace")
                except OSError:
                    self._stop.wait(self.period_s)
                    continue
            buf += f.read()
            lines = buf.split("\n")
            buf = lines.pop()
            per: dict[str, list[tuple[int, int]]] = {}
            now = time.monotonic()
            for line in lines:
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                pair = f"{rec.get('src')}/{rec.get('dst')}"
                if pair not in self.pairs or rec.get("ac") != "BE" or not rec.get("mpdus"):
                    continue
                per.setdefault(pair, []).append((int(rec["mpdus"]), int(rec.get("ok") or 0)))
                if rec.get("phy_mbps"):
                    rates[pair].append((now, float(rec["phy_mbps"]), int(rec["mpdus"])))
            pipe = self.r.pipeline(transaction=False)
            if self.aggregation:
                for pair, ppdus in per.items():
                    pipe.xadd(f"adwiser:appliance:{self.aid}:tm:sta",
                              {"pair": pair, "mpdus": f"{sum(n for n, _ in ppdus) / len(ppdus):.3f}",
                               "frames": str(len(ppdus)), "mpdus_ok": str(sum(ok for _, ok in ppdus))},
                              maxlen=20000, approximate=True)
            for pair, q in rates.items():
                while q and q[0][0] < now - self.rate_window_s:
                    q.popleft()
                if q:
                    mu_r = sum(n for _, _, n in q) / sum(n / r for _, r, n in q)
                    pipe.hset(f"adwiser:appliance:{self.aid}:phy_rate", pair, f"{mu_r:.2f}")
                    # when it was measured: once this feed stops (or the pair idles) the loop stops using it
                    pipe.hset(f"adwiser:appliance:{self.aid}:phy_rate_ts", pair, f"{time.time():.3f}")
            pipe.execute()
            self.samples += len(per)
            self._stop.wait(self.period_s)
        if f is not None:
            f.close()
