"""A reference acknowledger: the dataplane's side of controller/REDIS.md, in Python.

It does what the contract asks of the dataplane, so the controller can be
tested and its apply->active latency measured before and besides the C
dataplane: read `desired` at start, follow the config channel, fetch the
version's document, validate it against the committed JSON Schema, swap it in
at the next frame boundary of its own frame clock (frame = sum of the slice
durations), then set `active` and publish the ack; refuse an invalid document
by setting `rejected` and keep running the current one. It writes the 200 ms
heartbeat and, if asked, one telemetry entry per frame and per pair.

The telemetry values are SYNTHETIC (no packets are scheduled here): they
exercise the stream format, REST/WebSocket/metrics plumbing, not the scheduler.

    python tests/reference_dataplane.py --redis-url redis://127.0.0.1:6390/0 --appliance lab
"""

from __future__ import annotations

import argparse
import json
import math
import os
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema
import redis

SCHEMA = Path(__file__).resolve().parents[2] / "configs" / "schema" / "adwiser-config.schema.json"
STREAM_MAXLEN = 20000


class ReferenceDataplane:
    def __init__(self, redis_url: str, appliance: str, telemetry: bool = True, frame_wait: bool = True,
                 refuse_versions: set[int] | None = None):
        self.r = redis.Redis.from_url(redis_url, decode_responses=True)
        self.aid = appliance
        self.telemetry = telemetry
        self.frame_wait = frame_wait
        self.refuse_versions = refuse_versions or set()  # test hook: behave as if these failed validation
        self.validator = jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))
        self.doc: dict[str, Any] | None = None
        self.version: int | None = None
        self.frame = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def key(self, what: str) -> str:
        return f"adwiser:appliance:{self.aid}:{what}"

    # ---------------------------------------------------------------- config
    def _fetch(self, n: int) -> dict[str, Any] | None:
        raw = self.r.hget(f"adwiser:version:{n}", "doc")
        error = None
        doc = None
        if raw is None:
            error = f"version {n} not found"
        else:
            doc = json.loads(raw)
            problems = sorted(self.validator.iter_errors(doc), key=lambda e: list(e.path))
            if problems:
                p = problems[0]
                error = f"{'.'.join(str(x) for x in p.path) or '(document)'}: {p.message}"
            elif doc.get("appliance_id") != self.aid:
                error = f"appliance_id: document is for {doc.get('appliance_id')!r}"
            elif n in self.refuse_versions:
                error = "refused by test hook"
        if error is not None:
            seq = self.r.get(self.key("apply_seq"))
            self.r.set(self.key("rejected"), json.dumps({"version": n, "error": error,
                                                         "apply_seq": int(seq) if seq is not None else 0}))
            return None
        return doc

    def _frame_ms(self) -> float:
        if not self.doc:
            return 20.0
        return float(sum(s["duration_ms"] for s in self.doc["slice_map"]["slices"]))

    def _activate(self, n: int, doc: dict[str, Any]) -> None:
        self.doc, self.version = doc, n
        pipe = self.r.pipeline()
        pipe.set(self.key("active"), n)
        pipe.publish(self.key("ack"), n)
        pipe.execute()

    # ---------------------------------------------------------------- loop
    def _heartbeat(self) -> None:
        self.r.set(self.key("heartbeat"), json.dumps({"ts_ns": time.time_ns(), "pid": os.getpid(),
                                                     "version": self.version, "backend": "reference"}), px=3000)

    def _emit(self) -> None:
        if not self.doc:
            return
        slices = self.doc["slice_map"]["slices"]
        pipe = self.r.pipeline(transaction=False)
        ts = time.time_ns()
        tputs = []
        for pair in (f"{s['ap']}/{s['id']}" for s in self.doc["topology"]["stas"]):
            s_ms = sum(s["duration_ms"] for s in slices if pair in s["pairs"])
            tput = 50.0 * s_ms / self._frame_ms()
            tputs.append(tput)
            pipe.xadd(self.key("tm:pair"), {
                "ts_ns": ts, "frame": self.frame, "pair": pair, "mode": "sliced", "s_ms": s_ms,
                "r_pkts": self.doc["policies"]["ts_abr_qd"]["r_init_pkts"], "v_ms": s_ms * 0.9,
                "released_pkts": 10, "released_bytes": 15000, "queue_pkts": 5, "limit_pkts": 64,
                "drops_tail": 0, "drops_other": 0, "tput_mbps": tput, "reassigned": 0,
            }, maxlen=STREAM_MAXLEN, approximate=True)
        pipe.xadd(self.key("tm:frame"), {
            "ts_ns": ts, "frame": self.frame, "version": self.version or 0, "frame_ms": self._frame_ms(),
            "utility": sum(math.log(t) for t in tputs if t > 0), "utility_bound": sum(math.log(60.0) for _ in tputs),
            "reassignments": 0,
            "slices": json.dumps([{"duration_ms": s["duration_ms"], "pairs": s["pairs"], "given_to": [], "given_by": []}
                                  for s in slices]),
        }, maxlen=STREAM_MAXLEN, approximate=True)
        pipe.execute()

    def run(self) -> None:
        pubsub = self.r.pubsub(ignore_subscribe_messages=True)
        pubsub.subscribe(self.key("config"))
        staged: tuple[int, dict[str, Any]] | None = None
        desired = self.r.get(self.key("desired"))  # a missed message is never fatal: read desired at start
        if desired is not None:
            doc = self._fetch(int(desired))
            if doc is not None:
                self._activate(int(desired), doc)
        next_boundary = time.monotonic() + self._frame_ms() / 1000
        last_hb = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if now - last_hb >= 0.2:
                self._heartbeat()
                last_hb = now
            msg = pubsub.get_message(timeout=max(0.0, min(next_boundary - time.monotonic(), 0.2)))
            if msg and msg["type"] == "message":
                n = int(msg["data"])
                doc = self._fetch(n)
                if doc is not None:
                    staged = (n, doc)
                    if not self.frame_wait:
                        self._activate(*staged)
                        staged = None
            if time.monotonic() >= next_boundary:  # frame boundary: swap, then account the frame
                if staged is not None:
                    self._activate(*staged)
                    staged = None
                if self.telemetry:
                    self._emit()
                self.frame += 1
                next_boundary += self._frame_ms() / 1000
                if next_boundary < time.monotonic():  # fell behind (loaded machine): realign, do not burst
                    next_boundary = time.monotonic() + self._frame_ms() / 1000
        pubsub.close()

    def start(self) -> ReferenceDataplane:
        self._thread = threading.Thread(target=self.run, name=f"refdp-{self.aid}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        self.r.delete(self.key("heartbeat"))
        self.r.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--redis-url", required=True)
    p.add_argument("--appliance", required=True)
    p.add_argument("--no-telemetry", dest="telemetry", action="store_false")
    p.add_argument("--immediate", dest="frame_wait", action="store_false", help="ack at once, no frame boundary wait")
    p.add_argument("--duration", type=float, default=0, help="stop after this many seconds (0 = until Ctrl-C)")
    args = p.parse_args()
    dp = ReferenceDataplane(args.redis_url, args.appliance, args.telemetry, args.frame_wait).start()
    try:
        deadline = time.monotonic() + args.duration if args.duration else math.inf
        while time.monotonic() < deadline:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        dp.stop()


if __name__ == "__main__":
    main()
