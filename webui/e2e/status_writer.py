"""Stand-in for the aggregation-target runner and the fabric manager during the dashboard's e2e test.

It writes the two status keys the way controller/REDIS.md says their writers do, so the
dashboard reads them through the real controller from a real redis-server:
- `adwiser:appliance:<id>:aggregation`: the runner's JSON status, rewritten every Δ
  (0.5 s), checked against the controller's own response model before it is written;
- `adwiser:appliance:<id>:fabric`: written by the fabric manager's own status writer
  (FabricManager._publish_status, `SET ... PX 3000`, every second; no OVS command is run,
  only its Redis side is used): `steered` until --bypass-at seconds, then `bypass` with a
  liveness reason (as after a dataplane SIGKILL), `since_ns` and `switches` moving on.

The loop values are SYNTHETIC (no packets): per pair μ̃_N approaches N_target
geometrically, ν settles at N_target of the lowest-MCS pair, x = z / (c + w z) with
w = 12000 bit / PHY rate (000 §VI); the second AP's pair is classified backhaul-bound
and held, as 001 §5's classifier does for a rate-limited backhaul.
It stops by itself after --duration seconds.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import redis

from adwiser_controller import configfile
from adwiser_controller.api.aggregation import AggregationStatus
from adwiser_controller.fabric.liveness import LivenessJudge
from adwiser_controller.fabric.manager import FabricManager
from adwiser_controller.fabric.ovs import Ovs

LAB = Path(__file__).resolve().parents[2] / "configs" / "lab-2ap-2sta.yaml"  # what the e2e test seeds

DELTA_S = 0.5
PACKET_BITS = 12000.0
# pair -> (PHY rate Mbit/s, N_target, held on a backhaul bottleneck)
PAIRS = {"ap1/sta1": (390.0, 12.0, False), "ap2/sta2": (173.0, 4.0, True)}


def key(aid: str, what: str) -> str:
    return f"adwiser:appliance:{aid}:{what}"


def aggregation_status(aid: str, version: int | None, k: int, t0: float) -> dict:
    c_us = 300.0 + 40.0 * 0.8 ** k  # ĉ settling (eq. 40)
    aps: dict[str, dict] = {}
    for pair, (phy, n_target, held) in PAIRS.items():
        ap = pair.split("/")[0]
        mu = n_target * (1 - 0.7 ** (k + 1))
        z = n_target / (c_us * 1e-6)
        x_pps = z / (1 + (PACKET_BITS / (phy * 1e6)) * z)
        aps[ap] = {"k": k, "nu": n_target, "c_hat_us": c_us, "c_check_us": c_us + 5.0, "t_bar_ms": 5.0, "n_bar": 64.0,
                   "held": held, "pairs": {pair: {
                       "state": "held" if held else "tracking", "phy_rate_mbps": phy, "rate_source": "telemetry",
                       "mu_n": mu, "mu_source": "agg_est", "frames_in_slot": 25, "n_target": n_target, "z": z,
                       "x_pps": x_pps, "pace_bps": x_pps * PACKET_BITS, "delivered_bps": 0.97 * x_pps * PACKET_BITS,
                       "bottleneck": "backhaul" if held else "wlan", "p_backhaul": 0.93 if held else 0.05,
                       "loss": 0.04 if held else 0.001, "agg_ratio": 0.97}}}
    status = {"appliance_id": aid, "version": version, "enabled": True, "ts": time.monotonic() - t0,
              "delta_s": DELTA_S, "classifier": "bottleneck-e2e", "aps": aps}
    AggregationStatus.model_validate(status)  # the shape the controller serves, or fail here
    return status


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--redis-url", required=True)
    ap.add_argument("--appliance", required=True)
    ap.add_argument("--bypass-at", type=float, default=6.0, help="switch the fabric to bypass after this many s")
    ap.add_argument("--duration", type=float, default=60.0, help="stop after this many seconds")
    args = ap.parse_args()
    r = redis.Redis.from_url(args.redis_url, decode_responses=True)
    aid = args.appliance
    with tempfile.TemporaryDirectory(prefix="e2e-fabric-") as run_dir:
        fabric = FabricManager(Ovs(run_dir, "br-adwiser"), configfile.load(LAB), "uplink0",
                               redis.Redis.from_url(args.redis_url), LivenessJudge())
        fabric.mode, fabric.reason, fabric.switches, fabric.judge.last_pid = "steered", "dataplane healthy (pid 4242)", 1, 4242
        t0 = time.monotonic()
        k = 0
        next_step = t0
        while (now := time.monotonic()) < t0 + args.duration:
            if fabric.mode == "steered" and now - t0 >= args.bypass_at:
                # What FabricManager._install records on a switch (the flows themselves are not touched here).
                fabric.mode, fabric.reason = "bypass", "dataplane pid 4242 gone (no heartbeat for 0.3 s)"
                fabric.mode_since_ns, fabric.switches, fabric._status_due_ns = time.time_ns(), fabric.switches + 1, 0
            if now >= next_step:
                active = r.get(key(aid, "active"))
                fabric.version = int(active) if active else None
                r.set(key(aid, "aggregation"),
                      json.dumps(aggregation_status(aid, fabric.version, k, t0)))
                k += 1
                next_step += DELTA_S
            fabric._publish_status(time.time_ns(), True)  # writes when its 1 s refresh is due
            time.sleep(0.05)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
