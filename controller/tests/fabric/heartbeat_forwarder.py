"""STAND-IN for the ADWISER dataplane in the fabric tests -- not the product.

The real dataplane (dataplane/build/adwiser-dp) queues and time-slices; this
stand-in only does what the fabric's fail-open needs from a dataplane: it
forwards frames between its uplink port and its AP ports (AF_PACKET; to the
AP of the destination STA, or to every AP port for an unknown destination)
and writes the heartbeat of controller/REDIS.md (`SET
adwiser:appliance:<id>:heartbeat {"ts_ns","pid","version","backend"} PX 3000`
every 200 ms from its own thread, reconnecting when Redis comes back, so a
Redis restart never stalls forwarding, as in adwiser-dp). The fault tests run with
it when adwiser-dp is not built, and with adwiser-dp too when it is.

SIGUSR1 wedges its forwarding loop (frames are left unread) while the
heartbeat thread goes on beating, and a second SIGUSR1 unwedges it: the
hung-but-beating dataplane that only the fabric's stall check can see.

    python heartbeat_forwarder.py --config lab.yaml --uplink dp-up --ap ap1=dp-ap1 --ap ap2=dp-ap2 \
        --redis unix:/path/redis.sock [--pid-file F] [--run-s 600]
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import redis
import yaml

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
HEARTBEAT_PERIOD_S = 0.2
HEARTBEAT_PX = 3000
BATCH = 64


def open_port(ifname: str) -> socket.socket:
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((ifname, 0))
    s.setblocking(False)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    return s


def beat_forever(client: redis.Redis, key: str) -> None:
    while True:
        try:
            client.set(key, json.dumps({"ts_ns": time.time_ns(), "pid": os.getpid(), "version": None,
                                        "backend": "test-stand-in"}), px=HEARTBEAT_PX)
        except redis.RedisError:
            pass  # Redis restarting: the next beat retries
        time.sleep(HEARTBEAT_PERIOD_S)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", required=True)
    ap.add_argument("--uplink", required=True)
    ap.add_argument("--ap", action="append", default=[], help="AP_ID=IFACE")
    ap.add_argument("--redis", required=True, help="unix:/path")
    ap.add_argument("--pid-file")
    ap.add_argument("--run-s", type=float, default=600, help="exit by itself after this long (bounded)")
    args = ap.parse_args()

    cfg = yaml.safe_load(Path(args.config).read_text())
    aid = cfg["appliance_id"]
    ap_ifs = dict(a.split("=", 1) for a in args.ap)
    sta_ap = {s["mac"].lower(): s["ap"] for s in cfg["topology"]["stas"]}

    up = open_port(args.uplink)
    ap_socks = {ap_id: open_port(ifname) for ap_id, ifname in ap_ifs.items()}
    by_fd = {up.fileno(): ("up", up), **{s.fileno(): (a, s) for a, s in ap_socks.items()}}
    mac_sock = {mac: ap_socks[a] for mac, a in sta_ap.items() if a in ap_socks}
    flood = list(ap_socks.values())

    client = redis.Redis(unix_socket_path=args.redis.removeprefix("unix:"), socket_timeout=0.2,
                         socket_connect_timeout=0.2)
    key = f"adwiser:appliance:{aid}:heartbeat"
    if args.pid_file:
        Path(args.pid_file).write_text(f"{os.getpid()}\n")

    threading.Thread(target=beat_forever, args=(client, key), daemon=True).start()
    wedged = threading.Event()
    signal.signal(signal.SIGUSR1, lambda *_: wedged.clear() if wedged.is_set() else wedged.set())
    end = time.monotonic() + args.run_s
    while time.monotonic() < end:
        if wedged.is_set():
            time.sleep(0.05)
            continue
        ready, _, _ = select.select(list(by_fd), [], [], 0.5)
        for fd in ready:
            role, sock = by_fd[fd]
            for _ in range(BATCH):
                try:
                    frame, addr = sock.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                try:
                    if role == "up":
                        dst = mac_sock.get(frame[:6].hex(":"))
                        for out in [dst] if dst is not None else flood:
                            out.send(frame)
                    else:
                        up.send(frame)
                except OSError:
                    pass  # a full veth queue drops, as a NIC would
    return 0


if __name__ == "__main__":
    sys.exit(main())
