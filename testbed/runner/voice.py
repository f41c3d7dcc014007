"""The packet "voice" of 004 §6.4: `python -m runner.voice`, one endpoint.

48-byte IPv4 packets (20 B IP + 8 B UDP + 20 B payload, the paper's size,
cf. 8 kbit/s G.729) every 20 ms in each direction, the two directions
alternating: the server sends at k*20 ms, STA2 at k*20 ms + 10 ms (--phase-ms).
Each endpoint sends its stream and receives the other's. DSCP EF (46) is set
on every packet: the emulator carries it on AC_VO and adwiser-dp classifies it
as real-time (released first at every slice start, SPEC §3.4).

The payload carries a sequence number and the send time (CLOCK_REALTIME ns);
all namespaces share the kernel's clock, so the receiver's kernel receive
timestamp (SO_TIMESTAMPNS) minus the send time is the one-way delay. Each
endpoint writes one JSON document:

  {"sent": n, "received": [[seq, send_ns, recv_ns], ...], "duplicates": d}

and `summarise` turns a sender's and the receiver's documents into the
issue's figures for that direction.
"""
from __future__ import annotations

import math
import select
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

from . import endpoint_cli

PAYLOAD = struct.Struct("!IQ8x")  # seq, send time ns, padding: 20 bytes of UDP payload
assert PAYLOAD.size == 20
INTERVAL_MS = 20.0
DSCP_EF = 46
MAX_LINGER_S = 60.0        # receiving after the last send
MAX_START_AHEAD_S = 60.0   # the runner starts the ends about a second ahead (mixed.VOICE_LEAD_S)
DELAY_THRESHOLD_MS = 20.0  # 004 Table 6: P(delay > 20 ms)
# Python's socket module does not name it; 35 on Linux (asm-generic/socket.h),
# whose ancillary message carries a struct timespec of the kernel's receive time.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def _socket(bind_ip: str, port: int, dscp: int) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, dscp << 2)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((bind_ip, port))
    s.setblocking(False)
    return s


def _drain(s: socket.socket, received: list[list[int]], seen: set[int]) -> int:
    """Reads every datagram waiting; returns the duplicates among them."""
    dups = 0
    while True:
        try:
            data, anc, _, _ = s.recvmsg(64, socket.CMSG_SPACE(16))
        except BlockingIOError:
            return dups
        recv_ns = time.time_ns()
        for level, kind, blob in anc:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(blob) >= 16:
                sec, nsec = struct.unpack("qq", blob[:16])
                recv_ns = sec * 1_000_000_000 + nsec
        if len(data) != PAYLOAD.size:
            continue
        seq, send_ns = PAYLOAD.unpack(data)
        if seq in seen:
            dups += 1
            continue
        seen.add(seq)
        received.append([seq, send_ns, recv_ns])


def run_endpoint(bind_ip: str, peer_ip: str, port: int, start_unix: float, duration_s: float,
                 phase_ms: float, linger_s: float, dscp: int = DSCP_EF) -> dict[str, Any]:
    """Sends one packet every INTERVAL_MS from start_unix + phase_ms for
    duration_s, receives the peer's, keeps receiving linger_s after its last send."""
    s = _socket(bind_ip, port, dscp)
    received: list[list[int]] = []
    seen: set[int] = set()
    dups = 0
    n_send = int(duration_s * 1000.0 / INTERVAL_MS)
    first = start_unix + phase_ms / 1000.0
    end = first + n_send * INTERVAL_MS / 1000.0 + linger_s
    sent = 0
    late_sends = 0
    try:
        while True:
            now = time.time()
            if sent < n_send and now >= first + sent * INTERVAL_MS / 1000.0:
                due = first + sent * INTERVAL_MS / 1000.0
                if now - due > INTERVAL_MS / 1000.0:
                    late_sends += 1  # the endpoint itself fell behind (CPU), reported
                s.sendto(PAYLOAD.pack(sent, time.time_ns()), (peer_ip, port))
                sent += 1
                continue
            if now >= end:
                break
            nxt = first + sent * INTERVAL_MS / 1000.0 if sent < n_send else end
            ready, _, _ = select.select([s], [], [], max(0.0, min(nxt, end) - now))
            if ready:
                dups += _drain(s, received, seen)
        dups += _drain(s, received, seen)
    finally:
        s.close()
    return {"sent": sent, "received": received, "duplicates": dups, "late_sends": late_sends}


def summarise(sender: dict[str, Any], receiver: dict[str, Any]) -> dict[str, Any]:
    """One direction's figures (004 Table 6): mean one-way delay, P(delay >
    20 ms), packets lost (sent but never received)."""
    sent = int(sender.get("sent", 0))
    delays = [(r[2] - r[1]) / 1e6 for r in receiver.get("received", []) if 0 <= r[0] < sent]
    n = len(delays)
    mean = sum(delays) / n if n else None
    sd = math.sqrt(sum((d - mean) ** 2 for d in delays) / (n - 1)) if mean is not None and n > 1 else None
    return {
        "mean_delay_ms": round(mean, 3) if mean is not None else None,
        "p_delay_gt_20ms": round(sum(d > DELAY_THRESHOLD_MS for d in delays) / n, 4) if n else None,
        "lost": sent - n,
        # Context for the report: the paper gives a 95 % CI of the mean.
        "sent": sent,
        "delay_ci95_ms": round(1.96 * sd / math.sqrt(n), 3) if sd is not None else None,
        "max_delay_ms": round(max(delays), 3) if delays else None,
        "late_sends": int(sender.get("late_sends", 0)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = endpoint_cli.parser("voice", __doc__)
    ap.add_argument("--bind", required=True, help="local address")
    ap.add_argument("--peer", required=True, help="the other endpoint's address")
    ap.add_argument("--port", type=int, default=5060, help="UDP port on both ends (default 5060)")
    ap.add_argument("--start-unix", type=float, required=True, help="common start time (Unix s)")
    ap.add_argument("--duration", type=float, default=25.0, help="seconds of sending (default 25)")
    ap.add_argument("--phase-ms", type=float, default=0.0, help="offset of this end's packets (ms)")
    ap.add_argument("--linger", type=float, default=1.0, help="keep receiving this long after (s)")
    ap.add_argument("--out", type=Path, required=True, help="JSON result file")
    args = ap.parse_args(argv)
    endpoint_cli.check_duration(ap, args.duration)
    if not 0 <= args.phase_ms < INTERVAL_MS:
        ap.error(f"--phase-ms {args.phase_ms}: expected 0 <= phase < {INTERVAL_MS:g}")
    # The endpoint runs until start + duration + linger: each is bounded (a NaN fails these checks too).
    if not 0 <= args.linger <= MAX_LINGER_S:
        ap.error(f"--linger {args.linger}: expected 0 <= linger <= {MAX_LINGER_S:g}")
    if not args.start_unix <= time.time() + MAX_START_AHEAD_S:
        ap.error(f"--start-unix {args.start_unix}: expected at most {MAX_START_AHEAD_S:g} s from now")
    doc = run_endpoint(args.bind, args.peer, args.port, args.start_unix, args.duration, args.phase_ms,
                       args.linger)
    endpoint_cli.write_result(args.out, doc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
