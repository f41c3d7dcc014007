"""Aggregation-target scenarios (issue 9; 000 §VI, 001 §5) on the 802.11ac air.

Each scenario runs its pairs' downlink through wlan-emu with the 802.11ac
80 MHz air (air/lab-2ap-2sta-vht80.json) in up to three modes, one after the
other on the same topology:

  aggtarget  adwiser-dp (DPDK, net_af_packet) paces the pairs at the rates
             the controller's aggregation-loop (controller/, 000 §VI) writes
             to Redis; TCP CUBIC end to end. The loop's μ̃_N and μ_R come from
             the emulator's ground truth (gt_feed.py, in place of a STA-side
             agent); in an `-ack` scenario μ̃_N is the appliance's ACK-burst
             estimate, in an `-agent` one adwiser-sta-agent's on each STA;
  cubic, bbr straight forwarding (Linux bridge in the appliance), plain TCP
             with that congestion control: the comparison of 001 §4.5/Fig 16.

A UDP scenario (udp_offered_mbit) sends iperf3 UDP at a fixed offered rate
instead of TCP, as 000 §VII does, in two modes: aggtarget (paced as above;
what the pacer holds back beyond the A* limit is dropped in the appliance)
and udp (the same stream forwarded straight, the AP's queue saturated).

Per pair the JSON has throughput_mbps, mean_delay_ms (one-way, appliance ->
STA, UDP probes captured at both ends: delay_probe.py), mean_ampdu and
mean_phy_mbps (emulator), airtime_frac, and for aggtarget the target
(T̄, final N_target), the loop's time series (with z, x and the rate the
pair carried) and appliance_queue (the dataplane's queue of the pair over
the second half: how often empty, backlog, A* limit, drops, released rate
against the pacing rate, to tell a pacer that falls short from a sender
that does).

N̄ of the loop: the controller takes 48/64 of the AP's aggregation ceiling
when the topology has one (000 §V-A (17); controller aggregation/nbar.py).
It is measured here the way an operator would: the straight-forwarding CUBIC
run of the same scenario saturates the AP (a standing queue), and the mean
A-MPDU size of the AP's fastest pair (highest mean PHY rate) in the
emulator's ground truth is the AP's ceiling (`ap_ceilings` in the JSON, with
the run it came from). The cubic (or udp) mode therefore runs first; `--modes
aggtarget` alone takes the ceiling from the kept straight run. Behind a
rate-limited backhaul the straight run does not saturate the AP, so no
ceiling is measured there (N̄ = n_target_max).

One-STA scenarios run on the 2AP-2STA lab (topology.py, only AP1-STA1
carries traffic); several STAs run on agg_lab.py (one AP, air config
air/aggtarget-1ap-3sta-vht80.json: STAs at high, middle and low MCS, or that
air with the scenario's own STAs: scenario_air). A scenario this testbed
cannot run refuses to, saying what is missing, rather than measuring
something else.

This module runs them; the scenarios are defined in aggtarget_scenarios.py,
a run is read into its result by aggtarget_result.py, and what it measured
against the goals in aggtarget_figures.py.
"""
from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

import redis
import yaml

from . import backend as backend_mod
from . import aggtarget_repeats, aggtarget_result, delay_probe, iperf, processes, result_file, signals, topology, udp_counters, wan, wlan
from .agg_lab import MultiStaLab
from .build_commit import build_commit
from .aggtarget_figures import goals, scenario_ceilings, with_ceilings
from .aggtarget_result import STA_MODEL, Capture
from .aggtarget_scenarios import MODES, SCENARIOS, VHT_AIR, AggScenario, get, scenario_air
from .gt_feed import GroundTruthFeed

REPO = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).resolve().parents[1] / "results"
STA_AGENT = REPO / "dataplane" / "build" / "adwiser-sta-agent"
PY = REPO / ".venv" / "bin" / "python"
APPLIANCE = "aggtarget"
# Delay probes per second per pair. They ride in the pair's queue and the loop's μ̃ counts their MPDUs while x,
# paced in bytes, barely does: at 200/s they were 15 % of the slowest STA's MPDUs in aggtarget-5sta-mixed-mcs-5ms
# and lifted its μ̃/x by 13 % (findings/aggregation-target.md, "Why station 1's μ̃/x is T̄ while the round is 3.4 ms"). At 50/s they are
# under 5 % of any pair's packets here, and 20 s still gives 1,000 samples for the mean and p95.
PROBE_PPS = 50.0
BASE_PORT = 5301
# How long the loop's steps are read after the transfers ended (iperf3's clients exited): four Δ of
# 0.5 s, what the loop does when the traffic stops (each pair's `loop_after_stop`)
AFTER_STOP_S = 2.0
MAX_DURATION_S = 600.0   # seconds per transfer
MAX_REPEATS = 10    # controlled runs, each with its straight run (--repeats): 10 x 2 x 20 s is already a long batch


