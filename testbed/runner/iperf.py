"""Bounded iperf3 transfers between namespaces.

The sender is always the iperf3 client and the receiver a one-shot server
(`-s -1`), so downlink (server -> STA) and uplink (STA -> server) differ only
in where each side runs. Every run is bounded by `-t` and a wall-clock
timeout, and its JSON report is kept. A transfer is bulk TCP, or UDP at a
fixed offered rate (`udp_mbit`) like 000 §VII's iperf UDP downlink.
"""
from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import processes
from .shell import ns_argv


@dataclass
class Transfer:
    label: str             # e.g. "ap1-sta1"
    sender_ns: str         # namespace of the iperf3 client (sends the data)
    receiver_ns: str       # namespace of the iperf3 server
    receiver_ip: str       # address the server binds and the client connects to
    port: int              # TCP port of the server
    duration_s: float      # -t
    congestion: str = "cubic"
    interval_s: float = 0.5
    udp_mbit: float | None = None   # None: bulk TCP; else UDP offered at this rate (Mbit/s)
    udp_payload_bytes: int = 1448   # the TCP segments' payload (a 1476-byte IP packet; the segments' is 1500)
    # UDP socket buffer (-w), bytes, both ends: the receiver's must hold what arrives while its iperf3 waits
    # for a core. With the default (rmem_default, 208 KiB) the STA's kernel dropped 14.5 % of the datagrams
    # wlan-emu delivered in aggtarget-1sta-lowdelay-udp's paced run (RcvbufErrors, the run's sta_udp), where
    # the controller, Redis, adwiser-dp and the ground-truth feed share the 2 cores; a real STA has its own
    # CPU. 4 MiB is net.core.rmem_max here; the kernel doubles it for its bookkeeping.
    udp_socket_buffer_bytes: int = 4 * 1024 * 1024


def server_argv(t: Transfer) -> list[str]:
    """The one-shot iperf3 server; for UDP it reports in JSON at the client's interval, so that the
    client's --get-server-output carries the receiver's intervals (server_output_json)."""
    argv = ["iperf3", "-s", "-1", "-B", t.receiver_ip, "-p", str(t.port)]
    return argv if t.udp_mbit is None else argv + ["-J", "-i", f"{t.interval_s:g}"]


def client_argv(t: Transfer, report: Path) -> list[str]:
    """The iperf3 client's command line: TCP with the transfer's congestion control, or UDP at
    the offered rate in MTU-sized datagrams."""
    argv = ["iperf3", "-c", t.receiver_ip, "-p", str(t.port), "-t", f"{t.duration_s:g}", "-J",
            "-i", f"{t.interval_s:g}", "--logfile", str(report)]
    if t.udp_mbit is None:
        return argv + ["-C", t.congestion]
    if not t.udp_mbit > 0:
        raise ValueError(f"iperf3 {t.label}: UDP offered rate {t.udp_mbit!r} Mbit/s must be positive")
    # The client's intervals count what it sent; the receiver's (what got through) come back with
    # --get-server-output, for interval_series.
    return argv + ["-u", "-b", f"{t.udp_mbit:g}M", "-l", str(t.udp_payload_bytes),
                   "-w", str(t.udp_socket_buffer_bytes), "--get-server-output"]


@dataclass
class RunningTransfer:
    transfer: Transfer
    server: processes.ManagedProcess
    client: processes.ManagedProcess
    report_path: Path


def _wait_listening(ns: str, ip: str, port: int, timeout_s: float = 5.0) -> None:
    """Waits until the iperf3 server accepts connections (checked with `ss`)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        out = subprocess.run(ns_argv(ns, ["ss", "-Hltn", f"sport = :{port}"]),
                             capture_output=True, text=True, timeout=5).stdout
        if out.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"iperf3 server {ip}:{port} in {ns} did not start listening")


def start(run_dir: Path, t: Transfer) -> RunningTransfer:
    server = processes.start(run_dir, f"iperf3-srv-{t.label}", t.receiver_ns, server_argv(t))
    _wait_listening(t.receiver_ns, t.receiver_ip, t.port)
    report = run_dir / f"iperf3-{t.label}.json"
    report.unlink(missing_ok=True)  # iperf3 --logfile appends
    client = processes.start(run_dir, f"iperf3-cli-{t.label}", t.sender_ns, client_argv(t, report))
    return RunningTransfer(t, server, client, report)


def finish(rt: RunningTransfer, grace_s: float = 20.0) -> dict[str, Any]:
    """Waits for the client (bounded), stops both sides, returns the iperf3 JSON."""
    try:
        rt.client.popen.wait(timeout=rt.transfer.duration_s + grace_s)
    except subprocess.TimeoutExpired:
        pass
    processes.stop(rt.client)
    processes.stop(rt.server, grace_s=2.0)
    try:
        report: dict[str, Any] = json.loads(rt.report_path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise RuntimeError(f"iperf3 {rt.transfer.label}: no JSON report ({e}); "
                           f"client log: {rt.client.log_tail()}") from e
    if "error" in report:
        raise RuntimeError(f"iperf3 {rt.transfer.label}: {report['error']}")
    return report


def received_mbps(report: dict[str, Any]) -> float:
    """Goodput measured at the receiver, Mbit/s. A UDP report without the receiver's sum gives
    its sender sum less the datagrams the receiver counted lost."""
    end = report["end"]
    if "sum_received" in end:
        return float(end["sum_received"]["bits_per_second"]) / 1e6
    udp = end["sum"]
    return float(udp["bits_per_second"]) * (1.0 - float(udp["lost_percent"]) / 100.0) / 1e6


def interval_series(report: dict[str, Any]) -> list[tuple[float, float]]:
    """(interval end s, Mbit/s) per reporting interval: the receiver's when the report carries the
    server's output (UDP: what the sender offered is not what got through), else the sender's (TCP:
    what it sent is what its window let through)."""
    source = report.get("server_output_json") or report
    return [(round(float(iv["sum"]["end"]), 3), round(float(iv["sum"]["bits_per_second"]) / 1e6, 3))
            for iv in source.get("intervals", [])]
