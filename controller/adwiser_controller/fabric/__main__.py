"""Command line of the fabric manager.

    python -m adwiser_controller.fabric run --config lab.yaml --uplink up0 --run-dir DIR [--redis unix:/path]
        build the bridge in the private OVS of DIR (testbed/ovs/ovs-start.sh) and run the watchdog
    python -m adwiser_controller.fabric flows --config lab.yaml --uplink up0 [--mode steered|bypass]
        print the flow table a mode would install (nothing is changed)
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable

from .. import configfile
from .flows import MODES, compile_flows
from .liveness import LivenessJudge
from .manager import FabricManager, ManagerOptions, log_event, redis_from_address
from .ovs import Ovs, OvsError
from .plan import PlanError, build_plan
from .links import LinkError
from .port_buffers import rcvbuf_shortfall

DEFAULT_BRIDGE = "adw0"


def _positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    """An argparse type: a number above 0 (0 healthy polls would steer back at every poll, a 0 ms poll spin)."""
    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"must be positive, got {text}")
        return value
    return parse


def _cmd_flows(args: argparse.Namespace) -> int:
    cfg = configfile.load(args.config)
    plan = build_plan(cfg, args.uplink, args.bridge)
    print("\n".join(compile_flows(cfg, plan, args.mode)))
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    cfg = configfile.load(args.config)
    stop = {"now": False}

    def _stop(signum: int, _frame: object) -> None:
        stop["now"] = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    judge = LivenessJudge(stale_ms=args.stale_ms, stall_ms=args.stall_ms, check_pid=not args.no_pid_check,
                          stale_ms_local=args.stale_ms_local)
    opts = ManagerOptions(poll_ms=args.poll_ms, healthy_polls=args.healthy_polls)
    mgr = FabricManager(Ovs(args.run_dir, args.bridge, args.datapath_type), cfg, args.uplink, redis_from_address(args.redis), judge, opts)
    shortfall = rcvbuf_shortfall() if args.datapath_type == "netdev" else None
    if shortfall:  # the ports are added next (setup), their sockets sized then
        log_event("warning", reason=shortfall)
    mgr.setup()
    log_event("running", bridge=args.bridge, appliance=cfg.appliance_id,
              dp_ports={link.role: link.dp_if for link in mgr.plan.dp_links()})
    mgr.run(lambda: stop["now"], deadline_s=args.duration_s)
    log_event("stopped", mode=mgr.mode)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m adwiser_controller.fabric", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--config", required=True, help="configuration document (YAML or JSON)")
        sp.add_argument("--uplink", required=True, help="uplink interface to bridge")
        sp.add_argument("--bridge", default=DEFAULT_BRIDGE, help=f"OVS bridge name (default {DEFAULT_BRIDGE})")

    fl = sub.add_parser("flows", help="print the flow table of a mode")
    common(fl)
    fl.add_argument("--mode", choices=MODES, default="steered")
    fl.set_defaults(fn=_cmd_flows)

    run = sub.add_parser("run", help="build the bridge and run the fail-open watchdog")
    common(run)
    run.add_argument("--run-dir", required=True, help="private OVS run directory (db.sock, <bridge>.mgmt)")
    run.add_argument("--datapath-type", choices=("netdev", "system"), default="netdev",
                     help="OVS datapath: netdev = userspace (default; no OVS kernel module needed), system = kernel")
    run.add_argument("--redis", default="127.0.0.1:6379", help="unix:/path, host:port or redis:// URL")
    run.add_argument("--poll-ms", type=_positive(float), default=100, help="watchdog period (default 100)")
    run.add_argument("--stale-ms", type=float, default=600,
                     help="heartbeat age that counts as dead without the pid check (default 600)")
    run.add_argument("--stale-ms-local", type=float, default=2000,
                     help="heartbeat age that counts as dead when the process and ports are checked too (default 2000)")
    run.add_argument("--stall-ms", type=float, default=600,
                     help="frames in and none out for this long counts as hung (default 600)")
    run.add_argument("--healthy-polls", type=_positive(int), default=3, help="healthy polls before steering back (default 3)")
    run.add_argument("--no-pid-check", action="store_true",
                     help="the dataplane runs in another pid namespace: do not look at /proc/<pid>")
    run.add_argument("--duration-s", type=float, default=None, help="stop by itself after this many seconds")
    run.set_defaults(fn=_cmd_run)

    args = p.parse_args(argv)
    try:
        return int(args.fn(args))
    except configfile.ConfigInvalid as exc:
        print(exc, file=sys.stderr)
        return 1
    except (PlanError, OvsError, LinkError, ValueError) as exc:
        print(f"fabric: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
