"""Command line of the testbed runner: `python -m runner {list,run,report,demo}`."""
from __future__ import annotations

import argparse
import sys

from . import aggtarget, aggtarget_scenarios, backend, experiment, report, scenarios, signals, topology
from .shell import CommandError


def _cmd_list() -> int:
    for s in scenarios.REGISTRY.values():
        slc = f"{s.slice_ms:g} ms" if s.slice_ms else "-"
        print(f"{s.name:24s} {s.direction:8s} alone={str(s.alone):5s} slice={slc:7s} "
              f"wan={str(s.wan):5s} backend={s.backend}")
    return aggtarget.main([])


def _cmd_run(name: str, duration: float, backend_cmd: str | None, cc: str, repeats: int) -> int:
    if name in aggtarget_scenarios.SCENARIOS:  # issue 9: three modes (aggtarget, cubic, bbr) per run, see aggtarget.py
        return aggtarget.main([name, "--duration", f"{duration:g}", "--repeats", str(repeats)])
    s = scenarios.get(name)
    try:
        doc = experiment.run(s, duration, backend_cmd=backend_cmd, cc=cc, repeats=repeats)
    except backend.BackendUnavailable as e:
        print(f"SKIPPED {name}: {e}", file=sys.stderr)
        return 0
    print(report.summary_line(doc))
    return 0


def _cmd_demo(duration: float) -> int:
    tb = topology.Testbed(topology.default_prefix())
    try:
        topology.up(tb)
        docs = [experiment.run(scenarios.get(n), duration) for n in ("isolated", "together")]
    finally:
        with signals.stopping():
            topology.down(tb)
    print(report.markdown_table(docs, "downlink"))
    print("\n".join(report.calibration_lines({d["scenario"]: d for d in docs})))
    return 0


def _check_values(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuses (exit 2, naming the option) a value the run would refuse only later: `demo` brings the
    testbed up before its first run checks its duration, and the aggregation-target runs have their own
    limits and no use for a dataplane command."""
    if args.cmd not in ("run", "demo"):
        return
    agg = args.cmd == "run" and args.scenario in aggtarget_scenarios.SCENARIOS
    most_s = aggtarget.MAX_DURATION_S if agg else experiment.MAX_DURATION_S
    if not 0 < args.duration <= most_s:   # so written, a NaN fails it too
        ap.error(f"--duration {args.duration}: expected 0 < duration <= {most_s:g}")
    if args.cmd == "demo":
        return
    most_repeats = aggtarget.MAX_REPEATS if agg else experiment.MAX_REPEATS
    if not 1 <= args.repeats <= most_repeats:
        ap.error(f"--repeats {args.repeats}: expected 1..{most_repeats}")
    if agg and args.backend_cmd:
        ap.error(f"--backend-cmd: scenario {args.scenario} starts its own dataplane (runner/aggtarget.py)")


def main(argv: list[str] | None = None) -> int:
    signals.exit_on_signals()  # SIGINT, SIGTERM: every `finally` stops what it started, and is not cut short
    ap = argparse.ArgumentParser(prog="runner", description="ADWISER testbed experiments")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the scenarios")
    p_run = sub.add_parser("run", help="run one scenario -> results/<name>.json")
    p_run.add_argument("scenario")
    p_run.add_argument("--duration", type=float, default=20.0, help="seconds per transfer (default 20)")
    p_run.add_argument("--backend-cmd", default=None,
                       help="command template for the dataplane (see runner/backend.py)")
    p_run.add_argument("--cc", choices=topology.CONGESTION_CONTROLS, default="cubic")
    p_run.add_argument("--repeats", type=int, default=1,
                       help="run the transfers this many times; mean and 95%% CI (default 1)")
    sub.add_parser("report", help="write results/REPORT.md and plots")
    p_demo = sub.add_parser("demo", help="up, isolated + together, print the table, down")
    p_demo.add_argument("--duration", type=float, default=10.0)
    args = ap.parse_args(argv)
    _check_values(ap, args)
    try:
        if args.cmd == "list":
            return _cmd_list()
        if args.cmd == "run":
            return _cmd_run(args.scenario, args.duration, args.backend_cmd, args.cc, args.repeats)
        if args.cmd == "report":
            print(report.write_report())
            return 0
        return _cmd_demo(args.duration)
    except (KeyError, ValueError, RuntimeError, CommandError, FileNotFoundError) as e:
        print(f"runner: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
