"""A namespace's UDP counters (/proc/net/snmp, which is per network namespace).

`RcvbufErrors` counts datagrams the kernel dropped because the receiving
socket's buffer was full: in the testbed, datagrams the emulator delivered to
a STA that its iperf3 server did not read in time (the 2-core machine's CPU,
not the air or the appliance). A UDP run reports them per STA so that loss at
the receiver is not read as loss on the path.
"""
from __future__ import annotations

from .shell import ns_run


def parse_snmp_udp(text: str) -> dict[str, int]:
    """The `Udp:` header and value lines of /proc/net/snmp as {counter: value}."""
    rows = [line.split()[1:] for line in text.splitlines() if line.startswith("Udp:")]
    if len(rows) < 2 or len(rows[0]) != len(rows[1]):
        raise ValueError("/proc/net/snmp has no Udp header and value lines")
    return {name: int(value) for name, value in zip(rows[0], rows[1])}


def read(ns: str) -> dict[str, int]:
    return parse_snmp_udp(ns_run(ns, ["cat", "/proc/net/snmp"]).stdout)


def delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in ("InDatagrams", "RcvbufErrors", "InErrors") if k in after}
