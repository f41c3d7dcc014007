"""Starting the appliance's dataplane (adwiser-dp, dataplane/dp) in <P>appl.

The command is a template with {placeholders}; it comes from --backend-cmd /
$ADWISER_DP_CMD, else the defaults below for the scenario's backend. The
binary is $ADWISER_DP, default dataplane/build/adwiser-dp; if it is missing
the scenario is skipped with a message saying so (BackendUnavailable).

Placeholders: {dp} binary, {prefix} testbed prefix, {config} JSON config (the lab config with the
scenario's slice length), {telemetry} JSON-lines telemetry, {stats} JSON
counters at exit, {pidfile}, {queue} NFQUEUE number, {run_dir}.
"""
from __future__ import annotations

import json
import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from . import processes, topology
from .jsonl import drain_means_ms, json_records
from .scenarios import Scenario
from .shell import ns_run

REPO = Path(__file__).resolve().parents[2]
LAB_CONFIG = REPO / "configs" / "lab-2ap-2sta.yaml"
# The ACK-burst classifier's coefficients adwiser-dp loads (--ack-model: agg_est, acked_segs), as ansible installs them
ACK_MODEL = REPO / "configs" / "ack_burst_model.json"
DEFAULT_DP = REPO / "dataplane" / "build" / "adwiser-dp"
NFQUEUE_NUM = 0

# DPDK over the testbed's veths with net_af_packet, no hugepages (SPEC §7);
# --file-prefix keeps concurrent DPDK processes from sharing runtime files
# (--in-memory is refused together with --no-huge).
DPDK_TEMPLATE = ("{dp} --no-huge --file-prefix adw-{prefix} -m 1024 --no-pci -l 0 "
                 "--vdev=net_af_packet0,iface=up0 --vdev=net_af_packet1,iface=ap1 "
                 "--vdev=net_af_packet2,iface=ap2 -- --config {config} --uplink up0 "
                 "--telemetry {telemetry} --stats {stats} --pid-file {pidfile}")
NFQUEUE_TEMPLATE = ("{dp} --backend nfqueue --config {config} --uplink up0 --queue-num {queue} "
                    "--telemetry {telemetry} --stats {stats} --pid-file {pidfile}")


class BackendUnavailable(RuntimeError):
    """The dataplane binary is not built: the scenario cannot run here."""


@dataclass
class Backend:
    proc: processes.ManagedProcess
    stats_path: Path
    telemetry_path: Path
    nfqueue_rule: list[str] | None  # iptables rule to delete on stop


def dp_binary() -> Path:
    return Path(os.environ.get("ADWISER_DP", str(DEFAULT_DP)))


def check_available(s: Scenario, backend_cmd: str | None) -> None:
    if s.backend == "none" or backend_cmd or os.environ.get("ADWISER_DP_CMD"):
        return
    if not os.access(dp_binary(), os.X_OK):
        raise BackendUnavailable(
            f"scenario {s.name} needs the {s.backend} dataplane, but {dp_binary()} is not built "
            f"(make -C dataplane build, or set ADWISER_DP / BACKEND_CMD)")


def write_config(s: Scenario, path: Path) -> Path:
    """The lab configuration with every slice set to the scenario's length
    (S1 = S2) and dynamic slicing (SPEC §3.3) on if the scenario asks for it."""
    cfg: dict[str, Any] = yaml.safe_load(LAB_CONFIG.read_text())
    for sl in cfg["slice_map"]["slices"]:
        sl["duration_ms"] = s.slice_ms
    cfg["policies"]["dynamic_slicing"]["enabled"] = s.dynamic_slicing
    path.write_text(json.dumps(cfg, indent=1) + "\n")
    return path


def start(tb: topology.Testbed, s: Scenario, backend_cmd: str | None = None) -> Backend:
    check_available(s, backend_cmd)
    run_dir = tb.run_dir
    config = write_config(s, run_dir / "adwiser-config.json")
    stats, telemetry = run_dir / "adwiser-dp.stats.json", run_dir / "adwiser-dp.telemetry.jsonl"
    template = backend_cmd or os.environ.get("ADWISER_DP_CMD") or (
        DPDK_TEMPLATE if s.backend == "dpdk" else NFQUEUE_TEMPLATE)
    argv = shlex.split(template.format(dp=dp_binary(), prefix=tb.prefix, config=config, telemetry=telemetry,
                                       stats=stats, pidfile=run_dir / "adwiser-dp.own.pid",
                                       queue=NFQUEUE_NUM, run_dir=run_dir))
    rule = None
    appl = tb.ns("appl")
    if s.backend == "nfqueue":
        # The appliance routes (topology "router" mode), so every forwarded
        # packet passes iptables FORWARD, where NFQUEUE hands it to the daemon;
        # --queue-bypass lets traffic flow while no daemon listens.
        rule = ["FORWARD", "-j", "NFQUEUE", "--queue-num", str(NFQUEUE_NUM), "--queue-bypass"]
        ns_run(appl, ["iptables", "-A", *rule])
    proc = None
    try:
        proc = processes.start(run_dir, "adwiser-dp", appl, argv)
        time.sleep(1.0)  # EAL start-up / queue bind
        if not proc.running():
            log = proc.log.read_text(errors="replace").splitlines()
            raise RuntimeError(f"adwiser-dp exited at start ({' '.join(argv)}):\n"
                               + "\n".join(ln for ln in log if not ln.startswith((" ", "\t")))[-3000:])
    except BaseException:
        # The caller has no Backend to stop until this returns: a failure or a
        # Ctrl-C/SIGTERM here is undone here (rule, process, DPDK runtime dir).
        if proc is not None:
            processes.stop(proc, grace_s=10.0)
        if rule:
            ns_run(appl, ["iptables", "-D", *rule], check=False)
        raise
    return Backend(proc, stats, telemetry, rule)


def stop(tb: topology.Testbed, b: Backend) -> dict[str, Any]:
    """Stops adwiser-dp by PID (SIGTERM: it releases held packets), removes the
    NFQUEUE rule, returns its exit statistics ({} if it wrote none)."""
    processes.stop(b.proc, grace_s=10.0)
    if b.nfqueue_rule:
        ns_run(tb.ns("appl"), ["iptables", "-D", *b.nfqueue_rule], check=False)
    try:
        return dict(json.loads(b.stats_path.read_text()))
    except (OSError, json.JSONDecodeError):
        return {}


def mean_drain_ms(telemetry: Path) -> dict[str, float]:
    """drain_means_ms over the dataplane's JSONL telemetry file; {} if it cannot be read."""
    try:
        return drain_means_ms(list(json_records(telemetry)))
    except OSError:
        return {}
