"""Stand-in for the dataplane's Redis side during the dashboard's end-to-end test.

It writes exactly what controller/REDIS.md says the dataplane writes, so the
dashboard is tested against the real controller reading real Redis streams:
- follows `adwiser:appliance:<id>:desired` (polled every 100 ms), reads the
  version's document and acknowledges it (`active` + PUBLISH on `:ack`);
- `heartbeat` with `SET ... PX 3000` every 200 ms;
- one `tm:frame` entry per frame and one `tm:pair` entry per pair per frame
  (`XADD ... MAXLEN ~ 20000`), frames as long as the active slice map says.

The telemetry values are SYNTHETIC (no packets are scheduled): each pair's
batch follows the TS-ABR-QD update r(k+1) = r(k) + a (S - V(k)) (004 §5) with
V(k) = r(k) / beta for a fixed service rate beta, so the charts show r and V
converging to S; throughput is beta's rate times the pair's share of the frame.
When the active version enables dynamic slicing (004 §6.3), the last pair of
the map is modelled as an HTTP user in think time: its queue is empty at its
slice start, so its slice is given to the other pairs (`given_to`,
`reassigned` = 1, `reassignments` counted per frame) and it releases nothing.
It stops by itself after --duration seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import redis

STREAM_MAXLEN = 20000
BETA_PKTS_PER_MS = 8.0  # synthetic service rate: 8 MTU packets per ms (~97 Mbit/s)
MTU_BYTES = 1514


def key(aid: str, what: str) -> str:
    return f"adwiser:appliance:{aid}:{what}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--redis-url", required=True)
    ap.add_argument("--appliance", required=True)
    ap.add_argument("--duration", type=float, default=170.0, help="stop after this many seconds")
    args = ap.parse_args()
    r = redis.Redis.from_url(args.redis_url, decode_responses=True)
    aid = args.appliance
    active: int | None = None
    slices: list[dict] = []
    idle: str | None = None  # the pair in think time while dynamic slicing is on
    state: dict[str, dict[str, float]] = {}
    frame = 0
    t_end = time.monotonic() + args.duration
    next_poll = next_hb = 0.0
    while time.monotonic() < t_end:
        now = time.monotonic()
        if now >= next_poll:
            next_poll = now + 0.1
            desired = r.get(key(aid, "desired"))
            if desired is not None and int(desired) != active:
                doc = json.loads(r.hget(f"adwiser:version:{desired}", "doc") or "{}")
                slices = doc["slice_map"]["slices"]
                a = float(doc["policies"]["ts_abr_qd"]["a_pkts_per_ms"])
                r_init = float(doc["policies"]["ts_abr_qd"]["r_init_pkts"])
                pairs = sorted({p for s in slices for p in s["pairs"]})
                state = {p: {"r": state.get(p, {}).get("r", r_init), "a": a, "drops": 0.0} for p in pairs}
                idle = pairs[-1] if doc["policies"]["dynamic_slicing"]["enabled"] and len(pairs) > 1 else None
                active = int(desired)
                r.set(key(aid, "active"), active)
                r.publish(key(aid, "ack"), active)
        if now >= next_hb:
            next_hb = now + 0.2
            r.set(key(aid, "heartbeat"), json.dumps({"ts_ns": time.time_ns(), "pid": os.getpid(),
                                                      "version": active, "backend": "e2e-writer"}), px=3000)
        if active is None or not slices:
            time.sleep(0.05)
            continue
        frame_ms = sum(s["duration_ms"] for s in slices)
        ts = time.time_ns()
        pipe = r.pipeline(transaction=False)
        utility = 0.0
        given = [[q for q in state if q != idle] if idle in s["pairs"] else [] for s in slices]
        for s in slices:
            s_ms = float(s["duration_ms"])
            for p in s["pairs"]:
                st = state[p]
                if p == idle:
                    pipe.xadd(key(aid, "tm:pair"), {
                        "ts_ns": ts, "frame": frame, "pair": p, "mode": "sliced", "s_ms": s_ms,
                        "r_pkts": int(st["r"]), "v_ms": "", "released_pkts": 0, "released_bytes": 0,
                        "queue_pkts": 0, "limit_pkts": 256, "drops_tail": int(st["drops"]), "drops_other": 0,
                        "tput_mbps": "0", "reassigned": 1,
                    }, maxlen=STREAM_MAXLEN, approximate=True)
                    continue
                v_ms = st["r"] / BETA_PKTS_PER_MS
                released = int(st["r"])
                st["r"] = max(2.0, st["r"] + st["a"] * (s_ms - v_ms))
                # The pair's airtime: its slice, plus its part of a slice given to it.
                airtime_ms = s_ms + sum(float(o["duration_ms"]) / len(g) for o, g in zip(slices, given) if p in g)
                tput = BETA_PKTS_PER_MS * MTU_BYTES * 8 / 1000 * airtime_ms / frame_ms
                utility += math.log(tput)  # over the pairs with traffic, as adwiser-dp sums it
                queue = 100 + int(40 * math.sin(frame / 15.0 + len(p)))
                st["drops"] += 1 if frame % 50 == 0 else 0
                pipe.xadd(key(aid, "tm:pair"), {
                    "ts_ns": ts, "frame": frame, "pair": p, "mode": "sliced", "s_ms": s_ms,
                    "r_pkts": int(st["r"]), "v_ms": f"{v_ms:.3f}", "released_pkts": released,
                    "released_bytes": released * MTU_BYTES, "queue_pkts": queue, "limit_pkts": 256,
                    "drops_tail": int(st["drops"]), "drops_other": 0, "tput_mbps": f"{tput:.2f}", "reassigned": 0,
                }, maxlen=STREAM_MAXLEN, approximate=True)
        n = max(1, len(state))
        bound = n * math.log(BETA_PKTS_PER_MS * MTU_BYTES * 8 / 1000 / n)
        pipe.xadd(key(aid, "tm:frame"), {
            "ts_ns": ts, "frame": frame, "version": active, "frame_ms": frame_ms, "utility": f"{utility:.4f}",
            "utility_bound": f"{bound:.4f}", "reassignments": sum(1 for g in given if g),
            "slices": json.dumps([{"duration_ms": s["duration_ms"], "pairs": s["pairs"], "given_to": g}
                                  for s, g in zip(slices, given)]),
        }, maxlen=STREAM_MAXLEN, approximate=True)
        pipe.execute()
        frame += 1
        time.sleep(frame_ms / 1000)
    r.delete(key(aid, "heartbeat"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
