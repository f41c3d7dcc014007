"""Bounded UDP burst for the wlan-emu namespace test (stdlib only).

send <dst_ip> <port> <count> <per_burst> <gap_ms>: numbered 1400-byte datagrams,
    paced in bursts so the AP queue never overflows.
recv <port> <count> <timeout_s> <out.json> <ready>: receives until count
    datagrams or timeout, writes {"received": n, "in_order": bool, "duplicates": n}.
tcp-send <dst_ip> <port> <bytes> / tcp-recv <port> <out.json> <ready>: a bounded
    TCP transfer of a deterministic byte pattern, checked at the receiver.
Receivers create the file <ready> once their socket is bound, so the sender
starts only then.
"""
from __future__ import annotations

import hashlib
import json
import socket
import struct
import sys
import time

PAYLOAD = 1400


def pattern(n: int) -> bytes:
    block = bytes(range(256)) * 64
    out = bytearray()
    while len(out) < n:
        out += block
    return bytes(out[:n])


def send(dst: str, port: int, count: int, per_burst: int, gap_ms: float) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(count):
        s.sendto(struct.pack("!I", i) + bytes(PAYLOAD - 4), (dst, port))
        if (i + 1) % per_burst == 0:
            time.sleep(gap_ms / 1000.0)


def mark_ready(path: str) -> None:
    with open(path, "w") as f:
        f.write("ready\n")


def recv(port: int, count: int, timeout_s: float, out: str, ready: str) -> None:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("0.0.0.0", port))
    mark_ready(ready)
    s.settimeout(0.5)
    seen: list[int] = []
    deadline = time.monotonic() + timeout_s
    while len(seen) < count and time.monotonic() < deadline:
        try:
            data = s.recv(65536)
        except socket.timeout:
            continue
        seen.append(struct.unpack("!I", data[:4])[0])
    in_order = all(b > a for a, b in zip(seen, seen[1:]))
    json.dump({"received": len(seen), "in_order": in_order, "duplicates": len(seen) - len(set(seen))},
              open(out, "w"))


def tcp_send(dst: str, port: int, nbytes: int) -> None:
    data = pattern(nbytes)
    with socket.create_connection((dst, port), timeout=20) as c:
        c.sendall(data)


def tcp_recv(port: int, out: str, ready: str) -> None:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", port))
    srv.listen(1)
    mark_ready(ready)
    srv.settimeout(20)
    conn, _ = srv.accept()
    conn.settimeout(20)
    h, n = hashlib.sha256(), 0
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            break
        h.update(chunk)
        n += len(chunk)
    json.dump({"bytes": n, "sha256": h.hexdigest()}, open(out, "w"))


def main(argv: list[str]) -> None:
    cmd = argv[1]
    if cmd == "send":
        send(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), float(argv[6]))
    elif cmd == "recv":
        recv(int(argv[2]), int(argv[3]), float(argv[4]), argv[5], argv[6])
    elif cmd == "tcp-send":
        tcp_send(argv[2], int(argv[3]), int(argv[4]))
    elif cmd == "tcp-recv":
        tcp_recv(int(argv[2]), argv[3], argv[4])
    elif cmd == "pattern-sha":
        print(hashlib.sha256(pattern(int(argv[2]))).hexdigest())
    else:
        raise SystemExit(f"unknown command {cmd!r}")


if __name__ == "__main__":
    main(sys.argv)
