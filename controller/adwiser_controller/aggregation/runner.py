"""Runs the aggregation-target loops (loop.py) of every appliance against Redis.

Every Δ (the aggregation_target policy of the version the dataplane runs,
`active`, else the one applied, `desired`), for each AP with controlled pairs
(none while `active` is 0: the dataplane runs its --config file, whose policy
the controller cannot see, so the pacing is released until a version runs);
a version that leaves an AP's loop parameters as they are continues its loop):

1. read the pairs' telemetry since the last step from `tm:pair` (REDIS.md):
   μ̃_N_i = mean of `agg_est` over the slot (the dataplane's ACK-burst
   estimate of MPDUs per A-MPDU), or of `mpdus` in `tm:sta` when a STA-side
   agent (MAC timestamps, 001 §2.2; in the testbed the emulator's ground
   truth) reported the pair this slot; each entry is itself a mean over
   `agg_bursts` / `frames` A-MPDUs and counts with that weight, so μ̃_N is
   the mean over the slot's frames of 000 (37); loss = Δ(`retx_pkts` + `drops_tail` +
   `drops_other`) over Δ packets (`released_pkts`) for the classifier;
   Σ `released_bytes` over the slot is the rate the pair sent, x of (40)
   (the loop does not raise z while that is under its paced rate); the
   MPDUs the STA received (`mpdus_ok` of `tm:sta`, else the segments its
   ACKs acknowledged, `acked_segs`, else `agg_est` × `agg_bursts` from a
   dataplane without that field) over the time the entries that saw them
   cover (their stream ids) is what left the AP for it (a slot in which
   less left than arrived gives no č, nor one busy for part of it); the
   release-to-ACK delay of the segments the dataplane timed (`ack_delay_ms`
   weighted by `ack_delay_samples`) less its least over the last
   DELAY_FLOOR_SLOTS slots is `ack_queue_ms`, reported, not used by the loop
   (it follows the AP's wait but also holds the STA's ACK waiting for the
   air and its reorder hold: testbed/findings/aggregation-target.md);
2. the PHY rate μ_R_i of each pair (phy_rate.py): the hash `phy_rate` (Mbit/s,
   written by whoever measures it: the testbed from the emulator's ground
   truth) while its time in `phy_rate_ts` is under `phy_rate_max_age_s` old
   (a field without a time was entered by hand and does not expire), else
   the operator-entered `phy_rate_mbps` of the STA in the topology, else the
   stale measured rate (`rate_stale` in the status); a pair with none is
   reported `no_rate` and left unpaced;
3. classify the bottleneck (bottleneck.py) and step the loop (held for the
   pairs whose bottleneck is the backhaul);
4. `HSET pacing` the rates (bit/s) and `PUBLISH pacing`; `HDEL` the pairs no
   longer controlled; write the status (`aggregation`, JSON) and one
   `tm:aggregation` entry per pair.

The time of each step is passed in (`tick(now_s)`), so tests drive it
without sleeping; `run_forever` is the wall-clock driver of the CLI.
"""
from __future__ import annotations

import asyncio
import json
import math
from collections import deque
import sys
import time
import traceback
from dataclasses import dataclass, field, replace
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from .. import keys, redis_client
from ..models import AdwiserConfig
from . import bottleneck as bn
from . import nbar
from . import phy_rate as phy_rates
from .loop import PACER_SLACK, LoopParams, LoopState, StaMeasurement, initial, step

STATUS_MAXLEN = 20000
# The least release-to-ACK delay over this many slots (10 s at Δ = 0.5 s) is the path without a queue: many
# rounds, so some segment reached the AP just before its A-MPDU was built, and short enough to follow a new
# MCS or a route that changed.
DELAY_FLOOR_SLOTS = 20
LOSS_FIELDS = ("retx_pkts", "drops_tail", "drops_other")
# `active` while the dataplane runs its --config file after an operator's SIGHUP (REDIS.md)
DATAPLANE_FILE = 0
PAUSED_FOR_FILE = ("the dataplane runs its --config file (active 0), not a controller version: no pacing until "
                   "a version is applied")