def _controller(redis_url: str, *args: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "controller"))
    res = subprocess.run([str(PY), "-m", "adwiser_controller", *args, "--redis-url", redis_url],
                         capture_output=True, text=True, timeout=60, cwd=REPO / "controller", env=env)
    if res.returncode != 0:
        raise RuntimeError(f"controller {' '.join(args)}: {res.stderr.strip()}")


def _wait(cond: Any, what: str, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not cond():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.1)


class _Stack:
    """Everything one run starts, stopped in reverse order even on failure."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, Any]] = []

    def push(self, what: str, fn: Any) -> None:
        self.steps.append((what, fn))

    def close(self) -> list[str]:
        errors = []
        for what, fn in reversed(self.steps):
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - every step must run
                errors.append(f"{what}: {e}")
        return errors


class _PairLab:
    """The 2AP-2STA lab of topology.py; only the scenario's pairs carry traffic."""

    def __init__(self, tb: topology.Testbed):
        self.tb = tb
        self.emu_pid = 0   # the running wlan-emu's, for step_rss
        self.created = not topology.is_up(tb)   # also a half-up testbed, which `up` rebuilds
        self.run_dir = tb.run_dir

    def ns(self, role: str) -> str:
        return self.tb.ns(role)

    def sta_ip(self, sta: str) -> str:
        return topology.STAS[sta][0]

    def prepare(self, cc: str, controlled: bool, stack: _Stack) -> None:
        topology.up(self.tb, cc=cc, appl="ports" if controlled else "bridge")
        topology.set_congestion_control(self.tb, cc)
        stack.push("topology modes", lambda: topology.set_modes(self.tb, wan="bridge", wlan="bridge", appl="bridge"))

    def start_emu(self, out: Path, stack: _Stack, stats: dict[str, Any], rss_steps: Sequence[str] = ()) -> Path:
        os.environ["WLAN_EMU_CMD"] = (wlan.DEFAULT_TEMPLATE + f" --air {VHT_AIR}"
                                      + "".join(f" --rss-step {step}" for step in rss_steps))
        try:
            emu = wlan.start(self.tb, out)
        finally:
            os.environ.pop("WLAN_EMU_CMD", None)
        if emu is None:
            raise RuntimeError("wlan-emu is not built (make -C testbed build)")
        self.emu_pid = emu.proc.pid
        stack.push("wlan-emu", lambda: stats.update(wlan.stop(self.tb, emu)))
        return emu.groundtruth_path

    def step_rss(self) -> None:
        """Applies wlan-emu's --rss-step now (SIGUSR1 to the emulator this lab started)."""
        os.kill(self.emu_pid, signal.SIGUSR1)

    def start_backhaul(self, sc: AggScenario, stack: _Stack, stats: dict[str, Any]) -> None:
        w = wan.start(self.tb, delay_ms=sc.backhaul_delay_ms, rate_mbit=float(sc.backhaul_mbit or 0))
        stack.push("wan-emu", lambda: stats.update(wan.stop(w)))

    def config(self, sc: AggScenario) -> dict[str, Any]:
        cfg: dict[str, Any] = yaml.safe_load(backend_mod.LAB_CONFIG.read_text())
        cfg["appliance_id"] = APPLIANCE
        cfg["policies"]["aggregation_target"].update(
            {"enabled": True, "pairs": [f"{a}/{s}" for a, s in sc.pairs], "t_bar_ms": sc.t_bar_ms})
        return cfg

    def dp_argv(self, dp: Path, cfg_path: Path, sock: Path) -> list[str]:
        rd = self.run_dir
        return shlex.split(backend_mod.DPDK_TEMPLATE.format(
            dp=dp, prefix=self.tb.prefix, config=cfg_path, telemetry=rd / "adwiser-dp.telemetry.jsonl",
            stats=rd / "adwiser-dp.stats.json", pidfile=rd / "adwiser-dp.own.pid")) + [
            "--redis", f"unix:{sock}", "--ack-model", str(backend_mod.ACK_MODEL)]

    def close(self) -> None:
        if self.created:
            topology.down(self.tb)


