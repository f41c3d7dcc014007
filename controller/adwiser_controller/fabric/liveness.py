"""Is the dataplane alive and forwarding? The watchdog's verdict, one poll at a time.

The heartbeat key (controller/REDIS.md) expires 3 s after the last write,
too late for a 1 s fail-open, so the judge reads the heartbeat's own `ts_ns`
and calls it stale after `stale_ms` (three missed 200 ms beats). On the same
host it also looks at the process named by the heartbeat's `pid` (gone,
zombie or stopped by SIGSTOP is seen at the next poll) and at the
dataplane's veths: a port that is down, or frames going into the dataplane
with none coming out for `stall_ms`, means it is not forwarding even if
something still writes the heartbeat.

With those local checks on, every way the dataplane can stop forwarding is
seen within a poll or `stall_ms`, and a late heartbeat mostly means a busy
host or a slow Redis thread, so the heartbeat is then allowed
`stale_ms_local` (2 s) before it counts: a loaded 2-core machine must not
flap the traffic between steered and bypass. Without the pid check (the
dataplane in another pid namespace) `stale_ms` applies.

When Redis itself cannot be read the judge keeps the last heartbeat's pid
and decides on the local checks alone: a Redis restart must not take the
traffic off a healthy dataplane. For `redis_grace_ms` after Redis was last
seen failing (the dataplane reconnects once a second, REDIS.md's liveness
horizon is the key's 3 s) a missing or stale heartbeat is put down to Redis,
not to the dataplane, as long as the local checks pass. Without the pid
check there is no process to look at: the heartbeat last read counts until
it is `stale_ms` old, so a Redis reply that times out once swaps no flows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

SYS_NET = Path("/sys/class/net")
PROC = Path("/proc")
STALL_MIN_PENDING_PKTS = 3  # a single dropped frame is not a stall


@dataclass(frozen=True)
class Heartbeat:
    ts_ns: int  # wall-clock time of the beat, Unix epoch ns
    pid: int | None  # dataplane process id
    version: int | None  # configuration version it runs
    backend: str  # "dpdk", "nfqueue", ...
    started_ns: int | None = None  # wall-clock time this dataplane process started, Unix epoch ns (None: older dp)

    @property
    def instance(self) -> tuple[int | None, int | None]:
        """Which dataplane process wrote the beat. The pid alone is not enough: in a container or pid namespace a
        restarted dataplane often gets its predecessor's pid (1, or another small number) back."""
        return (self.pid, self.started_ns)


class HeartbeatInvalid(ValueError):
    pass