def _float(v: str | None) -> float | None:
    """A telemetry value as a number; None if missing, not a number or not finite ("inf" and "nan" parse, and an
    inf PHY rate gave w = 0 and a ZeroDivisionError at every step of the AP's loops)."""
    if v is None or v == "":
        return None
    try:
        x = float(v)
    except ValueError:
        return None
    return x if math.isfinite(x) else None


@dataclass
class PairTelemetry:
    agg: list[float] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)   # A-MPDUs behind each entry of `agg`
    source: str = "agg_est"
    received: float | None = 0.0                         # MPDUs the STA received; None = an entry did not say
    span_s: float | None = None                          # time the slot's entries cover (stream ids), s
    acked: float = 0.0                                   # Σ acked_segs: segments the STA's ACKs acknowledged
    acked_ids: tuple[str, str] | None = None             # the stream ids the acknowledging entries cover
    released_bytes: float = 0.0                          # Σ released_bytes (a float: a sum past one is inf)
    released_seen: bool = False
    packets: int = 0
    lost: int = 0
    delay_sum_ms: float = 0.0                            # Σ ack_delay_ms × ack_delay_samples
    delay_n: float = 0.0                                 # Σ ack_delay_samples (a float: a sum past one is inf)
    delay_min_ms: float | None = None                    # least ack_delay_min_ms

    def add_delay(self, mean_ms: float | None, least_ms: float | None, n: float | None) -> None:
        """One entry's release-to-ACK samples (dataplane core/ack_delay.h)."""
        if mean_ms is None or least_ms is None or not n or n <= 0:
            return
        self.delay_sum_ms += mean_ms * n
        self.delay_n += n
        self.delay_min_ms = least_ms if self.delay_min_ms is None else min(self.delay_min_ms, least_ms)

    def released_pps(self, packet_bytes: int, slot_s: float | None) -> float | None:
        """Packets of packet_bytes per second released for the pair over the slot (frame bytes, a little above the
        IP bytes the rate counts); None when unknown, or when it or its bit/s are no finite number: Σ
        released_bytes of finite entries summed as an int past the largest float, and the division raised
        OverflowError, which failed the appliance's step."""
        if not self.released_seen or not slot_s or slot_s <= 0:
            return None
        rate = self.released_bytes / (packet_bytes * slot_s)
        return rate if math.isfinite(rate * packet_bytes * 8) else None

    def delay_ms(self) -> float | None:
        """The slot's mean delay; None without samples, or when finite entries overflowed the sums (the status is
        JSON, which has no inf; an int count past the largest float raised OverflowError and failed the step)."""
        if not self.delay_n:
            return None
        mean = self.delay_sum_ms / self.delay_n
        return mean if math.isfinite(mean) and math.isfinite(self.delay_n) else None

    def mu_n(self) -> float | None:
        """000 (37): μ̃_N(k) = Σ_f N_f / |Φ(k)|, the mean over the slot's frames. The entries are means
        over different numbers of A-MPDUs (at a fixed rate a period of larger A-MPDUs has fewer of
        them), so their plain mean leans to the larger ones: +2.5 % on the ground truth of an
        aggtarget-1sta-lowdelay run, which (43) turns into a rate 2.5 % below its T̄."""
        # the weights relative to the largest: finite entries of 1e308 A-MPDUs each summed to inf and gave
        # inf / inf = NaN, which (45)-(46) passed to every rate of the AP
        top = max(self.weights, default=0.0)
        if not self.agg or top <= 0:
            return None
        rel = [w / top for w in self.weights]
        mean = sum(a * w for a, w in zip(self.agg, rel)) / sum(rel)
        return mean if math.isfinite(mean) else None

    def received_pps(self) -> float | None:
        """The MPDUs the pair's STA received per second over the slot (ap_queue_grew in loop.py)."""
        if self.received is None or not self.agg or not self.span_s or self.span_s <= 0:
            return None
        rate = self.received / self.span_s
        # Σ agg_est x agg_bursts of finite entries can overflow: unknown, not inf (the status is JSON)
        return rate if math.isfinite(rate) else None