class _MultiLab:
    """One AP with several STAs (agg_lab.py), built for the scenario and removed after it."""

    def __init__(self, prefix: str, n_stas: int, air: Path):
        self.lab = MultiStaLab(prefix, n_stas)
        self.air = air
        self.run_dir = self.lab.run_dir
        self.built = False

    def ns(self, role: str) -> str:
        return self.lab.ns(role)

    def sta_ip(self, sta: str) -> str:
        return self.lab.ip_of(sta)

    def prepare(self, cc: str, controlled: bool, stack: _Stack) -> None:
        if not self.built:
            self.lab.up(cc)
            self.built = True
        self.lab.set_cc(cc)
        self.lab.set_appl("ports" if controlled else "bridge")
        stack.push("appliance bridge", lambda: self.lab.set_appl("bridge"))

    def start_emu(self, out: Path, stack: _Stack, stats: dict[str, Any], rss_steps: Sequence[str] = ()) -> Path:
        if rss_steps:
            raise ValueError("an RSS step is only wired on the 2AP-2STA lab")
        stats_path, log = out / "wlan-emu.stats.json", out / "groundtruth.jsonl"
        for f in (stats_path, log):
            f.unlink(missing_ok=True)
        proc = processes.start(self.run_dir, "wlan-emu", self.ns("wlan"),
                               self.lab.emu_argv(wlan.WLAN_EMU, self.air, stats_path, log,
                                                 self.run_dir / "wlan-emu.own.pid"))
        time.sleep(0.5)
        if not proc.running():
            raise RuntimeError(f"wlan-emu exited at start:\n{proc.log_tail()}")

        def stop() -> None:
            processes.stop(proc, grace_s=10.0)
            try:
                stats.update(json.loads(stats_path.read_text()))
            except (OSError, json.JSONDecodeError):
                pass
        stack.push("wlan-emu", stop)
        return log

    def start_backhaul(self, sc: AggScenario, stack: _Stack, stats: dict[str, Any]) -> None:
        raise ValueError(f"{sc.name}: a rate-limited backhaul is only wired on the 2AP-2STA lab")

    def config(self, sc: AggScenario) -> dict[str, Any]:
        base: dict[str, Any] = yaml.safe_load(backend_mod.LAB_CONFIG.read_text())
        return self.lab.config_doc(APPLIANCE, [f"{a}/{s}" for a, s in sc.pairs], sc.t_bar_ms, base)

    def dp_argv(self, dp: Path, cfg_path: Path, sock: Path) -> list[str]:
        return self.lab.dp_argv(dp, cfg_path, sock)

    def close(self) -> None:
        self.lab.down()


Lab = _PairLab | _MultiLab


