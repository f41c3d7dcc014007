"""The page-load client of 004 §6.3, run at STA2: `python -m runner.http_load`.

It repeatedly downloads the page (the 10 objects of http_server.PAGE) over
a pool of persistent HTTP/1.1 connections (httpx; a browser's six per host by
default), all objects requested at once so the pool's connections fetch in
parallel; the page response time runs from the first request to the last
byte of the last object. Then it "thinks" for a time drawn uniformly from
[100, 500] ms and starts the next page. Pages are started until the run's
duration has passed; the page in flight then is finished (bounded by
--page-timeout) and counted. One JSON document is written at the end:

  {"pages": [{"start_unix": s, "response_ms": ms, "bytes": n, "think_ms": ms}, ...],
   "errors": [...], "connections": 6, "duration_s": d, "page_bytes": n}

Summary figures (mean, p95) are computed by `summarise`, in the runner.
"""
from __future__ import annotations

import asyncio
import math
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from . import endpoint_cli
from .http_server import PAGE, PAGE_BYTES

THINK_MS = (100.0, 500.0)  # 004 §6.3: "uniformly distributed between 100 and 500ms"
MAX_PAGE_TIMEOUT_S = 120.0   # a page in flight is given up on after --page-timeout (default 30 s)


async def _fetch(client: httpx.AsyncClient, url: str) -> int:
    n = 0
    async with client.stream("GET", url) as resp:
        resp.raise_for_status()
        async for chunk in resp.aiter_raw():
            n += len(chunk)
    return n


async def load_pages(base_url: str, duration_s: float, connections: int, seed: int,
                     page_timeout_s: float) -> dict[str, Any]:
    rng = random.Random(seed)
    urls = [f"{base_url}/{name}" for name, _ in PAGE]
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections,
                          keepalive_expiry=None)
    timeout = httpx.Timeout(page_timeout_s, pool=page_timeout_s)
    pages: list[dict[str, Any]] = []
    errors: list[str] = []
    deadline = time.monotonic() + duration_s
    async with httpx.AsyncClient(limits=limits, timeout=timeout, http1=True, http2=False,
                                 trust_env=False) as client:
        while time.monotonic() < deadline:
            start_unix, t0 = time.time(), time.perf_counter()
            try:
                sizes = await asyncio.wait_for(asyncio.gather(*(_fetch(client, u) for u in urls)),
                                               timeout=page_timeout_s)
            except (httpx.HTTPError, asyncio.TimeoutError) as e:
                errors.append(f"{start_unix:.3f}: {type(e).__name__}: {e}")
                if len(errors) > 20:
                    break
                continue
            response_ms = (time.perf_counter() - t0) * 1000.0
            think_ms = rng.uniform(*THINK_MS)
            pages.append({"start_unix": round(start_unix, 6), "response_ms": round(response_ms, 3),
                          "bytes": sum(sizes), "think_ms": round(think_ms, 3)})
            if time.monotonic() + think_ms / 1000.0 >= deadline:
                break
            await asyncio.sleep(think_ms / 1000.0)
    return {"pages": pages, "errors": errors, "connections": connections, "duration_s": duration_s,
            "page_bytes": PAGE_BYTES}


def _percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in [0, 100]) of a non-empty list."""
    v = sorted(values)
    return v[max(0, math.ceil(q / 100.0 * len(v)) - 1)]


def summarise(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The issue's "http" figures over the pages of every round: count, mean
    and 95th percentile of the page response time (ms); incomplete pages
    (wrong byte count) and client errors are counted, never averaged in."""
    pages = [p for d in docs for p in d.get("pages", [])]
    complete = [p for p in pages if p.get("bytes") == PAGE_BYTES]
    times = [float(p["response_ms"]) for p in complete]
    return {
        "pages": len(complete),
        "mean_response_ms": round(sum(times) / len(times), 1) if times else None,
        "p95_response_ms": round(_percentile(times, 95.0), 1) if times else None,
        # Context for the report.
        # the median proper: nearest-rank's 50th percentile is the lower middle of an even count
        "median_response_ms": round(statistics.median(times), 1) if times else None,
        "max_response_ms": round(max(times), 1) if times else None,
        "incomplete_pages": len(pages) - len(complete),
        "errors": sum(len(d.get("errors", [])) for d in docs),
        "connections": docs[0].get("connections") if docs else None,
        "page_bytes": PAGE_BYTES,
    }


def main(argv: list[str] | None = None) -> int:
    ap = endpoint_cli.parser("http_load", __doc__)
    ap.add_argument("--base-url", required=True, help="e.g. http://198.18.0.1:8080")
    ap.add_argument("--duration", type=float, required=True, help="start pages for this long (s)")
    ap.add_argument("--connections", type=int, default=6, help="parallel persistent connections (default 6)")
    ap.add_argument("--seed", type=int, default=1, help="think-time random seed")
    ap.add_argument("--page-timeout", type=float, default=30.0, help="give up on a page after this long (s)")
    ap.add_argument("--out", type=Path, required=True, help="JSON result file")
    args = ap.parse_args(argv)
    endpoint_cli.check_duration(ap, args.duration)
    if not 1 <= args.connections <= 64:
        ap.error(f"--connections {args.connections}: expected 1..64")
    # The page in flight at the end of --duration is finished: only --page-timeout bounds it (NaN fails too).
    if not 0 < args.page_timeout <= MAX_PAGE_TIMEOUT_S:
        ap.error(f"--page-timeout {args.page_timeout}: expected 0 < timeout <= {MAX_PAGE_TIMEOUT_S:g}")
    doc = asyncio.run(load_pages(args.base_url.rstrip("/"), args.duration, args.connections, args.seed,
                                 args.page_timeout))
    endpoint_cli.write_result(args.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
