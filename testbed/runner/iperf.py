"""Bounded iperf3 transfers between namespaces.

The sender is always the iperf3 client and the receiver a one-shot server
(`-s -1`), so downlink (server -> STA) and uplink (STA -> server) differ only
in where each side runs. Every run is bounded by `-t` and a wall-clock
timeout, and its JSON report is kept.
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
    server = processes.start(run_dir, f"iperf3-srv-{t.label}", t.receiver_ns,
                             ["iperf3", "-s", "-1", "-B", t.receiver_ip, "-p", str(t.port)])
    _wait_listening(t.receiver_ns, t.receiver_ip, t.port)
    report = run_dir / f"iperf3-{t.label}.json"
    report.unlink(missing_ok=True)  # iperf3 --logfile appends
    client = processes.start(
        run_dir, f"iperf3-cli-{t.label}", t.sender_ns,
        ["iperf3", "-c", t.receiver_ip, "-p", str(t.port), "-t", f"{t.duration_s:g}", "-J",
         "-C", t.congestion, "-i", f"{t.interval_s:g}", "--logfile", str(report)])
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
    """Goodput measured at the receiver, Mbit/s."""
    return float(report["end"]["sum_received"]["bits_per_second"]) / 1e6


def interval_series(report: dict[str, Any]) -> list[tuple[float, float]]:
    """(interval end s, sender Mbit/s) per reporting interval."""
    return [(round(float(iv["sum"]["end"]), 3), round(float(iv["sum"]["bits_per_second"]) / 1e6, 3))
            for iv in report.get("intervals", [])]