def _start_controlled(lab: Lab, sc: AggScenario, stack: _Stack, gt_path: Path,
                      ceilings: dict[str, dict[str, Any]]) -> str:
    sock = lab.run_dir / "redis.sock"
    rdir = lab.run_dir / "redis"
    rdir.mkdir(parents=True, exist_ok=True)
    # removed after redis-server stops (the stack runs backwards): the 2AP-2STA lab's teardown removes
    # only the run directory's files, and left this directory behind after every one-STA run
    stack.push("redis directory", lambda: shutil.rmtree(rdir, ignore_errors=True))
    dp_bin = backend_mod.dp_binary()
    if not os.access(dp_bin, os.X_OK):
        raise backend_mod.BackendUnavailable(f"{dp_bin} is not built (make -C dataplane build)")
    # `--help` reaches DPDK's EAL, not adwiser-dp; its own usage text is in the binary.
    if b"--pacing FILE" not in dp_bin.read_bytes():
        raise backend_mod.BackendUnavailable(f"{dp_bin} has no per-pair pacing (issue 9 dataplane part)")
    rs = processes.start(lab.run_dir, "redis-server", None,
                         ["redis-server", "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700",
                          "--dir", str(rdir), "--save", "", "--appendonly", "no"])
    stack.push("redis-server", lambda: processes.stop(rs))
    url = f"unix://{sock}"
    r = redis.Redis.from_url(url, decode_responses=True)
    stack.push("redis client", r.close)

    def _ping() -> bool:
        try:
            return bool(r.ping())
        except redis.RedisError:
            return False
    _wait(_ping, "redis-server")
    cfg_path = lab.run_dir / "aggtarget-config.json"
    cfg_path.write_text(json.dumps(with_ceilings(lab.config(sc), ceilings), indent=1) + "\n")
    _controller(url, "seed", str(cfg_path), "--apply", "--comment", f"testbed {sc.name}")
    dp = processes.start(lab.run_dir, "adwiser-dp", lab.ns("appl"), lab.dp_argv(dp_bin, cfg_path, sock))
    stack.push("adwiser-dp", lambda: processes.stop(dp, grace_s=10.0))
    _wait(lambda: r.get(f"adwiser:appliance:{APPLIANCE}:active") is not None or not dp.running(),
          "adwiser-dp to acknowledge its configuration", 20.0)
    if not dp.running():
        raise RuntimeError(f"adwiser-dp exited at start:\n{dp.log_tail()}")
    feed = GroundTruthFeed(url, APPLIANCE, gt_path, [f"{a}/{s}" for a, s in sc.pairs],
                           aggregation=sc.mu_source == "sta").start()
    stack.push("ground-truth feed", feed.stop)
    loop = processes.start(lab.run_dir, "aggregation-loop", None,
                           [str(PY), "-m", "adwiser_controller", "aggregation-loop", "--redis-url", url,
                            "--appliance", APPLIANCE], env={"PYTHONPATH": str(REPO / "controller")})
    stack.push("aggregation-loop", lambda: processes.stop(loop))
    return url


def _loop_history(url: str) -> list[dict[str, Any]]:
    r = redis.Redis.from_url(url, decode_responses=True)
    try:
        raw = r.xrange(f"adwiser:appliance:{APPLIANCE}:tm:aggregation", count=100000)
    finally:
        r.close()
    out = []
    for sid, f in raw:
        row: dict[str, Any] = {"pair": f.get("pair"), "state": f.get("state"), "bottleneck": f.get("bottleneck"),
                               "unix": int(sid.split("-")[0]) / 1000.0}  # the stream id: Redis's clock, ms
        # the bottleneck classifier's inputs (001 §5) with its output: agg_ratio, loss (L^p)
        for k in ("ts", "nu", "c_hat_us", "n_target", "n_bar", "mu_n", "z", "x_pps", "pace_bps", "delivered_bps",
                  "received_pps", "phy_rate_mbps", "p_backhaul", "agg_ratio", "loss",
                  "ack_delay_ms", "ack_delay_floor_ms", "ack_queue_ms"):
            v = f.get(k, "")
            row[k] = float(v) if v not in ("", None) else None
        row["ap_queue_grew"] = {"True": True, "False": False}.get(f.get("ap_queue_grew", ""))
        out.append(row)
    return out


def _pair_entries(url: str) -> list[tuple[float, dict[str, str]]]:
    """The dataplane's `tm:pair` records, each with its unix time (the stream id: Redis's clock, ms)."""
    r = redis.Redis.from_url(url, decode_responses=True)
    try:
        return [(int(sid.split("-")[0]) / 1000.0, f)
                for sid, f in r.xrange(f"adwiser:appliance:{APPLIANCE}:tm:pair", count=200000)]
    finally:
        r.close()


def _start_sta_agents(lab: Lab, sc: AggScenario, mode: str, out: Path, stack: _Stack) -> None:
    """adwiser-sta-agent in every STA's namespace, each logging its packets (runner/sta_frames.py); with
    mu_source "agent" it also reports μ̃_N to the run's Redis. The agent takes only a STA-frame model (the
    ACK-burst model's "model" member names the other kind and it refuses it), so a capture, whose labels come
    from the ground truth, needs the shipped configs/sta_frame_model.json too."""
    if not os.access(STA_AGENT, os.X_OK):
        raise backend_mod.BackendUnavailable(f"{STA_AGENT} is not built (make -C dataplane build)")
    if not STA_MODEL.exists():
        raise RuntimeError(f"{sc.name}: {STA_MODEL} is missing (python -m runner.sta_frames fit)")
    for ap, sta in sc.pairs:
        argv = [str(STA_AGENT), "--iface", "eth0", "--pair", f"{ap}/{sta}", "--model", str(STA_MODEL),
                "--log", str(out / f"{mode}-sta-agent-{sta}.packets"),
                "--stats", str(out / f"{mode}-sta-agent-{sta}.stats.json")]
        if sc.mu_source == "agent":
            argv += ["--redis", f"unix:{lab.run_dir / 'redis.sock'}", "--appliance", APPLIANCE]
        p = processes.start(lab.run_dir, f"sta-agent-{sta}", lab.ns(sta), argv)
        stack.push(f"sta-agent-{sta}", lambda p=p: processes.stop(p))


