"""`make demo`: the whole appliance on the emulated 2AP-2STA testbed.

Brings up, in this order, and tears down in reverse (also on Ctrl-C/SIGTERM):

1. the testbed topology (namespaces, veths; the appliance namespace's ports
   unbridged for DPDK), holding /tmp/adwiser-testbed.lock for the whole run
   because the emulated WLAN is timing-sensitive and the machine is shared;
2. redis-server with AOF on a unix socket in the run directory, the one
   address every process reaches, inside a namespace or not (SPEC §2, §4);
3. the controller (`adwiser_controller serve`) on 127.0.0.1 serving the built
   dashboard (webui/dist), with the lab configuration stored and applied as
   version 1 and a first admin created through its CLI with a random password;
4. the WLAN emulator (emu/wlan-emu) between the AP ports and the STAs;
5. adwiser-dp on DPDK (net_af_packet over the appliance's veths) in the
   appliance namespace, started from the controller's active version and
   following later versions over Redis (`--redis unix:...`, controller/REDIS.md);
6. downlink bulk TCP (iperf3, CUBIC) from the server to both STAs,
   for DURATION seconds or until Ctrl-C (at most 3600 s).

Then it prints the results table: each pair's throughput through the
time-slicing appliance beside the stored isolated / together measurements of
this build (results/*.json) and the paper's S=20 ms row (004 Table 3), and the
network utility against its bound Σ ln(β_i S_i/S) (004 §4).
"""
from __future__ import annotations

import argparse
import fcntl
import json
import math
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from . import backend, iperf, processes, report, result_file, signals, topology, wlan
from .scenarios import PAIRS

REPO = Path(__file__).resolve().parents[2]
CONTROLLER = REPO / "controller"
WEBUI_DIST = REPO / "webui" / "dist"
LAB_CONFIG = REPO / "configs" / "lab-2ap-2sta.yaml"
RESULTS = REPO / "testbed" / "results"
LOCK_FILE = Path("/tmp/adwiser-testbed.lock")
MAX_RUN_S = 3600.0  # every traffic run is bounded, Ctrl-C or not
ADMIN = "admin"
APPLIANCE = "lab"
BASE_PORT = 5301
OVS_SCRIPTS = REPO / "testbed" / "ovs"
# With the OVS fabric (SPEC §2) the bridge takes up0/ap1/ap2 and the fabric manager
# gives the dataplane a veth per port (controller/adwiser_controller/fabric).
FABRIC_DPDK_TEMPLATE = ("{dp} --no-huge --file-prefix adw-{prefix} -m 1024 --no-pci -l 0 "
                        "--vdev=net_af_packet0,iface=dp-up --vdev=net_af_packet1,iface=dp-ap1 "
                        "--vdev=net_af_packet2,iface=dp-ap2 -- --config {config} --uplink dp-up "
                        "--ap ap1=dp-ap1 --ap ap2=dp-ap2 "
                        "--telemetry {telemetry} --stats {stats} --pid-file {pidfile}")
DEMO_PREFIX = "adwdemo"
STATUS_EVERY_S = 10.0


@dataclass
class Demo:
    """What this run started, so that teardown stops exactly that, by PID."""
    tb: topology.Testbed
    out: Path                                  # testbed/results/runs/demo: logs, stats, result JSON
    redis_dir: Path
    redis_sock: Path
    webui_dist: Path = WEBUI_DIST
    redis_proc: processes.ManagedProcess | None = None
    controller: processes.ManagedProcess | None = None
    emu: wlan.WlanEmu | None = None
    dp: processes.ManagedProcess | None = None
    fabric: bool = False                       # OVS fabric in front of the dataplane (--fabric ovs)
    fabric_manager: processes.ManagedProcess | None = None
    ovs_started: bool = False
    transfers: list[iperf.RunningTransfer] = field(default_factory=list)
    stats: dict[str, dict[str, Any]] = field(default_factory=lambda: {"emu": {}, "dp": {}})

    @property
    def redis_url(self) -> str:
        return f"unix://{self.redis_sock}"


def _say(msg: str) -> None:
    print(f"demo: {msg}", flush=True)


