"""A minimal 802.1Q access/trunk switch for test_e2e_vlan_trunk.sh, because
this kernel has neither VLAN interfaces (8021q) nor VLAN-filtering bridges:
frames from the trunk interface tagged with VLAN v go out untagged on the
access interface of v; frames from an access interface go out on the trunk
tagged with its VLAN. The kernel hands received tags out of band
(PACKET_AUXDATA), so they are read from there as well as from the frame.
Test scaffolding only; stops by itself after --seconds.

usage: vlan_switch.py TRUNK_IF VID=ACCESS_IF... --seconds N
"""
from __future__ import annotations

import argparse
import select
import socket
import struct
import time

ETH_P_ALL = 0x0003
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4
AUXDATA = struct.Struct("IIIHHHH")  # tp_status, tp_len, tp_snaplen, tp_mac, tp_net, tp_vlan_tci, tp_vlan_tpid


def open_if(name: str) -> socket.socket:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
    s.bind((name, 0))
    s.setblocking(False)
    return s


def receive(s: socket.socket) -> tuple[bytes, int | None] | None:
    """One frame and its VLAN id (None if untagged); None for our own transmissions."""
    try:
        data, anc, _flags, addr = s.recvmsg(65600, socket.CMSG_SPACE(AUXDATA.size))
    except BlockingIOError:
        return None
    if addr[2] == socket.PACKET_OUTGOING:
        return None
    for level, kind, payload in anc:
        if level == SOL_PACKET and kind == PACKET_AUXDATA and len(payload) >= AUXDATA.size:
            status, _l, _s, _m, _n, tci, _tpid = AUXDATA.unpack_from(payload)
            if status & TP_STATUS_VLAN_VALID:
                return data, tci & 0xFFF
    if len(data) >= 18 and data[12:14] == b"\x81\x00":
        vid = struct.unpack("!H", data[14:16])[0] & 0xFFF
        return data[:12] + data[16:], vid
    return data, None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("trunk")
    ap.add_argument("access", nargs="+", help="VID=IFNAME")
    ap.add_argument("--seconds", type=float, default=60.0)
    a = ap.parse_args()
    trunk = open_if(a.trunk)
    by_vid: dict[int, socket.socket] = {}
    vid_of: dict[socket.socket, int] = {}
    for spec in a.access:
        vid_s, name = spec.split("=", 1)
        s = open_if(name)
        by_vid[int(vid_s)] = s
        vid_of[s] = int(vid_s)
    end = time.monotonic() + a.seconds
    socks = [trunk, *vid_of]
    while time.monotonic() < end:
        ready, _w, _x = select.select(socks, [], [], 0.2)
        for s in ready:
            while (got := receive(s)) is not None:
                frame, vid = got
                if s is trunk:
                    if vid in by_vid:
                        by_vid[vid].send(frame)
                elif vid is None:
                    tag = struct.pack("!HH", 0x8100, vid_of[s])
                    trunk.send(frame[:12] + tag + frame[12:])


if __name__ == "__main__":
    main()