def _start_probe_captures(lab: Lab, sc: AggScenario, mode: str, out: Path, stack: _Stack,
                          cap: Capture) -> None:
    """tcpdump of the delay probes at each pair's AP port and at its STA (delay_probe.py)."""
    for ap, sta in sc.pairs:
        at_ap, at_sta = out / f"{mode}-probe-{ap}-{sta}-at-ap.pcap", out / f"{mode}-probe-{sta}.pcap"
        cap.pcaps[f"{ap}/{sta}"] = (at_ap, at_sta)
        for ns, dev, path, name in ((lab.ns("wlan"), ap, at_ap, f"tcpdump-{ap}-{sta}"),
                                    (lab.ns(sta), "eth0", at_sta, f"tcpdump-{sta}")):
            p = processes.start(lab.run_dir, name, ns,
                                ["tcpdump", "-i", dev, "-n", "-s", "128", "-B", "4096", "-U",
                                 "--time-stamp-precision=nano", "-w", str(path),
                                 "udp", "dst", "port", str(delay_probe.PROBE_PORT), "and", "dst", "host",
                                 lab.sta_ip(sta)])
            stack.push(name, lambda p=p: processes.stop(p))


def _start_ack_captures(lab: Lab, sc: AggScenario, mode: str, out: Path, stack: _Stack) -> None:
    """The STAs' pure ACKs as the emulator hands them to the appliance (runner/ack_gap.py)."""
    for ap in sorted({a for a, _ in sc.pairs}):
        p = processes.start(lab.run_dir, f"tcpdump-acks-{ap}", lab.ns("wlan"),
                            ["tcpdump", "-i", ap, "-n", "-s", "96", "-B", "32768", "-Q", "out",
                             "--time-stamp-precision=nano", "-w", str(out / f"{mode}-acks-{ap}.pcap"),
                             "tcp", "and", "less", "120"])
        stack.push(f"tcpdump-acks-{ap}", lambda p=p: processes.stop(p))


def _run_traffic(lab: Lab, sc: AggScenario, duration_s: float, cc: str, cap: Capture) -> float:
    """Each pair's transfer and delay probes, the mid-run step if the scenario has one; returns when the
    transfers ended (Unix s). iperf3's reports and the STAs' UDP counters go into cap."""
    udp_before = {sta: udp_counters.read(lab.ns(sta)) for _, sta in sc.pairs}
    transfers, probes = [], []
    for i, (ap, sta) in enumerate(sc.pairs):
        sta_ip = lab.sta_ip(sta)
        t = iperf.Transfer(f"{ap}-{sta}", lab.ns("server"), lab.ns(sta), sta_ip, BASE_PORT + i, duration_s, cc,
                           udp_mbit=sc.udp_offered_mbit)
        transfers.append(iperf.start(lab.run_dir, t))
        probes.append(processes.start(
            lab.run_dir, f"probe-{sta}", lab.ns("server"),
            [str(PY), "-m", "runner.delay_probe", "send", sta_ip, str(delay_probe.PROBE_PORT),
             f"{PROBE_PPS:g}", f"{duration_s:g}"], env={"PYTHONPATH": str(REPO / "testbed")}))
    if sc.rss_step_db is not None or sc.step_pair is not None:
        t_step = duration_s * sc.step_at_frac
        time.sleep(t_step)
        cap.step_unix = time.time()
        if sc.rss_step_db is not None:
            assert isinstance(lab, _PairLab)
            lab.step_rss()
        if sc.step_pair is not None:
            sap, ssta = sc.step_pair
            transfers.append(iperf.start(lab.run_dir, iperf.Transfer(
                f"{sap}-{ssta}", lab.ns("server"), lab.ns(ssta), lab.sta_ip(ssta), BASE_PORT + 50,
                duration_s - t_step, cc)))
    for rt in transfers:
        cap.reports[rt.transfer.label] = iperf.finish(rt)
    transfers_done = time.time()
    for p in probes:
        try:
            p.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        processes.stop(p)   # reaped or not: its pid file goes (a stale one would name a reused PID)
    cap.sta_udp = {sta: udp_counters.delta(udp_before[sta], udp_counters.read(lab.ns(sta))) for _, sta in sc.pairs}
    return transfers_done