def take_lock() -> int:
    """Holds the shared testbed lock (flock) until the process exits."""
    fd = os.open(LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        _say(f"waiting for {LOCK_FILE} (another testbed experiment is running)")
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def free_port(preferred: int) -> int:
    """preferred if nothing listens on it on 127.0.0.1, else a free one."""
    for port in (preferred, 0):
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise RuntimeError("no free TCP port on 127.0.0.1")


def _wait(what: str, ok: Callable[[], bool], proc: processes.ManagedProcess, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not proc.running():
            raise RuntimeError(f"{what} exited at start:\n{proc.log_tail()}")
        try:
            if ok():
                return
        except (OSError, redis.RedisError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not come up within {timeout_s:g} s:\n{proc.log_tail()}")


def controller_cli(d: Demo, args: list[str], stdin: str | None = None) -> str:
    env = dict(os.environ, PYTHONPATH=str(CONTROLLER))
    r = subprocess.run([sys.executable, "-m", "adwiser_controller", *args, "--redis-url", d.redis_url],
                       input=stdin, capture_output=True, text=True, timeout=60, env=env, cwd=REPO)
    if r.returncode != 0:
        raise RuntimeError(f"adwiser_controller {args[0]} failed: {r.stderr.strip()}")
    return r.stdout


def start_redis(d: Demo) -> redis.Redis:
    d.redis_dir.mkdir(parents=True, exist_ok=True)
    d.redis_proc = processes.start(d.tb.run_dir, "demo-redis", None, [
        "redis-server", "--port", "0", "--unixsocket", str(d.redis_sock), "--unixsocketperm", "770",
        "--dir", str(d.redis_dir), "--appendonly", "yes", "--appendfsync", "everysec", "--save", ""])
    r = redis.Redis(unix_socket_path=str(d.redis_sock), decode_responses=True)
    _wait("redis-server", lambda: bool(r.ping()), d.redis_proc)
    return r


def start_controller(d: Demo, port: int) -> tuple[str, str]:
    """Stores and applies the lab configuration, creates the first admin with a
    random password; returns (dashboard URL, that password)."""
    if not (d.webui_dist / "index.html").exists():
        raise RuntimeError(f"the dashboard is not built ({d.webui_dist}): make -C webui build")
    controller_cli(d, ["seed", str(LAB_CONFIG), "--apply", "--author", "cli:make-demo",
                       "--comment", "make demo: the 2AP-2STA lab"])
    password = secrets.token_urlsafe(12)
    controller_cli(d, ["create-admin", "--username", ADMIN, "--password-stdin"], stdin=password + "\n")
    d.controller = processes.start(d.tb.run_dir, "demo-controller", None, [
        sys.executable, "-m", "adwiser_controller", "serve", "--redis-url", d.redis_url,
        "--host", "127.0.0.1", "--port", str(port), "--webui-dist", str(d.webui_dist),
        "--log-level", "warning", "--no-access-log"], env={"PYTHONPATH": str(CONTROLLER)})
    url = f"http://127.0.0.1:{port}"
    _wait("the controller", lambda: urllib.request.urlopen(f"{url}/api/v1/health", timeout=1).status == 200,
          d.controller)
    return f"{url}/", password


def start_dataplane(d: Demo, r: redis.Redis) -> int:
    """adwiser-dp on DPDK in the appliance namespace, from the controller's
    desired version (written as its --config), following Redis from then on."""
    dp = backend.dp_binary()
    if not os.access(dp, os.X_OK):
        raise RuntimeError(f"{dp} is not built: make -C dataplane build")
    version = int(r.get(f"adwiser:appliance:{APPLIANCE}:desired") or 0)
    doc = r.hget(f"adwiser:version:{version}", "doc")
    if not doc:
        raise RuntimeError(f"the controller has no desired version for appliance {APPLIANCE}")
    config = d.out / f"adwiser-config-v{version}.json"
    config.write_text(doc)
    if d.fabric:
        start_fabric(d, r, config)
    argv = (FABRIC_DPDK_TEMPLATE if d.fabric else backend.DPDK_TEMPLATE).format(
        dp=dp, prefix=f"{d.tb.prefix}demo", config=config, telemetry=d.out / "adwiser-dp.telemetry.jsonl",
        stats=d.out / "adwiser-dp.stats.json", pidfile=d.tb.run_dir / "adwiser-dp.own.pid", queue=0,
        run_dir=d.tb.run_dir).split() + ["--redis", f"unix:{d.redis_sock}"]
    d.dp = processes.start(d.tb.run_dir, "adwiser-dp", d.tb.ns("appl"), argv)
    _wait("adwiser-dp (acknowledging the version)",
          lambda: r.get(f"adwiser:appliance:{APPLIANCE}:active") == str(version), d.dp)
    return version


def start_fabric(d: Demo, r: redis.Redis, config: Path) -> None:
    """Open vSwitch (userspace datapath, private run directory) in the appliance
    namespace and the controller's fabric manager, which bridges up0/ap1/ap2,
    steers managed traffic through the dataplane and fails open without it.
    The bridge's ports are added with the appliance's socket receive buffer
    (controller fabric/port_buffers.py: a slice batch must fit), which this
    host, not set up by ansible, has only meanwhile."""
    ovs_dir = d.tb.run_dir / "ovs"
    sys.path.insert(0, str(CONTROLLER))
    from adwiser_controller.fabric.port_buffers import raised_rmem_default  # the controller's, not on the path before
    with raised_rmem_default():  # from the host's namespace: a network namespace cannot set it
        subprocess.run([str(OVS_SCRIPTS / "ovs-start.sh"), str(ovs_dir), d.tb.ns("appl")], check=True,
                       capture_output=True, timeout=60)
        d.ovs_started = True
        d.fabric_manager = processes.start(d.tb.run_dir, "demo-fabric", d.tb.ns("appl"), [
            sys.executable, "-m", "adwiser_controller.fabric", "run", "--config", str(config), "--uplink", "up0",
            "--run-dir", str(ovs_dir), "--redis", f"unix:{d.redis_sock}", "--duration-s", f"{MAX_RUN_S + 600:g}"],
            env={"PYTHONPATH": str(CONTROLLER)})
        _wait("the fabric manager", lambda: r.get(f"adwiser:appliance:{APPLIANCE}:fabric") is not None,
              d.fabric_manager)


def start_traffic(d: Demo, duration_s: float) -> None:
    for i, (ap, sta) in enumerate(PAIRS):
        t = iperf.Transfer(f"{ap}-{sta}", d.tb.ns("server"), d.tb.ns(sta), topology.STAS[sta][0],
                           BASE_PORT + i, duration_s, "cubic")
        d.transfers.append(iperf.start(d.tb.run_dir, t))


def live_line(r: redis.Redis, elapsed: float) -> str:
    """The latest per-pair telemetry the dataplane wrote to Redis."""
    latest: dict[str, dict[str, str]] = {}
    for _, f in r.xrevrange(f"adwiser:appliance:{APPLIANCE}:tm:pair", count=20):
        latest.setdefault(f.get("pair", "?"), f)
    active = r.get(f"adwiser:appliance:{APPLIANCE}:active")
    def num(v: str | None, digits: int) -> str:
        return "–" if v in (None, "", "null") else f"{float(v):.{digits}f}"  # type: ignore[arg-type]

    pairs = "  ".join(f"{p} {num(f.get('tput_mbps'), 1)} Mbit/s r={f.get('r_pkts')} pkts "
                      f"V={num(f.get('v_ms'), 1)} ms" for p, f in sorted(latest.items()))
    return f"t={elapsed:4.0f} s  version {active}  {pairs or 'no telemetry yet'}"


def wait_traffic(d: Demo, r: redis.Redis, duration_s: float, on_status: Callable[[float], None]) -> bool:
    """Until the transfers end (True) or Ctrl-C (False); a status line every 10 s."""
    started = time.monotonic()
    next_status = started + STATUS_EVERY_S
    try:
        while any(rt.client.running() for rt in d.transfers):
            now = time.monotonic()
            if now - started > duration_s + 30:
                break
            if now >= next_status:
                next_status += STATUS_EVERY_S
                _say(live_line(r, now - started))
                on_status(now - started)
            time.sleep(0.2)
    except KeyboardInterrupt:
        return False
    return True


def finish_transfer(rt: iperf.RunningTransfer, interrupted: bool) -> tuple[float, bool]:
    """(throughput Mbit/s, whether it is the sender's count). An interrupted
    iperf3 client (SIGINT) writes its JSON without the receiver's figures, so
    then the sender's average is all there is."""
    if rt.client.running():
        rt.client.popen.send_signal(signal.SIGINT)
        try:
            rt.client.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    processes.stop(rt.client)
    processes.stop(rt.server, grace_s=2.0)
    try:
        doc = json.loads(rt.report_path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise RuntimeError(f"iperf3 {rt.transfer.label}: no JSON report ({e}): {rt.client.log_tail()}") from e
    received = float(doc.get("end", {}).get("sum_received", {}).get("bits_per_second") or 0)
    if received > 0 and not interrupted:
        return received / 1e6, False
    sent = float(doc.get("end", {}).get("sum_sent", {}).get("bits_per_second") or 0)
    return sent / 1e6, True


def slice_shares(r: redis.Redis) -> dict[str, tuple[float, float]]:
    """Per pair (S_i ms, S_i/S) from the version the dataplane runs."""
    active = r.get(f"adwiser:appliance:{APPLIANCE}:active")
    doc = json.loads(r.hget(f"adwiser:version:{active}", "doc") or "{}")
    slices = doc.get("slice_map", {}).get("slices", [])
    frame = sum(float(s["duration_ms"]) for s in slices) or 1.0
    out: dict[str, tuple[float, float]] = {}
    for s in slices:
        for p in s["pairs"]:
            ms = out.get(p, (0.0, 0.0))[0] + float(s["duration_ms"])
            out[p] = (ms, ms / frame)
    return out


def mean_drain_ms(r: redis.Redis) -> dict[str, float]:
    """Mean V per pair over the drains of the pair telemetry still in Redis (bounded stream), as the
    experiments take it (backend.drain_means_ms: the drains' sum over their count, not the mean of each
    frame's last V, which counted a frame with two drains once and one with none again)."""
    return backend.drain_means_ms(f for _, f in r.xrange(f"adwiser:appliance:{APPLIANCE}:tm:pair"))


def results_table(doc: dict[str, Any]) -> str:
    stored = report.load_results(RESULTS)
    iso, tog = stored.get("isolated"), stored.get("together")
    paper = report.PAPER["downlink"]["S=20ms"]
    paper_thr = {"ap1/sta1": paper[0], "ap2/sta2": paper[2]}

    def stored_thr(d: dict[str, Any] | None, i: int) -> str:
        return f"{d['pairs'][i]['throughput_mbps']:.1f}" if d else "–"

    def f(v: float | None, digits: int = 1) -> str:
        return "–" if v is None else f"{v:.{digits}f}"

    lines = ["| pair | S ms | θ through the appliance, Mbit/s | A-MPDU | PHY Mbit/s | mean V ms "
             "| isolated θ (results/isolated.json) | together, no slicing (results/together.json) "
             "| paper S=20ms θ |", "|---" * 9 + "|"]
    for i, p in enumerate(doc["pairs"]):
        thr = f"{p['throughput_mbps']:.1f}" + (" (sender)" if p["sender_count"] else "")
        lines.append(f"| {p['pair']} | {f(p['slice_ms'], 0)} | {thr} | {f(p['mean_ampdu'])} "
                     f"| {f(p['mean_phy_mbps'])} | {f(p['mean_drain_ms'], 2)} | {stored_thr(iso, i)} "
                     f"| {stored_thr(tog, i)} | {f(paper_thr.get(p['pair']))} |")
    lines.append("")
    lines.append(f"Network utility Σ ln θ = {f(doc['utility'], 2)}; bound Σ ln(β_i S_i/S) = "
                 f"{f(doc['utility_bound'], 2)} (β_i from results/isolated.json); paper S=20ms "
                 f"{paper[4]:.2f}. Run {doc['ran_s']:.0f} s{' (interrupted)' if doc['interrupted'] else ''}.")
    if any(p["sender_count"] for p in doc["pairs"]):
        lines.append("(sender): the run was interrupted, so iperf3 had no receiver figure; the sender's average is shown.")
    return "\n".join(lines)


def collect(d: Demo, r: redis.Redis, interrupted: bool, ran_s: float) -> dict[str, Any]:
    thr = {rt.transfer.label.replace("-", "/"): finish_transfer(rt, interrupted) for rt in d.transfers}
    shares, drains = slice_shares(r), mean_drain_ms(r)
    d.transfers = []
    return {"pairs": [{"pair": p, "throughput_mbps": round(t, 3), "sender_count": sender,
                       "slice_ms": shares.get(p, (None, None))[0], "mean_drain_ms": drains.get(p)}
                      for p, (t, sender) in thr.items()],
            "shares": {p: s for p, (_, s) in shares.items()}, "interrupted": interrupted, "ran_s": ran_s}


def add_link_figures(doc: dict[str, Any], emu_stats: dict[str, Any]) -> None:
    """A-MPDU and PHY rate from the emulator's stats, utility and its bound."""
    for p in doc["pairs"]:
        ap, sta = p["pair"].split("/")
        p["mean_ampdu"], p["mean_phy_mbps"] = wlan.link_figures(emu_stats, ap, sta, "downlink")
    thr = [p["throughput_mbps"] for p in doc["pairs"]]
    doc["utility"] = sum(math.log(t) for t in thr) if thr and all(t > 0 for t in thr) else None
    iso = report.load_results(RESULTS).get("isolated")
    beta = {f"{q['ap']}/{q['sta']}": q["throughput_mbps"] for q in iso["pairs"]} if iso else {}
    shares = doc.pop("shares")
    try:
        doc["utility_bound"] = sum(math.log(beta[p] * shares[p]) for p in (q["pair"] for q in doc["pairs"]))
    except (KeyError, ValueError):
        doc["utility_bound"] = None


def teardown(d: Demo) -> list[str]:
    """Stops everything this run started, each step even if another failed."""
    errors: list[str] = []

    def step(what: str, fn: Callable[[], Any]) -> None:
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - every step must run; reported after
            errors.append(f"{what}: {e}")

    for rt in d.transfers:
        step("iperf3", lambda rt=rt: (processes.stop(rt.client), processes.stop(rt.server, grace_s=2.0)))
    if d.dp is not None:
        step("adwiser-dp", lambda: processes.stop(d.dp, grace_s=10.0) if d.dp else None)
        step("adwiser-dp stats", lambda: d.stats.__setitem__(
            "dp", json.loads((d.out / "adwiser-dp.stats.json").read_text())))
    if d.fabric_manager is not None:
        step("fabric manager", lambda: processes.stop(d.fabric_manager) if d.fabric_manager else None)
    if d.ovs_started:
        step("ovs", lambda: subprocess.run([str(OVS_SCRIPTS / "ovs-stop.sh"), str(d.tb.run_dir / "ovs")],
                                           check=True, capture_output=True, timeout=60))
    if d.emu is not None:
        step("wlan-emu", lambda: d.stats.__setitem__("emu", wlan.stop(d.tb, d.emu)))
    if d.controller is not None:
        step("controller", lambda: processes.stop(d.controller) if d.controller else None)
    if d.redis_proc is not None:
        step("redis-server", lambda: processes.stop(d.redis_proc) if d.redis_proc else None)
    for log in d.tb.run_dir.glob("*.log"):
        step("logs", lambda log=log: shutil.copy(log, d.out / log.name))
    for rep in d.tb.run_dir.glob("iperf3-*.json"):
        step("logs", lambda rep=rep: shutil.copy(rep, d.out / rep.name))
    step("redis data", lambda: shutil.rmtree(d.redis_dir, ignore_errors=True))
    for log in (d.tb.run_dir / "ovs").glob("*.log"):
        step("logs", lambda log=log: shutil.copy(log, d.out / log.name))
    step("ovs run directory", lambda: shutil.rmtree(d.tb.run_dir / "ovs", ignore_errors=True))
    step("topology", lambda: topology.down(d.tb))
    return errors


def run(duration_s: float | None, port: int, screenshot: Path | None, *,
        out: Path = RESULTS / "runs" / "demo", webui_dist: Path = WEBUI_DIST, fabric: bool = False) -> int:
    """The whole demo; 0 when it ran and everything stopped cleanly. The result
    document (the table's figures) is written to <out>/demo.json."""
    bounded = duration_s if duration_s is not None else MAX_RUN_S
    if not 0 < bounded <= MAX_RUN_S:
        raise ValueError(f"DURATION {duration_s!r}: expected 0 < DURATION <= {MAX_RUN_S:g} seconds")
    if os.environ.get("TESTBED_LOCK", "1") != "0":
        take_lock()
    # Its own namespace prefix (not `make experiment`'s default), so that nothing
    # run with the default prefix can take down the demo's topology or run directory.
    tb = topology.Testbed(topology.default_prefix() if os.environ.get("TESTBED_PREFIX") else DEMO_PREFIX)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        if old.is_file():
            old.unlink()
    d = Demo(tb, out, tb.run_dir / "demo-redis", tb.run_dir / "demo-redis.sock", webui_dist, fabric=fabric)
    doc: dict[str, Any] | None = None
    finished: bool | None = None   # set once the traffic ran: until Ctrl-C (False) or to its end (True)
    try:
        topology.up(tb, cc="cubic", appl=topology.APPL_FOR_BACKEND["dpdk"])
        r = start_redis(d)
        _say(f"redis-server (AOF) on unix socket {d.redis_sock}")
        url, password = start_controller(d, free_port(port))
        d.emu = wlan.start(tb, out)
        if d.emu is None:
            raise RuntimeError(f"the WLAN emulator is not built ({wlan.WLAN_EMU}): make -C testbed build")
        version = start_dataplane(d, r)
        _say(f"adwiser-dp (DPDK, net_af_packet) in {tb.ns('appl')} runs version {version} of the controller"
             + (" behind Open vSwitch (userspace datapath) and the fabric manager" if fabric else ""))
        start_traffic(d, bounded)
        print(f"\n  Dashboard: {url}\n  Log in as {ADMIN} / {password}   (created with the controller's "
              f"create-admin CLI)\n  Downlink TCP to sta1 and sta2 through the appliance "
              f"{'for %g s' % duration_s if duration_s else 'until Ctrl-C (at most %g s)' % MAX_RUN_S}"
              f"; Ctrl-C stops it early.\n", flush=True)
        shot_done = screenshot is None

        def maybe_screenshot(elapsed: float) -> None:
            nonlocal shot_done
            if not shot_done and elapsed >= min(20.0, bounded / 2):
                shot_done = True
                take_screenshot(url, password, screenshot)  # type: ignore[arg-type]

        t0 = time.monotonic()
        finished = wait_traffic(d, r, bounded, maybe_screenshot)
    except KeyboardInterrupt:
        _say("interrupted before the traffic started")
    finally:
        # The cleanup starts with collect, which stops the transfers; Ctrl-C or SIGTERM
        # from here on waits until the teardown is done.
        with signals.stopping():
            try:
                if finished is not None:
                    doc = collect(d, r, not finished, time.monotonic() - t0)
            finally:
                _say("tearing down (dataplane, emulator, controller, redis, namespaces)")
                errors = teardown(d)
                for e in errors:
                    print(f"demo: cleanup: {e}", file=sys.stderr)
    if doc is None:
        return 1
    add_link_figures(doc, d.stats["emu"])
    doc["dataplane"] = d.stats["dp"] or None
    result_file.write_json(out / "demo.json", doc)
    print("\n" + results_table(doc) + f"\n\nLogs, emulator and dataplane stats: {out}")
    return 1 if errors else 0


def take_screenshot(url: str, password: str, path: Path) -> None:
    """The Live page in Debian's chromium (webui/e2e/screenshot.mjs)."""
    r = subprocess.run(["node", str(REPO / "webui" / "e2e" / "screenshot.mjs"), url, ADMIN, password, str(path)],
                       capture_output=True, text=True, timeout=90)
    _say(f"screenshot of the Live page: {path}" if r.returncode == 0
         else f"screenshot failed: {(r.stderr or r.stdout).strip()[-500:]}")


def main(argv: list[str] | None = None) -> int:
    signals.exit_on_signals()  # SIGINT, SIGTERM: every `finally` stops what it started, and is not cut short
    ap = argparse.ArgumentParser(prog="runner.appliance_demo", description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=None,
                    help=f"seconds of traffic (default: until Ctrl-C, at most {MAX_RUN_S:g})")
    ap.add_argument("--port", type=int, default=int(os.environ.get("DEMO_PORT", "8080")),
                    help="dashboard port on 127.0.0.1 (default 8080, or a free one if taken)")
    ap.add_argument("--fabric", choices=("none", "ovs"), default=os.environ.get("FABRIC", "none"),
                    help="ovs: Open vSwitch in front of the dataplane with the controller's fabric manager "
                         "(fail-open); default none: the dataplane takes the ports itself")
    ap.add_argument("--screenshot", type=Path, default=None,
                    help="also save a chromium screenshot of the Live page here, 20 s into the run")
    args = ap.parse_args(argv)
    try:
        return run(args.duration, args.port, args.screenshot, fabric=args.fabric == "ovs")
    except (ValueError, RuntimeError, OSError, redis.RedisError) as e:
        print(f"demo: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
