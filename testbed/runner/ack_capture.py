"""Captures for the ACK-burst estimator (issue 9; 001 §4.1): at a range of send
rates, one downlink TCP transfer server -> sta1 through the 802.11ac air
(air/lab-2ap-2sta-vht80.json), with the appliance as a plain bridge. Per rate:

  ap1.pcap          tcpdump on the appliance's AP-facing port ap1 (both
                    directions, headers only): the data frames towards the AP
                    and the STA's returning ACKs, with kernel receive times;
  groundtruth.jsonl wlan-emu's per-PPDU log (which MPDUs went in which A-MPDU);
  wlan-emu.stats.json, iperf3.json.

The send rate is set at the sender by TCP pacing (iperf3 --fq-rate, i.e.
SO_MAX_PACING_RATE), so the AP sees paced arrivals as in 000 §IV-A. Each rate
gets its own wlan-emu run, so ground-truth ids start afresh. Run it under
`flock /tmp/adwiser-testbed.lock` (the testbed is shared).

    python -m runner.ack_capture --rates 20,50,100,200,300 --duration 6

With --dataplane the appliance is adwiser-dp (DPDK over net_af_packet) instead
of a bridge, and it paces the pair (--pacing file, SPEC §3.7) at each rate
while the sender runs plain CUBIC; it also runs the shipped ACK-burst model
(--ack-model), so its own `agg_est` telemetry can be set against the ground
truth (results/runs/ack-burst-dp/<rate>/, adwiser-dp.telemetry.jsonl).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from . import backend as backend_mod
from . import iperf, processes, signals, topology, wlan
from .scenarios import Scenario

REPO = Path(__file__).resolve().parents[2]
VHT_AIR = REPO / "testbed" / "air" / "lab-2ap-2sta-vht80.json"
OUT = Path(__file__).resolve().parents[1] / "results" / "runs" / "ack-burst"
OUT_DP = Path(__file__).resolve().parents[1] / "results" / "runs" / "ack-burst-dp"
MODEL = backend_mod.ACK_MODEL
DP_SCENARIO = Scenario("ack-burst-dp", "downlink", slice_ms=20, backend="dpdk")
PREFIX = "adwackb"
PORT = 5401
SNAPLEN = 128  # Ethernet + IPv4 + TCP with options


def dp_figures(telemetry: Path, pair: str = "ap1/sta1") -> dict[str, object]:
    """adwiser-dp's own view of the pair: agg_est weighted by the bursts behind it, pacing, queue, drops."""
    bursts, weighted, paced, frames, queue, drops = 0, 0.0, set(), 0, [], 0
    for line in telemetry.read_text().splitlines():
        r = json.loads(line)
        if r.get("type") != "pair" or r.get("pair") != pair:
            continue
        frames += 1
        paced.add(r.get("pace_bps"))
        queue.append(r.get("queue_pkts", 0))
        drops = max(drops, int(r.get("drops_tail", 0)))
        if r.get("agg_est") is not None and r.get("agg_bursts"):
            bursts += int(r["agg_bursts"])
            weighted += float(r["agg_est"]) * int(r["agg_bursts"])
    return {"frames": frames, "agg_est_mean": round(weighted / bursts, 3) if bursts else None, "bursts": bursts,
            "pace_bps": sorted(p for p in paced if p is not None), "drops_tail": drops,
            "mean_queue_pkts": round(sum(queue) / len(queue), 2) if queue else None}