def _capture(sc: AggScenario, mode: str, duration_s: float, lab: Lab, out: Path,
             ceilings: dict[str, dict[str, Any]] | None, capture_acks: bool, with_agents: bool,
             cc: str) -> Capture:
    """Runs one mode: starts what it needs, runs the traffic, reads the loop, and stops everything even on
    failure (the run's logs are kept in out)."""
    controlled = mode == "aggtarget"
    cap = Capture(started=time.time())
    stack = _Stack()
    try:
        lab.prepare(cc, controlled, stack)
        rss_steps = [f"{ap},{sta},{sc.rss_step_db:g}" for ap, sta in sc.pairs] if sc.rss_step_db is not None else []
        cap.gt_path = lab.start_emu(out, stack, cap.emu_stats, rss_steps)
        if sc.backhaul_mbit is not None:
            lab.start_backhaul(sc, stack, cap.wan_stats)
        url = _start_controlled(lab, sc, stack, cap.gt_path, ceilings or {}) if controlled else None
        if with_agents:
            _start_sta_agents(lab, sc, mode, out, stack)
        _start_probe_captures(lab, sc, mode, out, stack, cap)
        if controlled and capture_acks:
            _start_ack_captures(lab, sc, mode, out, stack)
        time.sleep(2.0 if controlled else 1.0)  # the loop's first steps / tcpdump ready
        transfers_done = _run_traffic(lab, sc, duration_s, cc, cap)
        time.sleep(0.5)
        if url is not None:
            cap.history = _loop_history(url)
            cap.pair_entries = _pair_entries(url)
            time.sleep(max(transfers_done + AFTER_STOP_S - time.time(), 0.0))
            cap.after_stop = [h for h in _loop_history(url) if h["unix"] >= transfers_done]
    finally:
        with signals.stopping():
            cap.errors = stack.close()
            for e in cap.errors:
                print(f"aggtarget: cleanup: {e}", file=sys.stderr)
            for kept in [*lab.run_dir.glob("*.log"), *lab.run_dir.glob("iperf3-*.json")]:
                kept.replace(out / f"{mode}-{kept.name}")
    return cap


def one_run(sc: AggScenario, mode: str, duration_s: float, lab: Lab, out: Path,
            ceilings: dict[str, dict[str, Any]] | None = None, capture_acks: bool = False,
            capture_sta: bool = False) -> dict[str, Any]:
    controlled = mode == "aggtarget"
    with_agents = controlled and (capture_sta or sc.mu_source == "agent")
    cc = mode if mode in ("cubic", "bbr") else "cubic"   # the STAs' stack; the UDP runs send no TCP
    cap = _capture(sc, mode, duration_s, lab, out, ceilings, capture_acks, with_agents, cc)
    air = aggtarget_result.read_air(sc, mode, out, cap, with_agents)
    return aggtarget_result.result(sc, mode, cc, cap, air, ceilings, with_agents)


