"""Controller benchmarks, on loopback against servers this script starts and stops.

1. apply -> active: the time from `POST /versions/{n}/apply` being sent to the
   dataplane's ack arriving on `adwiser:appliance:<id>:ack`, with the reference
   acknowledger (tests/reference_dataplane.py) swapping at its next frame
   boundary (40/45 ms frames: expect about half a frame on average; each apply
   is sent at a random phase of the frame, since one sent right after the
   previous ack would always wait a whole frame) and, for the controller/Redis
   path alone, acknowledging at once.
2. request latency at a fixed rate (open loop: each request has a scheduled send
   time and its latency counts from then, so a stalled server cannot hide its
   backlog), for a status read and a version read, over 16 keep-alive
   connections of a raw asyncio client; then wrk (closed loop) for the
   saturation throughput on the same endpoint.

Figures are printed; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import redis

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from lab_document import lab_doc  # noqa: E402
from reference_dataplane import ReferenceDataplane  # noqa: E402
from servers import ControllerServer, RedisServer, cli  # noqa: E402


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def summary(name: str, ms: list[float]) -> str:
    return (f"{name}: n={len(ms)} p50={pct(ms, 50):.2f} ms p99={pct(ms, 99):.2f} ms "
            f"mean={statistics.fmean(ms):.2f} ms max={max(ms):.2f} ms")


def apply_to_ack(base: str, token: str, redis_url: str, aid: str, versions: list[int], n: int,
                 frame_wait: bool) -> list[float]:
    dp = ReferenceDataplane(redis_url, aid, telemetry=False, frame_wait=frame_wait).start()
    r = redis.Redis.from_url(redis_url, decode_responses=True)
    sub = r.pubsub(ignore_subscribe_messages=True)
    sub.subscribe(f"adwiser:appliance:{aid}:ack")
    out = []
    try:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=10) as c:
            c.post(f"/api/v1/versions/{versions[0]}/apply", params={"wait_ms": 3000})
            while sub.get_message(timeout=0.05):
                pass
            rng = random.Random(1)
            for i in range(n):
                v = versions[(i + 1) % len(versions)]
                time.sleep(rng.uniform(0, 0.045))  # a random phase of the dataplane's frame
                t0 = time.perf_counter()
                res = c.post(f"/api/v1/versions/{v}/apply")
                res.raise_for_status()
                deadline = t0 + 3
                while time.perf_counter() < deadline:
                    msg = sub.get_message(timeout=0.5)
                    if msg and msg["data"] == str(v):
                        out.append((time.perf_counter() - t0) * 1000)
                        break
                else:
                    print(f"  version {v}: no ack within 3 s", file=sys.stderr)
    finally:
        sub.close()
        r.close()
        dp.stop()
    return out


class _Conn:
    """One keep-alive HTTP/1.1 connection: a raw asyncio stream, so the load
    generator costs tens of µs per request and the latency measured is the
    controller's, not the client library's (httpx costs about 1 ms per
    request, which on 2 shared cores saturated the client before the server)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    async def get(self, request: bytes) -> int:
        self.writer.write(request)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("controller closed the connection")
        length = None
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
            elif name.strip().lower() == "transfer-encoding":
                raise ValueError("chunked response: the bench client reads Content-Length bodies only")
        if length is None:
            raise ValueError("response without Content-Length")
        await self.reader.readexactly(length)
        return int(status_line.split()[1])


