"""Starting and stopping wan-emu (testbed/wan) in the `<P>wan` namespace.

With the WAN on, the namespace's bridge is removed and wan-emu forwards
between wan0 (server side) and wan1 (appliance side); stopping it puts the
bridge back, so the topology is as `up` left it.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import processes, topology

WAN_EMU = Path(__file__).resolve().parents[1] / "wan" / "wan-emu"
PAPER_DELAY_MS = 75.0   # 004 §6.1: 75 ms each way
PAPER_RATE_MBIT = 200.0  # 004 §6.1: 200 Mbit/s each way
# SCHED_FIFO priority: below wlan-emu's default 10 (the air's timing matters
# more), above the TCP endpoints that would otherwise delay departures by ms.
RT_PRIORITY = 5


@dataclass
class WanEmu:
    proc: processes.ManagedProcess
    stats_path: Path
    tb: topology.Testbed


def start(tb: topology.Testbed, delay_ms: float = PAPER_DELAY_MS,
          rate_mbit: float = PAPER_RATE_MBIT, rt_priority: int = RT_PRIORITY) -> WanEmu:
    if not WAN_EMU.exists():
        raise FileNotFoundError(f"{WAN_EMU} is not built: run `make -C testbed build`")
    topology.set_modes(tb, wan="emu")
    stats = tb.run_dir / "wan-emu.stats.json"
    stats.unlink(missing_ok=True)
    proc = processes.start(tb.run_dir, "wan-emu", tb.ns("wan"),
                           [str(WAN_EMU), "--if-a", "wan0", "--if-b", "wan1",
                            "--delay-ms", f"{delay_ms:g}", "--rate-mbit", f"{rate_mbit:g}",
                            "--rt-priority", str(rt_priority), "--stats", str(stats)])
    deadline = time.monotonic() + 5
    while "wan-emu:" not in proc.log_tail() and time.monotonic() < deadline:
        if not proc.running():
            topology.set_modes(tb, wan="bridge")
            raise RuntimeError(f"wan-emu exited at start: {proc.log_tail()}")
        time.sleep(0.02)
    return WanEmu(proc, stats, tb)


def stop(w: WanEmu) -> dict[str, Any]:
    """Stops wan-emu (SIGTERM), restores the bridge, returns its counters."""
    status = processes.stop(w.proc)
    topology.set_modes(w.tb, wan="bridge")
    if status != 0:
        raise RuntimeError(f"wan-emu exited with {status}: {w.proc.log_tail()}")
    return dict(json.loads(w.stats_path.read_text()))