def _span_s(before: str, after: str) -> float | None:
    """Seconds between two stream ids (ms-seq, Redis's clock): what the entries read after `before`
    up to `after` cover, each entry counting what happened since the one before it."""
    if before in ("$", "0-0") or after == before:
        return None
    return (int(after.split("-", 1)[0]) - int(before.split("-", 1)[0])) / 1000.0


@dataclass
class ApplianceLoops:
    aid: str
    version: int | None = None
    last_id: str = "$"
    last_sta_id: str = "$"
    # per pair: its last tm:sta entry of the slot before, where its entries of this slot start counting
    last_sta_ids: dict[str, str] = field(default_factory=dict)
    last_step_s: float | None = None
    loops: dict[str, LoopState] = field(default_factory=dict)          # per AP
    params: dict[str, LoopParams] = field(default_factory=dict)        # per AP: the parameters its loop runs
    windows: dict[str, bn.PairWindow] = field(default_factory=dict)    # per pair
    counters: dict[str, dict[str, float]] = field(default_factory=dict)
    paced: set[str] = field(default_factory=set)
    delay_mins: dict[str, deque[float]] = field(default_factory=dict)  # per pair: least delay of recent slots

    def forget_pairs_not_in(self, pairs: set[str]) -> None:
        """Drop the classifier's window and the delay floor of every pair out of the policy: its telemetry is not
        read while it is out, so on its return they held samples from before it left, which decided its first
        verdicts and floors back."""
        for gone in (self.windows.keys() | self.delay_mins.keys()) - pairs:
            self.windows.pop(gone, None)
            self.delay_mins.pop(gone, None)

    def ack_queue(self, pair: str, t: PairTelemetry) -> dict[str, float | None]:
        """The slot's release-to-ACK delay, its floor (least over DELAY_FLOOR_SLOTS slots) and their
        difference (ms; None without samples)."""
        mins = self.delay_mins.setdefault(pair, deque(maxlen=DELAY_FLOOR_SLOTS))
        if t.delay_min_ms is not None:
            mins.append(t.delay_min_ms)
        mean = t.delay_ms()
        floor = min(mins) if mins else None
        queue = mean - floor if mean is not None and floor is not None else None
        return {"ack_delay_ms": mean, "ack_delay_floor_ms": floor,
                "ack_queue_ms": queue if queue is not None and math.isfinite(queue) else None}


async def _config(r: aioredis.Redis, aid: str,
                  parsed: dict[str, tuple[str, AdwiserConfig]]) -> tuple[int | None, AdwiserConfig | None]:
    """The version whose policy the loops run: `active`, else `desired`; (0, None) while the dataplane runs
    its --config file (`active` 0), whose policy the controller cannot read.

    `parsed` keeps each appliance's last document text with its model: the runner looks every 50 ms, and
    validating a campus document each time cost 4 ms (8 % of a core per appliance, enabled or not)."""
    active, desired = await r.mget(keys.appliance(aid, "active"), keys.appliance(aid, "desired"))
    if active == str(DATAPLANE_FILE):
        return DATAPLANE_FILE, None
    for v in (active, desired):
        if v and v.isdigit():
            doc = await r.hget(keys.version(int(v)), "doc")
            if doc:
                last = parsed.get(aid)
                if last is None or last[0] != doc:
                    last = parsed[aid] = (doc, AdwiserConfig.model_validate_json(doc))
                return int(v), last[1]
    return None, None


def _ceiling(cfg: AdwiserConfig, ap: str | None) -> float | None:
    return next((a.ampdu_ceiling_mpdus for a in cfg.topology.aps if a.id == ap), None)


def _ceiling_us(cfg: AdwiserConfig, ap: str | None) -> float | None:
    return next((a.ampdu_ceiling_us for a in cfg.topology.aps if a.id == ap), None)


