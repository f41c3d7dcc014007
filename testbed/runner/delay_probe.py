"""One-way delay from the appliance to a STA, measured with UDP probes.

A probe sender in the server namespace sends small numbered UDP datagrams to
the STA (they share the pair's queue in the appliance and at the AP, like the
bulk flow). tcpdump captures them twice with kernel receive timestamps
(CLOCK_REALTIME, the same clock in every namespace of the host): on the AP
port of the emulator's namespace, where they leave the appliance and enter
the AP, and on the STA's interface. The difference per probe is the delay
appliance -> STA (AP queueing + air); send time -> STA is reported too.

    python -m runner.delay_probe send DST_IP PORT RATE_PPS DURATION_S
"""
from __future__ import annotations

import socket
import struct
import sys
import time
from pathlib import Path

PROBE_PORT = 9911
HEADER = struct.Struct("!IQ")  # sequence number, send time (ns, CLOCK_REALTIME)
PAYLOAD_BYTES = 64


def send(dst_ip: str, port: int, rate_pps: float, duration_s: float) -> int:
    """Sends probes at a fixed spacing for duration_s (bounded); returns how many."""
    if not 0 < rate_pps <= 10000 or not 0 < duration_s <= 3600:
        raise ValueError(f"rate {rate_pps} pps / duration {duration_s} s out of range")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    gap = 1.0 / rate_pps
    t0 = time.monotonic()
    n = 0
    while True:
        due = t0 + n * gap
        if due - t0 >= duration_s:
            break
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        s.sendto(HEADER.pack(n, time.time_ns()).ljust(PAYLOAD_BYTES, b"\0"), (dst_ip, port))
        n += 1
    s.close()
    return n


def read_pcap(path: Path, port: int) -> dict[int, tuple[int, int]]:
    """seq -> (capture time ns, send time ns) of the probes (IPv4/UDP to `port`) in a
    pcap written by `tcpdump --time-stamp-precision=nano` (Ethernet link type)."""
    out: dict[int, tuple[int, int]] = {}
    try:
        data = path.read_bytes()
    except OSError:
        return out
    if len(data) < 24:
        return out
    magic = struct.unpack("<I", data[:4])[0]
    if magic == 0xA1B23C4D:
        endian, nano = "<", True
    elif magic == 0xA1B2C3D4:
        endian, nano = "<", False
    elif magic == 0x4D3CB2A1:
        endian, nano = ">", True
    else:
        endian, nano = ">", False
    rec = struct.Struct(endian + "IIII")
    off = 24
    while off + rec.size <= len(data):
        sec, frac, incl, _ = rec.unpack_from(data, off)
        off += rec.size
        pkt = data[off:off + incl]
        off += incl
        if len(pkt) < 14 + 20 + 8 + HEADER.size or pkt[12:14] != b"\x08\x00":
            continue
        ihl = (pkt[14] & 0x0F) * 4
        if pkt[23] != 17:
            continue
        udp = 14 + ihl
        if struct.unpack("!H", pkt[udp + 2:udp + 4])[0] != port:
            continue
        seq, sent = HEADER.unpack_from(pkt, udp + 8)
        ts = sec * 1_000_000_000 + (frac if nano else frac * 1000)
        out.setdefault(seq, (ts, sent))
    return out


def delays(at_ap: dict[int, tuple[int, int]], at_sta: dict[int, tuple[int, int]]) -> dict[str, object]:
    """Per probe seen at both points: (send time s, ms appliance->STA, ms sender->STA)."""
    rows = []
    for seq, (t_sta, sent) in sorted(at_sta.items()):
        if seq in at_ap:
            rows.append((sent / 1e9, (t_sta - at_ap[seq][0]) / 1e6, (t_sta - sent) / 1e6))
    return {"probes_at_ap": len(at_ap), "probes_at_sta": len(at_sta), "rows": rows}


def main(argv: list[str]) -> int:
    if len(argv) != 5 or argv[0] != "send":
        print(__doc__, file=sys.stderr)
        return 2
    n = send(argv[1], int(argv[2]), float(argv[3]), float(argv[4]))
    print(f"sent {n} probes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