def parse_heartbeat(raw: bytes | str) -> Heartbeat:
    try:
        doc = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise HeartbeatInvalid(f"heartbeat is not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise HeartbeatInvalid("heartbeat is not a JSON object")
    ts = doc.get("ts_ns")
    if not isinstance(ts, int) or isinstance(ts, bool) or ts <= 0:
        raise HeartbeatInvalid(f"heartbeat ts_ns must be a positive integer, got {ts!r}")
    pid = doc.get("pid")
    if pid is not None and (not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0):
        raise HeartbeatInvalid(f"heartbeat pid must be a positive integer, got {pid!r}")
    version = doc.get("version")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        version = None
    started = doc.get("started_ns")
    if started is not None and (not isinstance(started, int) or isinstance(started, bool)):
        started = None  # no identity beyond the pid, as from a dataplane that predates the field
    return Heartbeat(ts_ns=ts, pid=pid, version=version, backend=str(doc.get("backend", "")), started_ns=started)


def process_state(pid: int) -> str | None:
    """The one-letter state of /proc/<pid>/stat (R, S, D, T, t, Z, ...), None if there is no such process."""
    try:
        stat = (PROC / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None
    # The command name is in parentheses and may contain spaces.
    return stat[stat.rindex(")") + 2]


@dataclass(frozen=True)
class PortSample:
    all_up: bool  # every dataplane veth (bridge side) is operationally up
    down: tuple[str, ...]  # names of those that are not
    into_dp: int  # frames the bridge sent into the dataplane (sum of tx_packets), packets
    out_of_dp: int  # frames the dataplane sent back (sum of rx_packets), packets


def sample_ports(fabric_ifs: list[str]) -> PortSample:
    down: list[str] = []
    into = out = 0
    for name in fabric_ifs:
        d = SYS_NET / name
        try:
            oper = (d / "operstate").read_text().strip()
            into += int((d / "statistics" / "tx_packets").read_text())
            out += int((d / "statistics" / "rx_packets").read_text())
        except (FileNotFoundError, ValueError):
            down.append(name)
            continue
        if oper != "up":
            down.append(name)
    return PortSample(all_up=not down, down=tuple(down), into_dp=into, out_of_dp=out)


@dataclass(frozen=True)
class Verdict:
    healthy: bool
    reason: str  # why not healthy, or "ok"
    stall: bool = False  # the failure is frames in, nothing out


class LivenessJudge:
    """Keeps what one verdict needs from the previous polls (last pid and instance, stall clock)."""

    def __init__(self, stale_ms: float = 600, stall_ms: float = 600, check_pid: bool = True,
                 redis_grace_ms: float = 3000, stale_ms_local: float = 2000):
        self.stale_ns = int((stale_ms_local if check_pid else stale_ms) * 1e6)
        self.stall_ns = int(stall_ms * 1e6)
        self.redis_grace_ns = int(redis_grace_ms * 1e6)
        self.check_pid = check_pid
        self._redis_failed_ns: int | None = None
        self.last_pid: int | None = None
        self.last_instance: tuple[int | None, int | None] | None = None  # Heartbeat.instance of the last pid read
        self._last_beat_ns: int | None = None  # ts_ns of the newest heartbeat read
        self._last_out: int | None = None
        self._into_at_last_out = 0
        self._pending_since_ns: int | None = None

    def _stalled(self, now_ns: int, ports: PortSample) -> bool:
        if self._last_out is None or ports.out_of_dp != self._last_out or ports.into_dp < self._into_at_last_out:
            self._last_out = ports.out_of_dp
            self._into_at_last_out = ports.into_dp
            self._pending_since_ns = None
            return False
        if ports.into_dp - self._into_at_last_out >= STALL_MIN_PENDING_PKTS:
            if self._pending_since_ns is None:
                self._pending_since_ns = now_ns
            return now_ns - self._pending_since_ns > self.stall_ns
        return False

    def judge(self, now_ns: int, heartbeat: Heartbeat | None, redis_ok: bool, ports: PortSample) -> Verdict:
        """`heartbeat` is None when the key is absent (or unreadable: then `redis_ok` is False)."""
        if heartbeat is not None and heartbeat.pid is not None and heartbeat.instance != self.last_instance:
            # A new dataplane process: the frames its dead predecessor never sent on are not its stall.
            self._last_out = None
        stalled = self._stalled(now_ns, ports)
        if not redis_ok:
            self._redis_failed_ns = now_ns
        redis_excuse = (self._redis_failed_ns is not None and now_ns - self._redis_failed_ns < self.redis_grace_ns
                        and self.check_pid and self.last_pid is not None)
        if redis_ok:
            beat_problem = None
            if heartbeat is None:
                beat_problem = "no heartbeat in Redis"
            else:
                age_ms = (now_ns - heartbeat.ts_ns) / 1e6
                if age_ms * 1e6 > self.stale_ns:
                    beat_problem = f"heartbeat stale ({age_ms:.0f} ms old)"
                if heartbeat.pid is not None:
                    self.last_pid = heartbeat.pid
                    self.last_instance = heartbeat.instance
                self._last_beat_ns = max(self._last_beat_ns or 0, heartbeat.ts_ns)
            if beat_problem is not None and not redis_excuse:
                return Verdict(False, beat_problem)
        elif not self.check_pid:
            # No process to look at: the heartbeat last read stands for the dataplane until it would be stale,
            # so one slow Redis reply does not swap the flows there and back.
            if self._last_beat_ns is None or now_ns - self._last_beat_ns > self.stale_ns:
                return Verdict(False, "Redis unreachable and no fresh heartbeat read before")
        elif self.last_pid is None:
            return Verdict(False, "Redis unreachable and no dataplane process known")
        if self.check_pid and self.last_pid is not None:
            state = process_state(self.last_pid)
            if state is None or state == "Z" or state == "X":
                return Verdict(False, f"dataplane process {self.last_pid} is gone")
            if state in ("T", "t"):
                return Verdict(False, f"dataplane process {self.last_pid} is stopped")
        if not ports.all_up:
            return Verdict(False, f"dataplane port(s) down: {', '.join(ports.down)}")
        if stalled:
            return Verdict(False, f"dataplane stalled: frames went in, none came out for {self.stall_ns / 1e6:.0f} ms",
                           stall=True)
        return Verdict(True, "ok")