def run(name: str, duration_s: float, modes: tuple[str, ...] | None = None, *, prefix: str | None = None,
        results_dir: Path = RESULTS, capture_acks: bool = False, capture_sta: bool = False,
        repeats: int = 1) -> dict[str, Any]:
    """Runs the scenario's modes (the straight one first) and writes results/<name>.json. The controlled
    mode runs `repeats` times, each after a straight run of its own (_run_order) that its goals are judged
    against, all with the APs' ceilings of the first: `runs.aggtarget` and `runs.<straight mode>` are the last
    of them, `repeats` holds every controlled run's goals and `goals_over_repeats` their spread
    (aggtarget_repeats.py); captures and logs are the last run's."""
    sc = get(name)
    if sc.unsupported:
        raise backend_mod.BackendUnavailable(f"{name}: {sc.unsupported}")
    if not 0 < duration_s <= MAX_DURATION_S:
        raise ValueError(f"duration {duration_s!r} s: expected 0 < duration <= {MAX_DURATION_S:g}")
    if not 1 <= repeats <= MAX_REPEATS:
        raise ValueError(f"repeats {repeats!r}: expected 1..{MAX_REPEATS}")
    modes = modes or sc.modes
    bad = [m for m in modes if m not in sc.modes]
    if bad:
        raise ValueError(f"{name}: modes {bad}: expected some of {sc.modes}")
    prefix = prefix or topology.default_prefix()
    results_dir = results_dir.resolve()
    out = results_dir / "runs" / name
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        if old.is_file() and (old.name.split("-", 1)[0] in modes or not old.name.startswith(MODES)):
            old.unlink()
    air = scenario_air(sc, out)
    lab: Lab = _MultiLab(prefix, len(sc.pairs), air) if len(sc.pairs) > 1 else _PairLab(topology.Testbed(prefix))
    started = time.time()
    runs: dict[str, Any] = {}
    straight_runs: list[dict[str, Any]] = []
    controlled_runs: list[tuple[dict[str, Any], dict[str, Any]]] = []   # (controlled run, the straight run it is judged against)
    if set(modes) != set(sc.modes):
        # A subset of the modes re-runs only those; the others' last results are kept (each run
        # carries its own started_unix).
        try:
            runs.update(json.loads((results_dir / f"{name}.json").read_text()).get("runs", {}))
        except (OSError, json.JSONDecodeError):
            pass
    try:
        ceilings = scenario_ceilings(sc, runs.get(sc.straight_mode, {}))
        for mode in _run_order(sc, modes, repeats):
            try:
                result = one_run(sc, mode, duration_s, lab, out, ceilings, capture_acks, capture_sta)
            except backend_mod.BackendUnavailable as e:
                result = {"mode": mode, "skipped": str(e)}
            runs[mode] = result
            if mode == sc.straight_mode and not straight_runs:
                # the first straight run is the saturation run the APs' ceilings are measured in: every
                # controlled run of the batch gets the same N-bar, as an operator measures it once
                ceilings = scenario_ceilings(sc, result)
            if mode == sc.straight_mode:
                straight_runs.append(result)
            if mode == "aggtarget":
                # judged against the straight run just before it, or the kept one when this batch made none
                controlled_runs.append((result, straight_runs[-1] if straight_runs else runs.get(sc.straight_mode, {})))
            if (capture_acks or capture_sta) and mode == "aggtarget" and (out / "groundtruth.jsonl").exists():
                # kept beside the ACK capture for runner/ack_gap.py, the agents' logs for runner/sta_frames.py
                (out / "groundtruth.jsonl").replace(out / "aggtarget-groundtruth.jsonl")
                shutil.copy(out / "wlan-emu.stats.json", out / "aggtarget-wlan-emu.stats.json")
            (out / "groundtruth.jsonl").unlink(missing_ok=True)  # 100s of MB; the stats keep the figures
    finally:
        with signals.stopping():
            lab.close()
    doc = {"scenario": name, "duration_s": duration_s, "t_bar_ms": sc.t_bar_ms,
           "backhaul_mbit": sc.backhaul_mbit, "udp_offered_mbit": sc.udp_offered_mbit, "air": _repo_relative(air),
           "ap_sta_rss_dbm": list(sc.ap_sta_rss_dbm) if sc.ap_sta_rss_dbm else None, "mu_source": sc.mu_source,
           "started_unix": round(started, 3), "build_commit": build_commit(), "probe_pps": PROBE_PPS,
           "ap_ceilings": runs.get("aggtarget", {}).get("ap_ceilings"),
           "runs": runs, "goals": goals(sc, runs)}
    if len(controlled_runs) > 1:
        per_run = [goals(sc, {**runs, "aggtarget": r, sc.straight_mode: s}) for r, s in controlled_runs]
        doc["repeats"] = [{"started_unix": r.get("started_unix"), "straight_started_unix": s.get("started_unix"),
                           "straight_mbps": _total_mbps(s), "goals": g}
                          for (r, s), g in zip(controlled_runs, per_run)]
        doc["goals_over_repeats"] = aggtarget_repeats.summarize(per_run)
    result_file.write_json(results_dir / f"{name}.json", doc)
    return doc