def params_for(cfg: AdwiserConfig, t_bar_ms: float | None = None, ap: str | None = None) -> LoopParams:
    """The loop parameters of AP `ap`: N̄ is n_target_max cut to 48/64 of the AP's measured
    aggregation ceiling when the topology has one (nbar.py, 000 §V-A (17))."""
    at = cfg.policies.aggregation_target
    n_bar = nbar.n_bar(at.n_target_max, _ceiling(cfg, ap))
    return LoopParams(k1=at.k1, k2=at.k2, t_bar_s=(t_bar_ms or at.t_bar_ms) / 1000.0, n_bar=n_bar,
                      beta=at.c_beta, c_init_s=at.c_init_us * 1e-6, packet_bytes=at.packet_bytes,
                      mpdu_overhead_bytes=at.mpdu_overhead_bytes, n_max=float(at.n_max_mpdus))


def _overrides(cfg: AdwiserConfig) -> dict[str, tuple[int | None, float | None]]:
    out: dict[str, tuple[int | None, float | None]] = {}
    for ov in cfg.policies.aggregation_target.overrides:
        for p in ov.pairs:
            out[p] = (ov.n_target_max, ov.t_bar_ms)
    return out


def ap_t_bar_ms(cfg: AdwiserConfig, ap_pairs: list[str],
                ovr: dict[str, tuple[int | None, float | None]] | None = None) -> float:
    """The T̄ an AP's loop works to: the AP's queueing delay is one scheduler round for all its pairs
    (000 eq. 10), and (16) asks μ_T_i ≤ T̄ of every station, so the tightest T̄ among them, a pair without
    an override counting with the policy's (a looser override must not loosen the other pairs' target).
    ovr: _overrides(cfg), when the caller has it already."""
    at = cfg.policies.aggregation_target
    ovr = _overrides(cfg) if ovr is None else ovr
    return min(ovr[p][1] if p in ovr and ovr[p][1] is not None else at.t_bar_ms for p in ap_pairs)


