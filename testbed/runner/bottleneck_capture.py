"""Training and held-out data for the bottleneck classifier (issue 9; 001 §5).

001 §5.2.1 collects (aggregation of the last n frames, loss over the last p
packets) with the backhaul at 100 and at 1000 Mbit/s over a range of send
rates, and labels each sample by which link was the bottleneck. Here each run
is the `aggtarget` mode of runner/aggtarget.py (adwiser-dp paces ap1/sta1 at
the controller's aggregation-loop rates, TCP CUBIC server -> sta1 through
wlan-emu's 802.11ac air) with the wan-emu backhaul at one rate, or with no
backhaul (the bridge: the backhaul is not a limit). The rate that reaches the
appliance is then min(backhaul, pacer, WLAN), so the sweep over backhaul rates
is the sweep over the arrival ("send") rate of 001 Fig. 19(a).

What a run keeps is the loop's history (results/runs/bottleneck/<label>.json):
per 0.5 s step the classifier's inputs exactly as the controller computes them
(`agg_ratio` = mean of the last n = 5 aggregation samples / N_target of the
slot, `loss` = L^p over the last p = 100 packets), the pacing and carried
rates, and the run's wan-emu counters. Labels are set by
runner/bottleneck_train.py from the run's backhaul rate (see there).

Run as root, from testbed/, under `flock /tmp/adwiser-testbed.lock`:

    python -m runner.bottleneck_capture --backhauls none,40,60,80,100,120,250 --repeat 2 --duration 15
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

from . import aggtarget, aggtarget_figures, aggtarget_scenarios, signals, topology

OUT = Path(__file__).resolve().parents[1] / "results" / "runs" / "bottleneck"
RESULTS = Path(__file__).resolve().parents[1] / "results"
PREFIX = "adwbneck"


def _backhaul(tok: str) -> float | None:
    return None if tok.strip().lower() in ("none", "off", "0") else float(tok)


def _ceilings(t_bar_ms: float) -> dict[str, dict[str, Any]]:
    """Without a backhaul limit the loop runs with the AP's measured ceiling, as aggtarget-1sta does
    (N̄ = 48/64 of it); the committed straight CUBIC run of the same air is the measurement. Behind a
    limit no ceiling is measured (aggtarget_figures.scenario_ceilings), N̄ = n_target_max, as aggtarget-backhaul."""
    src = RESULTS / ("aggtarget-1sta.json" if t_bar_ms >= 5.0 else "aggtarget-1sta-lowdelay.json")
    try:
        cubic = json.loads(src.read_text())["runs"]["cubic"]
    except (OSError, KeyError, json.JSONDecodeError):
        return {}
    return aggtarget_figures.ap_ceilings(cubic)


def classifier_in_use() -> dict[str, Any]:
    """The coefficient file the aggregation-loop will load (controller aggregation/bottleneck.py's default):
    its verdicts hold the pair's rate, so they shape the data, and the runs record which one ran."""
    path = aggtarget.REPO / "configs" / "bottleneck_model.json"
    try:
        raw = path.read_bytes()
        return {"version": json.loads(raw).get("version"), "sha256_12": hashlib.sha256(raw).hexdigest()[:12]}
    except (OSError, json.JSONDecodeError, AttributeError):
        return {"version": None, "sha256_12": None}


def capture(label: str, backhaul_mbit: float | None, t_bar_ms: float, duration_s: float,
            lab: aggtarget.Lab) -> dict[str, Any]:
    sc = aggtarget_scenarios.AggScenario(f"bottleneck-{label}", (("ap1", "sta1"),), t_bar_ms=t_bar_ms,
                               backhaul_mbit=backhaul_mbit)
    out = OUT / label
    out.mkdir(parents=True, exist_ok=True)
    ceilings = {} if backhaul_mbit is not None else _ceilings(t_bar_ms)
    classifier = classifier_in_use()
    res = aggtarget.one_run(sc, "aggtarget", duration_s, lab, out, ceilings)
    (out / "groundtruth.jsonl").unlink(missing_ok=True)  # 100s of MB; the loop history is what is kept
    pair = res["pairs"][0]
    doc = {"label": label, "backhaul_mbit": backhaul_mbit, "t_bar_ms": t_bar_ms, "duration_s": duration_s,
           "started_unix": res["started_unix"], "classifier": classifier, "throughput_mbps": pair["throughput_mbps"],
           "mean_ampdu": pair["mean_ampdu"], "mean_phy_mbps": pair["mean_phy_mbps"],
           "n_bar": res.get("n_bar"), "backhaul": res.get("backhaul"), "loop": pair.get("loop") or [],
           "cleanup_errors": res.get("cleanup_errors")}
    (OUT / f"{label}.json").write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def main(argv: list[str]) -> int:
    signals.exit_on_signals()  # SIGINT, SIGTERM: every `finally` stops what it started, and is not cut short
    ap = argparse.ArgumentParser(prog="runner.bottleneck_capture", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backhauls", default="none,40,60,80,100,120,250",
                    help="wan-emu rates in Mbit/s, 'none' = no backhaul limit (bridge)")
    ap.add_argument("--t-bar-ms", type=float, default=5.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--first-rep", type=int, default=0, help="number of the first repetition (run labels)")
    ap.add_argument("--duration", type=float, default=15.0)
    args = ap.parse_args(argv)
    if not 0 < args.duration <= 120:
        ap.error(f"--duration {args.duration}: expected 0 < duration <= 120 s")
    rates = [_backhaul(t) for t in args.backhauls.split(",") if t.strip()]
    OUT.mkdir(parents=True, exist_ok=True)
    lab = aggtarget._PairLab(topology.Testbed(PREFIX))
    try:
        for rep in range(args.first_rep, args.first_rep + args.repeat):
            for bh in rates:
                label = f"{'none' if bh is None else f'{bh:g}'}-tbar{args.t_bar_ms:g}-r{rep}"
                t0 = time.time()
                doc = capture(label, bh, args.t_bar_ms, args.duration, lab)
                steps = [h for h in doc["loop"] if h.get("agg_ratio") is not None]
                print(f"{label}: {doc['throughput_mbps']:.1f} Mbit/s, A-MPDU {doc['mean_ampdu']}, "
                      f"{len(steps)} classified steps, {time.time() - t0:.0f} s", flush=True)
    finally:
        with signals.stopping():
            lab.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