async def open_loop(base: str, token: str, path: str, rate: float, duration: float,
                    connections: int = 16) -> tuple[list[float], int]:
    """Open loop: request i is due at t0 + i/rate and its latency counts from
    then (queueing for a free connection included), so a stalled server cannot
    hide its backlog (no coordinated omission)."""
    url = httpx.URL(base)
    host, port = url.host, url.port or 80
    request = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
               "Connection: keep-alive\r\n\r\n").encode()
    pool: asyncio.Queue[_Conn] = asyncio.Queue()
    conns = [_Conn(*await asyncio.open_connection(host, port)) for _ in range(connections)]
    for c in conns:
        await c.get(request)  # warm each connection
        pool.put_nowait(c)
    n = int(rate * duration)
    lat: list[float] = []
    errors = 0
    t0 = time.perf_counter() + 0.05

    async def one(i: int) -> None:
        nonlocal errors
        scheduled = t0 + i / rate
        delay = scheduled - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        conn = await pool.get()
        try:
            if await conn.get(request) != 200:
                errors += 1
        except (OSError, ValueError, asyncio.IncompleteReadError):
            errors += 1
            conn = _Conn(*await asyncio.open_connection(host, port))
        lat.append((time.perf_counter() - scheduled) * 1000)
        pool.put_nowait(conn)

    try:
        await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(n))), timeout=duration + 60)
    finally:
        for c in conns:
            c.writer.close()
    return lat, errors


def wrk(base: str, token: str, path: str, seconds: int) -> str:
    if shutil.which("wrk") is None:
        return "wrk: not installed"
    res = subprocess.run(["wrk", "-t1", "-c4", f"-d{seconds}s", "--latency", "-H", f"Authorization: Bearer {token}",
                          base + path], capture_output=True, text=True, timeout=seconds + 30)
    keep = [ln.strip() for ln in res.stdout.splitlines()
            if ln.strip().startswith(("50%", "99%", "Requests/sec", "Non-2xx"))]
    return "wrk -t1 -c4 (closed loop, saturation): " + "; ".join(keep)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--applies", type=int, default=100, help="apply->ack samples per mode")
    p.add_argument("--rate", type=float, default=200, help="fixed request rate, requests/s")
    p.add_argument("--duration", type=float, default=10, help="seconds per fixed-rate run")
    p.add_argument("--wrk-seconds", type=int, default=5)
    args = p.parse_args()

    work = Path(tempfile.mkdtemp(prefix="adwiser-bench-"))
    rs = RedisServer(work / "redis").start()
    cs = None
    try:
        password = "bench password 1"
        assert cli(rs.url, "create-admin", "--username", "bench", "--password-stdin", stdin=password + "\n").returncode == 0
        cs = ControllerServer(rs.url, work / "controller").start()
        with httpx.Client(base_url=cs.url, timeout=10) as c:
            me = c.post("/api/v1/auth/login", json={"username": "bench", "password": password}).json()
            token = c.post("/api/v1/auth/tokens", headers={"X-CSRF-Token": me["csrf_token"]},
                           json={"name": "bench"}).json()["token"]
            hdr = {"Authorization": f"Bearer {token}"}
            versions = []
            for ms in (20, 25):
                doc = lab_doc("bench")
                doc["slice_map"]["slices"][0]["duration_ms"] = ms
                versions.append(c.post("/api/v1/versions", headers=hdr, json={"doc": doc}).json()["version"])

        print(f"controller {cs.url}, redis {rs.url} (AOF everysec), 2AP-2STA document, frame 40/45 ms")
        framed = apply_to_ack(cs.url, token, rs.url, "bench", versions, args.applies, frame_wait=True)
        print(summary("apply->active, swap at the next frame boundary", framed))
        immediate = apply_to_ack(cs.url, token, rs.url, "bench", versions, args.applies, frame_wait=False)
        print(summary("apply->active, acknowledger acks at once (controller+Redis path)", immediate))

        for path in ("/api/v1/appliances/bench", f"/api/v1/versions/{versions[0]}"):
            lat, errors = asyncio.run(open_loop(cs.url, token, path, args.rate, args.duration))
            print(summary(f"GET {path} at {args.rate:.0f} req/s for {args.duration:.0f} s (open loop)", lat)
                  + f" errors={errors}")
        print(wrk(cs.url, token, "/api/v1/appliances/bench", args.wrk_seconds))
        print(json.dumps({"apply_ack_frame_p50_ms": round(pct(framed, 50), 2),
                          "apply_ack_frame_p99_ms": round(pct(framed, 99), 2),
                          "apply_ack_immediate_p50_ms": round(pct(immediate, 50), 2),
                          "apply_ack_immediate_p99_ms": round(pct(immediate, 99), 2)}))
    finally:
        if cs:
            cs.stop()
        rs.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
