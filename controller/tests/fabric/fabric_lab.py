"""The namespace topology of the fabric tests: a server, an OVS appliance and two STAs.

    server ns  s0 198.18.0.1 ───── up0 ┐  appliance ns: private OVS (bridge adw0, netdev datapath),
    sta1 ns  wlan0 198.18.0.11 ─── ap1 ┤  the fabric manager, and the dataplane on dp-up/dp-ap1/dp-ap2
    sta2 ns  wlan0 198.18.0.12 ─── ap2 ┘  (veth peers of the bridge ports fb-up/fb-ap1/fb-ap2)

Redis runs on a unix socket (AOF on) that every namespace can reach. Every
process is started here and stopped by its PID; `close()` removes the
namespaces, OVS and Redis even after a failure. Names carry the test
process's PID so concurrent runs on the machine never collide.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis

from adwiser_controller.fabric.port_buffers import raised_rmem_default

CONTROLLER = Path(__file__).resolve().parents[2]
ROOT = CONTROLLER.parent
OVS_SCRIPTS = ROOT / "testbed" / "ovs"
LAB_CONFIG = ROOT / "configs" / "lab-2ap-2sta.yaml"
ADWISER_DP = ROOT / "dataplane" / "build" / "adwiser-dp"
STAND_IN = Path(__file__).resolve().parent / "heartbeat_forwarder.py"
PROBE = Path(__file__).resolve().parent / "probe_stream.py"
PY = sys.executable

SERVER_IP, STA1_IP, STA2_IP = "198.18.0.1", "198.18.0.11", "198.18.0.12"
MACS = {"srv": "02:ad:00:00:00:01", "sta1": "02:ad:00:00:01:01", "sta2": "02:ad:00:00:02:01"}
APPLIANCE = "lab"
BRIDGE = "adw0"
DP_PORTS = {"uplink": "dp-up", "ap1": "dp-ap1", "ap2": "dp-ap2"}


def wait_for(cond: Callable[[], Any], timeout_s: float, what: str, step_s: float = 0.05) -> Any:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(step_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def stop_pid(pid: int, sig: int = signal.SIGTERM, timeout_s: float = 5) -> None:
    """Stop one process this lab started (it may be stopped by SIGSTOP: continue it so it can exit)."""
    try:
        os.kill(pid, sig)
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        return
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                return
        except ChildProcessError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


class Lab:
    def __init__(self, dataplane: str, prefix: str | None = None):
        self.dataplane = dataplane  # "stand-in" or "adwiser-dp"
        self.prefix = prefix or f"adwfab{os.getpid()}"
        self.ns = {n: f"{self.prefix}-{n}" for n in ("srv", "app", "sta1", "sta2")}
        self.dir = Path(f"/tmp/{self.prefix}-{dataplane}")
        self.ovs_dir = self.dir / "ovs"
        self.redis_dir = self.dir / "redis"
        self.redis_sock = self.redis_dir / "redis.sock"
        self.pids: dict[str, int] = {}
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.dp_starts = 0
        self.ovs_started = False
        self._r: redis.Redis | None = None

    # ------------------------------------------------------------ building

    def run(self, ns: str, *argv: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        res = subprocess.run(["ip", "netns", "exec", self.ns[ns], *argv], capture_output=True, text=True,
                             timeout=timeout)
        if check and res.returncode != 0:
            raise AssertionError(f"[{ns}] {' '.join(argv)} failed ({res.returncode}): {res.stderr.strip()}")
        return res

    def spawn(self, name: str, ns: str, *argv: str, log: str | None = None) -> subprocess.Popen[bytes]:
        out = open(self.dir / (log or f"{name}.log"), "ab")
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[ns], *argv], stdout=out, stderr=subprocess.STDOUT)
        out.close()
        self.procs[name] = p
        self.pids[name] = p.pid  # `ip netns exec` execs the command: same pid
        return p

    def _link(self, ns_a: str, if_a: str, ns_b: str, if_b: str) -> None:
        subprocess.run(["ip", "link", "add", if_a, "netns", self.ns[ns_a], "type", "veth", "peer", "name", if_b,
                        "netns", self.ns[ns_b]], check=True, capture_output=True)
        for ns, ifn in ((ns_a, if_a), (ns_b, if_b)):
            # Frames are handed to AF_PACKET readers (OVS netdev, the dataplane): no super-frames.
            self.run(ns, "ethtool", "-K", ifn, "tso", "off", "gso", "off", "gro", "off", "tx", "off", "rx", "off",
                     check=False)
            self.run(ns, "ip", "link", "set", ifn, "up")

    def create(self) -> None:
        if self.dir.exists():
            shutil.rmtree(self.dir)
        self.redis_dir.mkdir(parents=True)
        for ns in self.ns.values():
            subprocess.run(["ip", "netns", "add", ns], check=True, capture_output=True)
        for ns in self.ns:
            self.run(ns, "ip", "link", "set", "lo", "up")
        self._link("srv", "s0", "app", "up0")
        self._link("sta1", "wlan0", "app", "ap1")
        self._link("sta2", "wlan0", "app", "ap2")
        for ns, ifn, ip in (("srv", "s0", SERVER_IP), ("sta1", "wlan0", STA1_IP), ("sta2", "wlan0", STA2_IP)):
            self.run(ns, "ip", "link", "set", ifn, "address", MACS[ns])
            self.run(ns, "ip", "addr", "add", f"{ip}/24", "dev", ifn)
            self.run(ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        self.start_redis()
        with raised_rmem_default():
            # Before the script: it detaches ovsdb-server and ovs-vswitchd before the steps that can fail
            # (ovs-vsctl init, the wait for vswitchd), and close() must stop whatever it started
            # (ovs-stop.sh goes by the pid files that exist).
            self.ovs_started = True
            subprocess.run([str(OVS_SCRIPTS / "ovs-start.sh"), str(self.ovs_dir), self.ns["app"]], check=True,
                           capture_output=True)
            self.start_manager()
            self.wait_for_ovs_port_sockets()

    def start_redis(self) -> None:
        p = subprocess.Popen(["redis-server", "--port", "0", "--unixsocket", str(self.redis_sock),
                              "--unixsocketperm", "700", "--dir", str(self.redis_dir), "--appendonly", "yes",
                              "--appendfsync", "always", "--save", ""],
                             stdout=open(self.dir / "redis.log", "ab"), stderr=subprocess.STDOUT)
        self.procs["redis"] = p
        self.pids["redis"] = p.pid
        self._r = redis.Redis(unix_socket_path=str(self.redis_sock), socket_timeout=2)
        wait_for(self._redis_up, 10, "redis-server")

    @property
    def r(self) -> redis.Redis:
        """A client of the lab's Redis (whichever redis-server is running now)."""
        assert self._r is not None, "Redis was never started"
        return self._r

    def _redis_up(self) -> bool:
        try:
            return bool(self.r.ping())
        except redis.RedisError:
            return False

    def stop_redis(self) -> None:
        stop_pid(self.pids.pop("redis"))
        self.procs.pop("redis", None)

    def start_manager(self) -> None:
        self.spawn("manager", "app", PY, "-m", "adwiser_controller.fabric", "run", "--config", str(LAB_CONFIG),
                   "--uplink", "up0", "--bridge", BRIDGE, "--run-dir", str(self.ovs_dir),
                   "--redis", f"unix:{self.redis_sock}", "--duration-s", "600")
        wait_for(lambda: self.fabric_status() is not None, 15, "the fabric manager's first status")

    def start_dataplane(self) -> int:
        self.dp_starts += 1
        for f in ("dp.pid",):
            (self.dir / f).unlink(missing_ok=True)
        if self.dataplane == "stand-in":
            self.spawn("dp", "app", PY, str(STAND_IN), "--config", str(LAB_CONFIG), "--uplink", DP_PORTS["uplink"],
                       "--ap", f"ap1={DP_PORTS['ap1']}", "--ap", f"ap2={DP_PORTS['ap2']}",
                       "--redis", f"unix:{self.redis_sock}", "--pid-file", str(self.dir / "dp.pid"),
                       "--run-s", "600", log="dp.log")
        else:
            conf = self.dir / "lab.json"
            if not conf.exists():
                subprocess.run([PY, "-m", "adwiser_controller", "render", str(LAB_CONFIG), "-o", str(conf)],
                               check=True, cwd=CONTROLLER, capture_output=True)
            self.spawn("dp", "app", str(ADWISER_DP), "--no-huge", "-m", "512", "--no-pci",
                       "--log-level=lib.eal:error", "--file-prefix", self.dpdk_file_prefix(self.dp_starts),
                       f"--vdev=net_af_packet0,iface={DP_PORTS['uplink']}",
                       f"--vdev=net_af_packet1,iface={DP_PORTS['ap1']}",
                       f"--vdev=net_af_packet2,iface={DP_PORTS['ap2']}", "--",
                       "--config", str(conf), "--uplink", DP_PORTS["uplink"], "--ap", f"ap1={DP_PORTS['ap1']}",
                       "--ap", f"ap2={DP_PORTS['ap2']}", "--redis", f"unix:{self.redis_sock}",
                       "--total-num-mbufs", "8192", "--pid-file", str(self.dir / "dp.pid"),
                       "--stats", str(self.dp_stats()), log="dp.log")
        pid = self.pids["dp"]
        wait_for(lambda: (self.heartbeat() or {}).get("pid") == pid, 20, f"a heartbeat from dataplane pid {pid}")
        return pid

    def dpdk_file_prefix(self, start: int) -> str:
        return f"{self.prefix}dp{start}"

    def remove_dpdk_runtime_dirs(self) -> None:
        """The DPDK runtime directory of every adwiser-dp this lab started (one --file-prefix per start), once
        they have exited: rte_eal_cleanup leaves /var/run/dpdk/<prefix> behind (config, hugepage_info)."""
        if self.dataplane != "adwiser-dp" or "dp" in self.pids:
            return
        for start in range(1, self.dp_starts + 1):
            shutil.rmtree(Path("/var/run/dpdk") / self.dpdk_file_prefix(start), ignore_errors=True)

    def dp_stats(self) -> Path:
        """Where the current adwiser-dp run writes its counters at a clean exit (--stats)."""
        return self.dir / f"dp-stats-{self.dp_starts}.json"

    def restart_vswitchd(self) -> None:
        """Stop ovs-vswitchd alone (by its pid file) and start it again: the bridge comes back without flows."""
        pid = int((self.ovs_dir / "ovs-vswitchd.pid").read_text())
        stop_pid(pid)
        with raised_rmem_default():
            subprocess.run([str(OVS_SCRIPTS / "ovs-start.sh"), str(self.ovs_dir), self.ns["app"]], check=True,
                           capture_output=True)
            self.wait_for_ovs_port_sockets()

    def wait_for_ovs_port_sockets(self) -> None:
        """Until ovs-vswitchd reads every bridge port (uplink, APs, dataplane veths) through its socket."""
        ports = {"up0", "ap1", "ap2", *(f"fb-{role}" for role in ("up", "ap1", "ap2"))}

        def opened() -> bool:
            out = self.run("app", "ss", "-0", "-a", "-p", "-H", check=False).stdout
            return ports <= {ln.split()[4].removeprefix("*:") for ln in out.splitlines()
                             if '"ovs-vswitchd"' in ln and len(ln.split()) > 4}
        wait_for(opened, 15, f"ovs-vswitchd to open its ports {sorted(ports)}")

    def close(self, keep_logs: bool = False) -> None:
        for name in ("dp", "manager", "iperf-s", "iperf-c", "probe-s", "probe-r"):
            if name in self.pids:
                stop_pid(self.pids.pop(name))
        if self.ovs_started:
            subprocess.run([str(OVS_SCRIPTS / "ovs-stop.sh"), str(self.ovs_dir)], capture_output=True)
        if "redis" in self.pids:
            self.stop_redis()
        self.remove_dpdk_runtime_dirs()
        for ns in self.ns.values():
            # Whatever still runs in the lab's own namespaces was started by it: stop it by PID before the
            # namespace goes, or it would keep running (and keep its files) with no network.
            pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
            for pid in pids:
                if pid.isdigit() and int(pid) != os.getpid():
                    stop_pid(int(pid))
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        if keep_logs:
            print(f"fabric lab logs kept in {self.dir}", file=sys.stderr)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)

    # ------------------------------------------------------------ observing

    def heartbeat(self) -> dict[str, Any] | None:
        try:
            raw = self.r.get(f"adwiser:appliance:{APPLIANCE}:heartbeat") if self._r else None
        except redis.RedisError:
            return None
        return json.loads(raw) if raw else None

    def fabric_status(self) -> dict[str, Any] | None:
        try:
            raw = self.r.get(f"adwiser:appliance:{APPLIANCE}:fabric") if self._r else None
        except redis.RedisError:
            return None
        return json.loads(raw) if raw else None

    def counter(self, ifname: str, which: str) -> int:
        return int(self.run("app", "cat", f"/sys/class/net/{ifname}/statistics/{which}").stdout)

    def flows(self) -> str:
        return self.run("app", "ovs-ofctl", "-O", "OpenFlow14", "dump-flows", "--names",
                        f"unix:{self.ovs_dir}/{BRIDGE}.mgmt").stdout

    def mode(self) -> str | None:
        """The mode the installed flow table is in, read from OVS itself."""
        table = self.flows().replace('"', "")
        if f"dl_dst={MACS['sta1']} actions=output:fb-up" in table:
            return "steered"
        if f"dl_dst={MACS['sta1']} actions=output:ap1" in table:
            return "bypass"
        return None

    def manager_events(self) -> list[dict[str, Any]]:
        out = []
        for line in (self.dir / "manager.log").read_text().splitlines():
            if line.startswith("{"):
                out.append(json.loads(line))
        return out
