"""A timestamped UDP probe stream, to measure how long traffic is interrupted.

    send: python probe_stream.py send --dst 198.18.0.11 --port 9000 --rate 100 --count 800
    recv: python probe_stream.py recv --port 9000 --count 800 --timeout-s 12 --out probes.json

Each datagram carries its sequence number and send time (CLOCK_MONOTONIC,
ns, shared by all namespaces of the host). The receiver writes
{"received": [[seq, send_ns, recv_ns], ...]}; the largest gap between
consecutive arrivals is the interruption. Both ends stop by themselves
(bounded count and time).
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import sys
import time

FMT = "!IQ"


def send(dst: str, port: int, rate: float, count: int) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    period_ns = int(1e9 / rate)
    t0 = time.monotonic_ns()
    for seq in range(count):
        due = t0 + seq * period_ns
        delay = due - time.monotonic_ns()
        if delay > 0:
            time.sleep(delay / 1e9)
        try:
            s.sendto(struct.pack(FMT, seq, time.monotonic_ns()), (dst, port))
        except OSError:
            pass  # no route/neighbour during an outage is part of what is measured


def recv(port: int, count: int, timeout_s: float, out: str) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    s.settimeout(0.2)
    got: list[list[int]] = []
    end = time.monotonic() + timeout_s
    while len(got) < count and time.monotonic() < end:
        try:
            data = s.recv(64)
        except socket.timeout:
            continue
        seq, sent = struct.unpack(FMT, data[: struct.calcsize(FMT)])
        got.append([seq, sent, time.monotonic_ns()])
    with open(out, "w") as f:
        json.dump({"received": got}, f)


def main() -> int:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    ps = sub.add_parser("send")
    ps.add_argument("--dst", required=True)
    ps.add_argument("--port", type=int, required=True)
    ps.add_argument("--rate", type=float, default=100)
    ps.add_argument("--count", type=int, required=True)
    pr = sub.add_parser("recv")
    pr.add_argument("--port", type=int, required=True)
    pr.add_argument("--count", type=int, required=True)
    pr.add_argument("--timeout-s", type=float, required=True)
    pr.add_argument("--out", required=True)
    a = p.parse_args()
    if a.cmd == "send":
        send(a.dst, a.port, a.rate, a.count)
    else:
        recv(a.port, a.count, a.timeout_s, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
