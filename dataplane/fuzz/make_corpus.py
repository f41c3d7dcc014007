"""Writes the seed corpus of malformed (and a few well-formed) frames for
fuzz_enqueue.c into corpus/: one file per frame, named after what is wrong
with it. Byte 0 of each file is the fuzz target's port/clock byte.
Addresses are those of configs/lab-2ap-2sta.yaml (198.18.0.0/15).
Run: python3 make_corpus.py corpus
"""
from __future__ import annotations

import struct
import sys
from pathlib import Path

STA1 = bytes.fromhex("02ad00000101")
SRV = bytes.fromhex("02ad00000001")
BCAST = b"\xff" * 6
IP_SRV = bytes([198, 18, 0, 1])
IP_STA1 = bytes([198, 18, 0, 11])


def eth(dst: bytes, src: bytes, etype: int) -> bytes:
    return dst + src + struct.pack("!H", etype)


def ipv4(payload: bytes, proto: int = 6, ihl: int = 5, total: int | None = None, tos: int = 0,
         frag: int = 0x4000) -> bytes:
    tl = total if total is not None else 4 * ihl + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, tl, 1, frag, 64, proto, 0, IP_SRV, IP_STA1)
    return h + b"\x00" * (4 * ihl - 20 if ihl > 5 else 0) + payload


def tcp(flags: int = 0x18, off: int = 5, opts: bytes = b"", payload: bytes = b"x" * 100) -> bytes:
    return struct.pack("!HHIIBBHHH", 5201, 40000, 1000, 1, off << 4, flags, 65535, 0, 0) + opts + payload


def udp(sport: int, dport: int, length: int | None = None, payload: bytes = b"v" * 20) -> bytes:
    return struct.pack("!HHHH", sport, dport, length if length is not None else 8 + len(payload), 0) + payload


def frames() -> dict[str, tuple[int, bytes]]:
    down = eth(STA1, SRV, 0x0800)
    f: dict[str, tuple[int, bytes]] = {
        "ok_tcp_data_downlink": (0, down + ipv4(tcp())),
        "ok_tcp_ack_uplink": (1, eth(SRV, STA1, 0x0800) + ipv4(tcp(0x10, payload=b""))),
        "ok_voice_udp_rt_port": (0, down + ipv4(udp(5004, 5004), proto=17)),
        "ok_dscp_ef_udp": (0, down + ipv4(udp(1000, 2000), proto=17, tos=46 << 2)),
        "ok_arp_broadcast": (0, eth(BCAST, SRV, 0x0806) + struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1)
                             + SRV + IP_SRV + b"\x00" * 6 + IP_STA1),
        "ok_dhcp_discover": (2, eth(BCAST, STA1, 0x0800) + ipv4(udp(68, 67, payload=b"\x01" * 240), proto=17)),
        "empty": (0, b""),
        "truncated_ethernet": (0, STA1 + SRV[:3]),
        "truncated_vlan_tag": (0, eth(STA1, SRV, 0x8100) + b"\x00"),
        "vlan_stack_of_nine": (0, STA1 + SRV + b"\x81\x00\x00\x01" * 9 + b"\x08\x00" + ipv4(tcp())),
        "qinq_ok": (0, STA1 + SRV + b"\x88\xa8\x00\x64\x81\x00\x00\x0a\x08\x00" + ipv4(tcp())),
        "ipv4_truncated_header": (0, down + ipv4(tcp())[:12]),
        "ipv4_ihl_below_5": (0, down + ipv4(tcp(), ihl=4)),
        "ipv4_ihl_beyond_frame": (0, down + ipv4(b"", ihl=15)[:40]),
        "ipv4_total_length_beyond_frame": (0, down + ipv4(tcp(), total=9000)),
        "ipv4_total_length_below_header": (0, down + ipv4(tcp(), total=10)),
        "ipv4_version_6_in_v4_ethertype": (0, down + b"\x65" + ipv4(tcp())[1:]),
        "ipv4_fragment_tail": (0, down + ipv4(tcp(), frag=0x0010)),
        "ipv4_first_fragment_more": (0, down + ipv4(tcp(), frag=0x2000)),
        "tcp_truncated_header": (0, down + ipv4(tcp()[:10])),
        "tcp_data_offset_below_5": (0, down + ipv4(tcp(off=3))),
        "tcp_data_offset_beyond_packet": (0, down + ipv4(tcp(off=15, payload=b""))),
        "tcp_sack_option_truncated": (1, eth(SRV, STA1, 0x0800) + ipv4(tcp(0x10, off=7, opts=b"\x01\x01\x05\x0a"
                                                                          + b"\x00" * 4, payload=b""))),
        "tcp_sack_option_len_zero": (1, eth(SRV, STA1, 0x0800) + ipv4(tcp(0x10, off=6, opts=b"\x05\x00\x00\x00",
                                                                          payload=b""))),
        "tcp_sack_four_blocks": (1, eth(SRV, STA1, 0x0800) + ipv4(tcp(0x10, off=15, opts=b"\x01\x01\x05\x22"
                                                                      + b"\x00\x00\x10\x00\x00\x00\x20\x00" * 4
                                                                      + b"\x00" * 4, payload=b""))),
        "udp_length_mismatch": (0, down + ipv4(udp(1, 2, length=4000), proto=17)),
        "udp_truncated": (0, down + ipv4(udp(1, 2)[:5], proto=17)),
        "ipv6_truncated": (0, eth(STA1, SRV, 0x86DD) + b"\x60" + b"\x00" * 20),
        "ipv6_hop_by_hop_loop": (0, eth(STA1, SRV, 0x86DD) + struct.pack("!IHBB", 0x60000000, 64, 0, 64)
                                 + b"\x20\x01" + b"\x00" * 14 + b"\x20\x01" + b"\x00" * 14
                                 + (b"\x00\x00" + b"\x00" * 6) * 12),
        "ipv6_ext_len_beyond": (0, eth(STA1, SRV, 0x86DD) + struct.pack("!IHBB", 0x60000000, 16, 43, 64)
                                + b"\x00" * 32 + b"\x06\xff" + b"\x00" * 14),
        "arp_truncated": (0, eth(BCAST, SRV, 0x0806) + b"\x00\x01\x08"),
        "unknown_ethertype": (0, eth(STA1, SRV, 0x88B5) + b"\x00" * 50),
        "jumbo_tcp_9000": (0, down + ipv4(tcp(payload=b"j" * 8946))),
        "multicast_dst_tcp": (0, eth(bytes.fromhex("01005e000001"), SRV, 0x0800) + ipv4(tcp())),
        "uplink_port_data_from_unknown_sta": (2, eth(SRV, bytes.fromhex("02ad0000ffff"), 0x0800) + ipv4(tcp())),
    }
    return f


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "corpus")
    out.mkdir(parents=True, exist_ok=True)
    for name, (port_clock, frame) in frames().items():
        (out / name).write_bytes(bytes([port_clock]) + frame)
    print(f"{len(frames())} frames in {out}")


if __name__ == "__main__":
    main()
