"""The WLAN between the appliance's AP ports and the STAs, in <P>wlan.

With testbed/emu/wlan-emu built, the namespace's bridges are removed and the
emulator forwards every frame at the time the air would deliver it, writing a
stats file (per-link mean A-MPDU size and PHY rate) and a ground-truth log
(one line per transmitted PPDU). Without it, wbr1/wbr2 bridge each AP port
straight to its STA and there is no air: the results then say so
("emulator": null) and carry no A-MPDU/PHY figures.

CPU placement. A frame the emulator writes into a veth is received by the
peer's network stack in a softirq that runs inside the emulator's sendto on
the same core: a delivered TCP ACK runs the server's TCP, which sends new
segments through the bridge back into the emulator, before the send returns,
and the next due frame waits (perf: 3/4 of the send cost; uplink ACK delivery
p99 275-490 µs against the 200 µs target, testbed/air/CALIBRATION.md). So the
emulator is pinned to one core and the receive processing of the interfaces
it writes into is steered to the others with RPS (rps_cpus): measured p99
64-81 µs on every link. On a single core nothing is changed.
"""
from __future__ import annotations

import json
import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import processes, topology

EMU_DIR = Path(__file__).resolve().parents[1] / "emu"
WLAN_EMU = EMU_DIR / "wlan-emu"
# --ap AP=IFACE and --sta STA=IFACE,mac=MAC,ap=AP bind the emulator's nodes to
# the interfaces of <P>wlan (named after the nodes, topology.py); see
# emu/README.md. $WLAN_EMU_CMD overrides the whole command ({emu} {stats} {log} {pidfile}).
DEFAULT_TEMPLATE = " ".join(
    ["{emu}", *(f"--ap {ap}={ap}" for ap in topology.APS),
     *(f"--sta {sta}={sta},mac={mac},ap={ap}" for sta, (_, mac, ap) in topology.STAS.items()),
     "--gt-log {log} --stats {stats} --pidfile {pidfile}"])


@dataclass
class WlanEmu:
    proc: processes.ManagedProcess
    stats_path: Path
    groundtruth_path: Path


def available() -> bool:
    return os.access(WLAN_EMU, os.X_OK)


def cpu_split() -> tuple[int, int] | None:
    """(the CPU wlan-emu runs on, the RPS mask of the others), or None with one CPU."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None
    # The last CPU: adwiser-dp's EAL runs on lcore 0 (backend.py).
    return cpus[-1], sum(1 << c for c in cpus[:-1])


def steer_receive_processing(tb: topology.Testbed, mask: int) -> None:
    """RPS: the stacks behind the interfaces wlan-emu writes into process on `mask`'s CPUs."""
    targets = [(tb.ns("appl"), ap) for ap in topology.APS] + [(tb.ns(sta), "eth0") for sta in topology.STAS]
    for ns, dev in targets:
        topology.ns_run(ns, ["sh", "-c", f"echo {mask:x} > /sys/class/net/{dev}/queues/rx-0/rps_cpus"])


def start(tb: topology.Testbed, out_dir: Path) -> WlanEmu | None:
    """Starts the emulator (None, bridges kept, if it is not built)."""
    if not available():
        topology.set_modes(tb, wlan="bridge")
        return None
    out_dir.mkdir(parents=True, exist_ok=True)
    stats, log = out_dir / "wlan-emu.stats.json", out_dir / "groundtruth.jsonl"
    for f in (stats, log):
        f.unlink(missing_ok=True)
    template = os.environ.get("WLAN_EMU_CMD", DEFAULT_TEMPLATE)
    argv = shlex.split(template.format(emu=WLAN_EMU, stats=stats, log=log,
                                       pidfile=tb.run_dir / "wlan-emu.own.pid"))
    split = cpu_split()
    if split is not None:
        steer_receive_processing(tb, split[1])
        argv = ["taskset", "-c", str(split[0]), *argv]
    topology.set_modes(tb, wlan="emu")
    proc = processes.start(tb.run_dir, "wlan-emu", tb.ns("wlan"), argv)
    time.sleep(0.5)
    if not proc.running():
        topology.set_modes(tb, wlan="bridge")
        raise RuntimeError(f"wlan-emu exited at start ({' '.join(argv)}):\n{proc.log_tail()}")
    return WlanEmu(proc, stats, log)


def stop(tb: topology.Testbed, w: WlanEmu | None) -> dict[str, Any]:
    """Stops the emulator by PID, restores the bridges, returns its stats ({} if none)."""
    if w is None:
        return {}
    processes.stop(w.proc, grace_s=10.0)
    topology.set_modes(tb, wlan="bridge")
    try:
        return dict(json.loads(w.stats_path.read_text()))
    except (OSError, json.JSONDecodeError):
        return {}


def link_figures(stats: dict[str, Any], ap: str, sta: str, direction: str) -> tuple[float | None, float | None]:
    """(mean A-MPDU size in MPDUs, mean PHY rate in Mbit/s) of the link that
    carries the data of pair ap/sta (AP->STA downlink, STA->AP uplink), from
    the emulator's stats {"links": [{"src","dst","mean_ampdu","mean_phy_mbps"}]}."""
    src, dst = (ap, sta) if direction == "downlink" else (sta, ap)
    for link in stats.get("links", []):
        if link.get("src") == src and link.get("dst") == dst:
            ampdu, phy = link.get("mean_ampdu"), link.get("mean_phy_mbps")
            return (float(ampdu) if ampdu is not None else None,
                    float(phy) if phy is not None else None)
    return None, None