def capture_one(tb: topology.Testbed, rate_mbit: float, duration_s: float, out: Path,
                dataplane: bool = False) -> dict[str, object]:
    out.mkdir(parents=True, exist_ok=True)
    for f in out.iterdir():
        if f.is_file():
            f.unlink()
    sta_ip, sta_mac, _ = topology.STAS["sta1"]
    # The capture starts before the emulator, so it holds every frame the emulator numbers on ap1 -> sta1.
    dump = processes.start(tb.run_dir, "tcpdump-ap1", tb.ns("appl"),
                           ["tcpdump", "-i", "ap1", "-n", "-s", str(SNAPLEN), "-B", "32768",
                            "--time-stamp-precision=nano", "-w", str(out / "ap1.pcap"), f"ether host {sta_mac}"])
    # adwiser-dp sends with PACKET_QDISC_BYPASS (net_af_packet), which packet taps on its side do not see: the
    # data frames are then taken where the emulator receives them, the peer ap1 in <P>wlan.
    dump_w = processes.start(tb.run_dir, "tcpdump-wlan-ap1", tb.ns("wlan"),
                             ["tcpdump", "-i", "ap1", "-n", "-s", str(SNAPLEN), "-B", "32768", "-Q", "in",
                              "--time-stamp-precision=nano", "-w", str(out / "wlan-ap1.pcap"),
                              f"ether dst {sta_mac}"]) if dataplane else None
    time.sleep(1.0)
    emu: wlan.WlanEmu | None = None
    be: backend_mod.Backend | None = None
    t = iperf.Transfer("ackb", tb.ns("server"), tb.ns("sta1"), sta_ip, PORT, duration_s)
    pace = ["--fq-rate", f"{rate_mbit:g}M"]
    try:
        if dataplane:
            pacing = out / "pacing.json"
            pacing.write_text(json.dumps({"ap1/sta1": int(rate_mbit * 1e6)}) + "\n")
            be = backend_mod.start(tb, DP_SCENARIO, backend_mod.DPDK_TEMPLATE
                                   + f" --pacing {pacing} --ack-model {MODEL}")
            pace = []
        emu = wlan.start(tb, out)
        if emu is None:
            raise RuntimeError("testbed/emu/wlan-emu is not built (make -C testbed build)")
        server = processes.start(tb.run_dir, "iperf3-srv-ackb", t.receiver_ns,
                                 ["iperf3", "-s", "-1", "-B", sta_ip, "-p", str(PORT)])
        iperf._wait_listening(t.receiver_ns, sta_ip, PORT)
        report = out / "iperf3.json"
        client = processes.start(tb.run_dir, "iperf3-cli-ackb", t.sender_ns,
                                 ["iperf3", "-c", sta_ip, "-p", str(PORT), "-t", f"{duration_s:g}", "-J",
                                  "-C", "cubic", *pace, "--logfile", str(report)])
        rt = iperf.RunningTransfer(t, server, client, report)
        rep = iperf.finish(rt)
        time.sleep(0.5)
    finally:
        with signals.stopping():
            stats = wlan.stop(tb, emu)
            dp_stats = backend_mod.stop(tb, be) if be is not None else {}
            processes.stop(dump, grace_s=5.0)
            if dump_w is not None:
                processes.stop(dump_w, grace_s=5.0)
    (out / "wlan-emu.stats.json").write_text(json.dumps(stats, indent=1) + "\n")
    log = dump.log.read_text(errors="replace") + (dump_w.log.read_text(errors="replace") if dump_w else "")
    dropped = [ln for ln in log.splitlines() if "dropped by kernel" in ln]
    meta: dict[str, object] = {"rate_mbit": rate_mbit, "duration_s": duration_s,
                               "received_mbps": round(iperf.received_mbps(rep), 3), "tcpdump": dropped,
                               "paced_by": "adwiser-dp" if dataplane else "sender (iperf3 --fq-rate)"}
    if be is not None:
        be.telemetry_path.replace(out / "adwiser-dp.telemetry.jsonl")
        meta["dataplane"] = {**dp_figures(out / "adwiser-dp.telemetry.jsonl"),
                             "model": {k: v for k, v in json.loads(MODEL.read_text()).items()
                                       if k in ("version", "m", "intercept", "coef", "threshold", "n_max", "scale")},
                             "stats_drops_tail": (dp_stats.get("core") or {}).get("drops_tail")}
    (out / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return meta


def main(argv: list[str] | None = None) -> int:
    signals.exit_on_signals()  # SIGINT, SIGTERM: every `finally` stops what it started, and is not cut short
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rates", default="20,50,100,150,200,300,400", help="send rates, Mbit/s, comma-separated")
    ap.add_argument("--duration", type=float, default=6.0, help="seconds per rate (1..60)")
    ap.add_argument("--out", type=Path, default=None, help=f"default {OUT} ({OUT_DP} with --dataplane)")
    ap.add_argument("--dataplane", action="store_true", help="adwiser-dp paces the pair instead of the sender")
    ap.add_argument("--prefix", default=PREFIX, help=f"namespace prefix (default {PREFIX})")
    a = ap.parse_args(argv)
    rates = [float(r) for r in a.rates.split(",") if r.strip()]
    if not rates or any(not 1 <= r <= 2000 for r in rates) or not 1 <= a.duration <= 60:
        ap.error("rates must be 1..2000 Mbit/s and duration 1..60 s")
    if os.geteuid() != 0:
        print("ack_capture: needs root (network namespaces)", file=sys.stderr)
        return 2
    out = a.out or (OUT_DP if a.dataplane else OUT)
    if a.dataplane:
        backend_mod.check_available(DP_SCENARIO, None)
    tb = topology.Testbed(a.prefix)
    created = not topology.is_up(tb)   # also a half-up testbed, which `up` rebuilds
    os.environ["WLAN_EMU_CMD"] = wlan.DEFAULT_TEMPLATE + f" --air {VHT_AIR}"
    try:
        topology.up(tb, cc="cubic", appl="ports" if a.dataplane else "bridge")
        if not created:
            topology.set_modes(tb, appl="ports" if a.dataplane else "bridge")
        for r in rates:
            meta = capture_one(tb, r, a.duration, out / f"{r:g}", a.dataplane)
            print(f"ack_capture: {r:g} Mbit/s -> received {meta['received_mbps']} Mbit/s {meta['tcpdump']} "
                  f"{meta.get('dataplane', '')}")
    finally:
        with signals.stopping():
            processes.stop_pidfiles(tb.run_dir)
            if created:
                topology.down(tb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