def _run_order(sc: AggScenario, modes: Sequence[str], repeats: int) -> list[str]:
    """The modes of a batch's runs, in order. With the straight mode among the modes, each controlled run follows
    its own straight run (straight, aggtarget, straight, aggtarget, ...): its throughput is judged against a straight run made on the same host minutes apart, not all
    of them against one sample (the one straight CUBIC run of aggtarget-5sta-mixed-mcs-ack came out 270 Mbit/s on
    a day its predecessor gave 252, and every verdict of the batch moved with it). The other modes (bbr, the
    comparison of 001 Fig 16) run once, after."""
    controlled = "aggtarget" in modes
    straight = sc.straight_mode in modes
    order: list[str] = []
    for _ in range(repeats if controlled else 1):
        if straight:
            order.append(sc.straight_mode)
        if controlled:
            order.append("aggtarget")
    order += [m for m in modes if m not in ("aggtarget", sc.straight_mode)]
    return order


def _total_mbps(run: dict[str, Any]) -> float | None:
    pairs = run.get("pairs") or []
    return round(sum(p["throughput_mbps"] for p in pairs), 3) if pairs else None


def _repo_relative(path: Path) -> str:
    """A path as the results name it: relative to the repository when inside it (a scenario's own air config is
    written to its run directory, which --results can put anywhere)."""
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def summary(doc: dict[str, Any]) -> str:
    lines = [f"{doc['scenario']} (T-bar {doc['t_bar_ms']} ms, {doc['duration_s']} s per run)"]
    for ap, c in (doc.get("ap_ceilings") or {}).items():
        lines.append(f"  {ap}: aggregation ceiling {c.get('ampdu_ceiling_us', '-')} us, {c['ampdu_ceiling_mpdus']} MPDUs "
                     f"({c['pair']}, {c['source']}), N-bar {c['n_bar']} at its PHY rate")
    for mode, r in doc["runs"].items():
        if "skipped" in r:
            lines.append(f"  {mode:9s} SKIPPED: {r['skipped']}")
            continue
        for p in r["pairs"]:
            lines.append(f"  {mode:9s} {p['ap']}/{p['sta']}: {p['throughput_mbps']:.1f} Mbit/s, "
                         f"delay appl->STA mean {p['mean_delay_ms']} ms p95 {p['p95_delay_ms']} ms, "
                         f"A-MPDU {p['mean_ampdu']}, PHY {p['mean_phy_mbps']} Mbit/s, airtime {p['airtime_frac']}")
    lines.append(f"  goals: {json.dumps(doc['goals'])}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    import argparse
    signals.exit_on_signals()  # SIGINT, SIGTERM: every `finally` stops what it started, and is not cut short

    ap = argparse.ArgumentParser(prog="runner.aggtarget", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", nargs="?", help="one of: " + ", ".join(SCENARIOS))
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--modes", default="", help="comma-separated subset of the scenario's modes (default: all)")
    ap.add_argument("--capture-acks", action="store_true",
                    help="controlled run: keep the STAs' ACKs at the appliance port (pcap) and the ground truth in "
                         "the run directory, for runner/ack_gap.py")
    ap.add_argument("--capture-sta", action="store_true",
                    help="controlled run: adwiser-sta-agent logs every packet each STA receives, kept with the "
                         "ground truth in the run directory, for runner/sta_frames.py")
    ap.add_argument("--results", type=Path, default=RESULTS,
                    help="directory for <scenario>.json and runs/<scenario>/ (default: testbed/results); a capture "
                         "for a model fit can go elsewhere and leave the committed results alone")
    ap.add_argument("--repeats", type=int, default=1,
                    help=f"controlled runs, 1..{MAX_REPEATS}, each after a straight run of its own it is judged "
                         "against: the JSON adds each run's goals and their median and range (goals_over_repeats)")
    args = ap.parse_args(argv)
    if not args.scenario:
        for s in SCENARIOS.values():
            print(f"{s.name:28s} T-bar {s.t_bar_ms:g} ms  {s.unsupported or 'runs here'}")
        return 0
    try:
        doc = run(args.scenario, args.duration, tuple(m for m in args.modes.split(",") if m) or None,
                  capture_acks=args.capture_acks, capture_sta=args.capture_sta, repeats=args.repeats,
                  results_dir=args.results)
    except backend_mod.BackendUnavailable as e:
        print(f"SKIPPED {args.scenario}: {e}", file=sys.stderr)
        return 0
    print(summary(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
