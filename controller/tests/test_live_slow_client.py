"""A live-feed client that stops reading: the controller must not hold its connection (and the batch it
was sending) for good. Its send is bounded (api/live.py, SEND_TIMEOUT_S); the close frame cannot reach a
client that reads nothing, so the websockets protocol aborts the connection after its close timeouts."""

from __future__ import annotations

import base64
import os
import socket
import time

from adwiser_controller import keys
from adwiser_controller.api.live import SEND_TIMEOUT_S

CLOSE_TIMEOUTS_S = 4 * 10.0  # the websockets server's close path: at most 4 × its 10 s close_timeout


def _server_side_state(server_port: int, client_port: int) -> str | None:
    """TCP state (hex, 01 = ESTABLISHED) of the controller's end of the connection, None once it is gone."""
    local, remote = f"0100007F:{server_port:04X}", f"0100007F:{client_port:04X}"
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            cols = line.split()
            if cols[1] == local and cols[2] == remote:
                return cols[3]
    return None


def test_a_live_client_that_never_reads_is_disconnected(controller, api, appliance, rdb):
    aid, _ = appliance
    token = api("viewer").post("/api/v1/auth/tokens", json={"name": "never-reads"}).json()["token"]
    port = int(controller.url.rsplit(":", 1)[1])
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # fills after a few frames
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /api/v1/telemetry/{aid}/live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n").encode())
    client_port = sock.getsockname()[1]
    try:
        # ~10 MB of telemetry, more than the kernel's socket buffers hold; then the client reads nothing.
        stream = keys.appliance(aid, "tm:pair")
        for n in range(0, 20000, 500):
            pipe = rdb.pipeline(transaction=False)
            for i in range(n, n + 500):
                pipe.xadd(stream, {"ts_ns": str(time.time_ns()), "frame": str(i), "pair": "ap1/sta1",
                                   "mode": "x" * 400}, maxlen=20000)
            pipe.execute()
            time.sleep(0.02)  # the feed reads as it goes: entries after its start only
        assert _server_side_state(port, client_port) == "01"
        deadline = time.monotonic() + SEND_TIMEOUT_S + CLOSE_TIMEOUTS_S + 15
        while _server_side_state(port, client_port) == "01" and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _server_side_state(port, client_port) != "01", "the controller still holds the connection"
    finally:
        sock.close()
