"""Receive buffers of the sockets Open vSwitch reads its ports through.

OVS's userspace datapath (datapath_type=netdev) reads each system port (a
kernel NIC or a veth, not a DPDK port) through an AF_PACKET socket and sets
no SO_RCVBUF on it: the socket gets net.core.rmem_default when the port is
added, and a network namespace has no value of its own. The dataplane hands a
pair's whole slice batch to its AP port at once (004 §5: the batch is released
at the slice start), and the kernel's default of 208 KiB holds about 90
full-size frames (2.3 KB of truesize each), so the rest of a larger batch is
dropped at the socket. TCP then loses a segment whenever its window passes
that and the window never grows past it. Measured with `make demo FABRIC=ovs`
and the default (2026-11-26): one retransmission every 1.5 s per flow, the
window between 65 and 95 segments, 31-35 Mbit/s per pair.

PORT_RCVBUF_BYTES is the appliance's value. ansible's common role writes it
(common_sysctl); a controller test keeps the two equal.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

RMEM_DEFAULT = Path("/proc/sys/net/core/rmem_default")
PORT_RCVBUF_BYTES = 4 * 1024 * 1024  # bytes: a few thousand full-size frames, several slice batches


def rcvbuf_shortfall(path: Path = RMEM_DEFAULT) -> str | None:
    """Why ports added now would drop slice batches, naming the setting; None when their buffers suffice."""
    try:
        have = int(path.read_text())
    except (OSError, ValueError) as exc:
        return f"cannot read {path}: {exc}"
    if have >= PORT_RCVBUF_BYTES:
        return None
    return (f"net.core.rmem_default is {have} bytes: OVS reads each port through a socket of that size and drops "
            f"the part of a slice batch past it; the appliance needs {PORT_RCVBUF_BYTES} (ansible common_sysctl)")


@contextmanager
def raised_rmem_default(path: Path = RMEM_DEFAULT) -> Iterator[None]:
    """The appliance's net.core.rmem_default while OVS opens its ports on a host that is not set up as one
    (the testbed), the host's value back afterwards: a socket keeps the size it was created with."""
    before = int(path.read_text())
    if before >= PORT_RCVBUF_BYTES:
        yield
        return
    path.write_text(str(PORT_RCVBUF_BYTES))
    try:
        yield
    finally:
        path.write_text(str(before))