class AggregationRunner:
    def __init__(self, r: aioredis.Redis, model: bn.Model | None = None,
                 phy_rate_max_age_s: float = phy_rates.MAX_AGE_S):
        self.r = r
        self.phy_rate_max_age_s = phy_rate_max_age_s
        # the bottleneck classifier's coefficients (bottleneck.py), loaded once: a malformed file stops
        # the loop at its start rather than at its first classification
        self.model = model or bn.default_model()
        self.state: dict[str, ApplianceLoops] = {}
        self.parsed: dict[str, tuple[str, AdwiserConfig]] = {}   # per appliance: its document's text, parsed

    async def _read_telemetry(self, st: ApplianceLoops, pairs: set[str]) -> dict[str, PairTelemetry]:
        stream = keys.appliance(st.aid, "tm:pair")
        if st.last_id == "$":
            last = await self.r.xrevrange(stream, count=1)
            st.last_id = last[0][0] if last else "0-0"
            entries: list[tuple[str, dict[str, str]]] = []
        else:
            entries = await self.r.xrange(stream, min=f"({st.last_id}", max="+", count=100000)
        out = {p: PairTelemetry() for p in pairs}
        before = st.last_id
        previous = dict.fromkeys(pairs, before)        # each pair's entry before the current one
        for sid, f in entries:
            st.last_id = sid
            pair = f.get("pair")
            if pair not in out:
                continue
            t = out[pair]
            acked = _float(f.get("acked_segs"))
            if acked is not None and acked > 0:
                # what the STA received, counted from the ACKs' advance without the burst classifier, over
                # the entries that saw it: a pair busy for part of the slot shows as a higher rate
                t.acked += acked
                t.acked_ids = (t.acked_ids[0] if t.acked_ids else previous[pair], sid)
            previous[pair] = sid
            agg = _float(f.get("agg_est"))
            if agg is not None and agg > 0:
                bursts = _float(f.get("agg_bursts"))
                t.agg.append(agg)
                t.weights.append(bursts if bursts is not None and bursts > 0 else 1.0)
                # each burst of ACKs covers the MPDUs one A-MPDU delivered (001 §4.1)
                counted = bursts is not None and bursts > 0 and t.received is not None
                t.received = t.received + agg * bursts if counted else None
            t.packets += int(_float(f.get("released_pkts")) or 0)
            t.add_delay(_float(f.get("ack_delay_ms")), _float(f.get("ack_delay_min_ms")),
                        _float(f.get("ack_delay_samples")))
            rb = _float(f.get("released_bytes"))
            if rb is not None:
                t.released_bytes += rb
                t.released_seen = True
            prev = st.counters.setdefault(pair, {})
            for name in LOSS_FIELDS:
                v = _float(f.get(name))
                if v is None:
                    continue
                old = prev.get(name)
                # cumulative counters; a smaller value means the dataplane restarted
                t.lost += int(v - old) if old is not None and v >= old else 0
                prev[name] = v
        for t in out.values():
            if t.acked_ids is not None:
                t.received, t.span_s = t.acked, _span_s(*t.acked_ids)
            else:
                t.span_s = _span_s(before, st.last_id)
        await self._read_sta_side(st, out)
        return out

    async def _read_sta_side(self, st: ApplianceLoops, out: dict[str, PairTelemetry]) -> None:
        """STA-side measurements (`tm:sta`: MAC-timestamp aggregation, 001 §2.2), which replace the
        appliance's ACK-burst estimate for the pairs that have them this slot."""
        stream = keys.appliance(st.aid, "tm:sta")
        if st.last_sta_id == "$":
            last = await self.r.xrevrange(stream, count=1)
            st.last_sta_id = last[0][0] if last else "0-0"
            return
        entries = await self.r.xrange(stream, min=f"({st.last_sta_id}", max="+", count=100000)
        before = st.last_sta_id
        samples: dict[str, list[tuple[float, float, float | None]]] = {}
        # Each STA's feed writes an entry only for a period in which its pair received A-MPDUs, so a pair's
        # entries cover the time from its own entry before them to its own last one: up to the last entry of
        # every pair, a pair whose transfer ended inside the slot read as receiving over the whole slot, and
        # busy_part_of_slot (loop.py) did not see it. A pair without an entry in the slot before starts at it.
        starts, last = st.last_sta_ids, {}
        for sid, f in entries:
            st.last_sta_id = sid
            pair, mpdus, frames = f.get("pair"), _float(f.get("mpdus")), _float(f.get("frames"))
            if pair in out:
                last[pair] = sid
            if pair in out and mpdus is not None and mpdus > 0 and frames and frames > 0:
                samples.setdefault(pair, []).append((mpdus, frames, _float(f.get("mpdus_ok"))))
        st.last_sta_ids = last
        for pair, agg in samples.items():
            out[pair].agg = [m for m, _, _ in agg]
            out[pair].weights = [n for _, n, _ in agg]
            out[pair].source = "sta"
            ok = [k for _, _, k in agg]
            out[pair].received = sum(k for k in ok if k is not None) if None not in ok else None
            out[pair].span_s = _span_s(starts.get(pair, before), last[pair])

    async def tick(self, aid: str, now_s: float) -> dict[str, Any] | None:
        """One step of every loop of appliance `aid` if Δ has passed since the
        last one; returns the status written (None if nothing was due)."""
        st = self.state.get(aid)
        if st is None:
            # The runner is the pacing hash's only writer (REDIS.md): what is in it at this runner's first
            # step was paced by a runner before it (stopped, restarted), and is released like this runner's
            # own rates once its pair is no longer controlled, else the dataplane paces it at that rate for good.
            st = self.state[aid] = ApplianceLoops(aid, paced=set(await self.r.hkeys(keys.appliance(aid, "pacing"))))
        version, cfg = await _config(self.r, aid, self.parsed)
        if version == DATAPLANE_FILE:
            return await self._pause_for_dataplane_file(st, now_s)
        at = cfg.policies.aggregation_target if cfg else None
        if cfg is None or at is None or not at.enabled or not at.pairs:
            await self._release(st, set())
            # Nothing is paced and the telemetry is not read meanwhile: a policy enabled again starts as a runner
            # just started, its loops at loop.initial and the classifier's windows and the delay floors empty, on
            # the telemetry from then on. Kept, the samples from before it was off decided the first verdicts
            # after (a pair held as backhaul-limited on small A-MPDUs of the slots before).
            self.state[aid] = ApplianceLoops(aid, version=version)
            status = {"appliance_id": aid, "version": version, "enabled": False, "paused": None, "ts": now_s,
                      "aps": {}}
            await self.r.set(keys.appliance(aid, "aggregation"), json.dumps(status))
            return status
        if st.last_step_s is not None and now_s - st.last_step_s < at.delta_s * 0.999 and st.version == version:
            return None
        if st.version != version:
            # The loss counters start again from each pair's next entry: a pair out of the policy (or the
            # policy off) was not read meanwhile, and its counters' whole rise since would count as one
            # slot's loss (L^p 0.99 on a pair's first slot back, with nothing lost in it).
            st.counters.clear()
        st.version = version
        first = st.last_step_s is None
        slot_s = None if first else now_s - (st.last_step_s or now_s)
        st.last_step_s = now_s
        pairs = set(at.pairs)
        st.forget_pairs_not_in(pairs)
        tel = await self._read_telemetry(st, pairs)
        phy = await phy_rates.read(self.r, aid, self.phy_rate_max_age_s)
        stas = {s.id: s for s in cfg.topology.stas}
        ovr = _overrides(cfg)
        by_ap: dict[str, list[str]] = {}
        for p in at.pairs:
            by_ap.setdefault(p.split("/", 1)[0], []).append(p)

        controlled: set[str] = set()
        rates_bps: dict[str, float] = {}
        aps_status: dict[str, Any] = {}
        xadd: list[dict[str, str]] = []
        for ap, ap_pairs in sorted(by_ap.items()):
            params = params_for(cfg, ap_t_bar_ms(cfg, ap_pairs, ovr), ap)
            ceiling, ceiling_us = _ceiling(cfg, ap), _ceiling_us(cfg, ap)
            meas: dict[str, StaMeasurement] = {}
            pair_status: dict[str, Any] = {}
            for p in ap_pairs:
                sta = stas[p.split("/", 1)[1]]
                rate = phy_rates.resolve(phy.get(p), sta.phy_rate_mbps)
                mbps = rate.mbps
                t = tel[p]
                mu = t.mu_n() if not first else None
                win = st.windows.setdefault(p, bn.PairWindow(at.bottleneck_frames, at.bottleneck_packets))
                win.resize(at.bottleneck_frames, at.bottleneck_packets)
                if not first:
                    for a in t.agg:
                        win.add_aggregation(a)
                    win.add_packets(t.packets, t.lost)
                pair_status[p] = {"phy_rate_mbps": mbps, "rate_source": rate.source, "rate_age_s": rate.age_s,
                                  "rate_stale": rate.stale, "mu_n": mu,
                                  "mu_source": t.source, "frames_in_slot": len(t.agg), **st.ack_queue(p, t)}
                if mbps is None:
                    pair_status[p]["state"] = "no_rate"
                    continue
                ovr_nbar = ovr[p][0] if p in ovr else None
                # a class override of N̄ is cut to the AP's ceiling too (000 §V-A (17)); an airtime ceiling
                # gives each pair its own N̄ at its PHY rate of this slot (nbar.py)
                n_bar = (nbar.n_bar(ovr_nbar if ovr_nbar is not None else at.n_target_max, ceiling, ceiling_us,
                                    params.w_of(mbps * 1e6) * 1e6)
                         if ovr_nbar is not None or ceiling_us is not None else None)
                pair_status[p]["n_bar"] = min(n_bar if n_bar is not None else params.n_bar, params.n_max)
                # what the dataplane released for the pair over the slot, for the loop's conditional integration
                delivered = t.released_pps(at.packet_bytes, slot_s)
                pair_status[p]["delivered_bps"] = delivered * at.packet_bytes * 8 if delivered is not None else None
                received = t.received_pps() if not first else None
                pair_status[p]["received_pps"] = received
                meas[p] = StaMeasurement(mbps * 1e6, mu, float(n_bar) if n_bar is not None else None, delivered,
                                         received)
            # A version that leaves the AP's loop parameters as they are continues its loop (pairs added or
            # removed join or leave it in loop.step); new parameters start it again (loop.initial, 000 §VI
            # Lemma 2's ν(1)). Restarted on every version, a settled pair was paced at z = W and ĉ = c_init for
            # a Δ after any apply (91 -> 32 Mbit/s at 100 Mbit/s).
            prev = st.loops.get(ap) if st.params.get(ap) == params else None
            st.params[ap] = params
            hold: set[str] = set()
            verdicts: dict[str, bn.Verdict] = {}
            for p in meas:
                # against the target of the slot just measured (bottleneck.py (i)); a pair that carried
                # its paced rate is pacer-limited, not backhaul-limited (bottleneck.py (ii))
                target = prev.n_target.get(p) if prev else None
                paced = prev.x.get(p) if prev else None
                carried = meas[p].delivered_pps
                pacer_limited = (carried is not None and paced is not None
                                 and carried >= (1.0 - PACER_SLACK) * paced)
                verdicts[p] = st.windows[p].classify(target or 0.0, pacer_limited, self.model)
                if verdicts[p].bottleneck == "backhaul":
                    hold.add(p)
            if prev is None or not meas:
                state = initial(params, meas) if meas else LoopState()
                c_check, grew = None, frozenset()
                if meas:
                    state = replace(state, k=0, t_s=now_s)
            else:
                res = step(params, prev, meas, now_s, frozenset(hold))
                state, c_check, grew = res.state, res.c_check, res.queue_grew
            st.loops[ap] = state
            for p in meas:
                controlled.add(p)
                rates_bps[p] = params.pace_bps(state.x[p])
                v = verdicts[p]
                pair_status[p].update({
                    "state": "held" if p in hold else "tracking", "n_target": state.n_target[p], "z": state.z[p],
                    "x_pps": state.x[p], "pace_bps": rates_bps[p], "bottleneck": v.bottleneck,
                    "p_backhaul": v.p_backhaul, "loss": v.loss, "agg_ratio": v.agg_ratio,
                    "ap_queue_grew": p in grew})
            for p, ps in pair_status.items():
                xadd.append({"ts": f"{now_s:.6f}", "ap": ap, "pair": p, "k": str(state.k),
                             "nu": f"{state.nu:.4f}", "c_hat_us": f"{state.c_hat * 1e6:.2f}",
                             **{k: "" if v is None else (f"{v:.6g}" if isinstance(v, float) else str(v))
                                for k, v in ps.items()}})
            aps_status[ap] = {"k": state.k, "nu": state.nu, "c_hat_us": state.c_hat * 1e6,
                              "c_check_us": c_check * 1e6 if c_check is not None else None,
                              # the N̄ the loop works to: N_max bounds it as it bounds the pairs' (loop._nbar)
                              "t_bar_ms": params.t_bar_s * 1000, "n_bar": min(params.n_bar, params.n_max),
                              "ampdu_ceiling_mpdus": ceiling, "ampdu_ceiling_us": ceiling_us,
                              "held": state.held, "pairs": pair_status}
        for ap in set(st.loops) - set(by_ap):   # no pair of the policy on it any more
            del st.loops[ap]
            st.params.pop(ap, None)
        await self._apply(st, rates_bps)
        await self._release(st, controlled)
        status = {"appliance_id": aid, "version": version, "enabled": True, "paused": None, "ts": now_s,
                  "delta_s": at.delta_s, "classifier": self.model.version, "aps": aps_status}
        pipe = self.r.pipeline(transaction=True)
        pipe.set(keys.appliance(aid, "aggregation"), json.dumps(status))
        for entry in xadd:
            pipe.xadd(keys.appliance(aid, "tm:aggregation"), entry, maxlen=STATUS_MAXLEN, approximate=True)
        await pipe.execute()
        return status

    async def _pause_for_dataplane_file(self, st: ApplianceLoops, now_s: float) -> dict[str, Any]:
        """While the dataplane runs its --config file the rates of `desired`'s policy would pace pairs of a
        document the controller cannot see, under a policy the file may not have: every pair this runner
        paces goes back to slicing, and the status says why."""
        await self._release(st, set())
        # The loops, the classifier's windows and the stream positions describe the dataplane under the
        # version before the reload: a version applied after it starts them again as a runner just started,
        # on the telemetry from then on, so no slot spans the time the file ran.
        self.state[st.aid] = ApplianceLoops(st.aid, version=DATAPLANE_FILE)
        status = {"appliance_id": st.aid, "version": DATAPLANE_FILE, "enabled": False, "paused": PAUSED_FOR_FILE,
                  "ts": now_s, "aps": {}}
        await self.r.set(keys.appliance(st.aid, "aggregation"), json.dumps(status))
        return status

    async def _apply(self, st: ApplianceLoops, rates_bps: dict[str, float]) -> None:
        if not rates_bps:
            return
        pipe = self.r.pipeline(transaction=True)
        pipe.hset(keys.appliance(st.aid, "pacing"), mapping={p: str(int(round(v))) for p, v in rates_bps.items()})
        pipe.publish(keys.appliance(st.aid, "pacing"), json.dumps(sorted(rates_bps)))
        await pipe.execute()
        st.paced |= set(rates_bps)

    async def _release(self, st: ApplianceLoops, keep: set[str]) -> None:
        """Pairs this runner paced and no longer controls go back to slicing (field absent)."""
        gone = st.paced - keep
        if not gone:
            return
        pipe = self.r.pipeline(transaction=True)
        pipe.hdel(keys.appliance(st.aid, "pacing"), *sorted(gone))
        pipe.publish(keys.appliance(st.aid, "pacing"), json.dumps(sorted(gone)))
        await pipe.execute()
        st.paced -= gone

    async def tick_all(self, now_s: float, only: list[str] | None = None) -> None:
        aids = only or sorted(await self.r.smembers(keys.APPLIANCES))
        for aid in aids:
            try:
                await self.tick(aid, now_s)
            except RedisError:
                raise
            except Exception:
                # The daemon's boundary per appliance: one appliance's defect (its data, or a bug its data
                # reaches) must not stop the loops of every other appliance on the campus, as a KeyError in
                # one step did (506c355). Its loops restart from loop.initial at its next Δ; its pacing
                # rates stay as last written until then.
                print(f"aggregation-loop: appliance {aid}: step failed, its loops restart:\n"
                      f"{traceback.format_exc()}", file=sys.stderr, flush=True)
                if aid in self.state:
                    self.state[aid].loops.clear()


async def run_forever(redis_url: str, appliances: list[str] | None, period_s: float = 0.05,
                      stop: asyncio.Event | None = None, model: bn.Model | None = None,
                      phy_rate_max_age_s: float = phy_rates.MAX_AGE_S) -> None:
    """Wall-clock driver: looks every `period_s` whether a Δ has passed per appliance."""
    model = model or bn.default_model()
    r = redis_client.connect(redis_url)
    runner = AggregationRunner(r, model, phy_rate_max_age_s)
    try:
        while stop is None or not stop.is_set():
            try:
                await runner.tick_all(time.monotonic(), appliances)
            except RedisError as exc:
                # Redis restarting: the pacing already written stays in force; retry next period.
                print(f"aggregation-loop: redis: {exc}", file=sys.stderr, flush=True)
                await asyncio.sleep(1.0)
            await asyncio.sleep(period_s)
    finally:
        await r.aclose()
