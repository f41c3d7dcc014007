"""The fabric manager: builds the bridge, keeps its flows in step with the topology, fails open.

One loop, one poll every `poll_ms` (100 ms): read the dataplane's heartbeat
and the active configuration version from Redis (one round trip), sample the
dataplane's ports, ask the liveness judge, and switch the whole flow table
when the verdict changes:

- steered -> bypass at the first unhealthy verdict, so the interruption is
  the detection time (one poll for a killed or stopped process, stall_ms
  for a hung one, stale_ms after the last beat where the process cannot be
  seen) plus one bundle replace; and at a healthy verdict whose heartbeat
  names another process than the one the traffic was steered to, running
  another version than `active` names: a dataplane that died and came back
  between two polls is never judged unhealthy, yet it is a restarted one,
  on its --config file (one already on the active version keeps the traffic);
- bypass -> steered after `healthy_polls` healthy verdicts in a row; after a
  stall (frames in, none out) only once the dataplane restarted (a new instance) or
  `stall_holddown_s` passed, so a broken dataplane is not flapped in and out;
  and only once the heartbeat's `version` is the one `active` names: a
  restarted dataplane runs its --config file (version 0) until it has swapped
  in `desired`, while `active` still names its predecessor's version, and the
  flows of that version would send it STAs it does not know yet. The status's
  reason says so while the manager waits (logged `steer_back_waits`).

"Another process" and "restarted" mean another dataplane instance, the
heartbeat's pid and `started_ns` together (LivenessJudge.last_instance): a
dataplane in a container often comes back with its predecessor's pid.

The topology followed is the configuration the dataplane acknowledged
(`adwiser:appliance:<id>:active`, controller/REDIS.md), since the dataplane
can only forward STAs it knows; until there is one, the file given at start.
At start the active version is read before the bridge is touched, so a
restarted manager builds the ports and the one table of that version's
topology instead of the file's.
While `active` is 0 (the dataplane runs its own `--config` file) the topology
in force is kept, but the manager cannot see the file's, so its status flags
the topology as possibly stale (a STA the file adds is not steered, one it
drops still is) until a version is active again.
A document that cannot be built (invalid, or naming a port this host does
not have) is refused whole, naming the field, and the current configuration,
ports and table kept: nothing is touched before every check has passed. The
status then names the refused version beside the one the flows still follow.
A version refused for an interface missing on this host (an AP's veth or NIC
not there yet) is looked at again at the first poll that finds that interface
present; one refused for its document (invalid, another appliance's, names
that cannot be built) cannot change and is not looked at again until
`active` names another. The
new ports are added before the table is replaced and the unused ones removed
after, so a failing OVS or `ip` command leaves the old state whole too.

OVS keeps no flows across a restart of ovs-vswitchd (and with
fail_mode=secure an empty table drops everything), so the manager watches
vswitchd's pid file at every poll and reinstalls ports and table at once
when it changes; it also rewrites the table every `resync_s` (a no-op for
OVS when nothing differs) in case anything else touched it.

The manager writes its own state to `adwiser:appliance:<id>:fabric` (JSON,
PX 3000, refreshed every second) for the controller and dashboard, and logs
every event as a JSON line on stdout. A poll whose OVS (or `ip`) command
fails still writes it: `ovs_error` then says what failed and since when, and
`mode` is the table last installed, not what the manager wants (a failed
switch is tried again at every poll), until a poll with nothing failing writes
a table or finds vswitchd answering. That last is asked at every poll (one
OpenFlow hello, ovs.py), since a write comes only at a switch or every
`resync_s`: a dead vswitchd is in the status within a poll. When it stops, the flows stay as they
are: OVS and the dataplane keep forwarding without it.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import redis

from .. import configfile, keys
from ..models import AdwiserConfig
from . import links
from .flows import Mode, compile_flows
from .liveness import HeartbeatInvalid, LivenessJudge, Verdict, parse_heartbeat, sample_ports
from .ovs import Ovs, OvsError
from .plan import PlanError, PortMissing, PortPlan, build_plan

STATUS_TTL_MS = 3000


@dataclass
class ManagerOptions:
    poll_ms: float = 100  # watchdog period, ms
    healthy_polls: int = 3  # healthy verdicts in a row before steering back
    stall_holddown_s: float = 5.0  # after a stall, wait this long (or for a new dataplane instance) before steering back
    status_every_s: float = 1.0  # refresh period of the fabric status key, s
    resync_s: float = 5.0  # period of the idempotent rewrite of the flow table, s


def log_event(event: str, **fields: Any) -> None:
    line = {"ts_ns": time.time_ns(), "mono_ns": time.monotonic_ns(), "event": event, **fields}
    print(json.dumps(line), flush=True)


def redis_from_address(addr: str, timeout_s: float = 0.25) -> redis.Redis:
    """`unix:/path`, `host:port` (the dataplane's --redis syntax) or a redis:// URL."""
    if addr.startswith("unix:") and not addr.startswith("unix://"):
        return redis.Redis(unix_socket_path=addr[5:], socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    if "://" in addr:
        return redis.Redis.from_url(addr, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    host, sep, port = addr.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"--redis: '{addr}' is neither unix:/path, host:port nor a redis:// URL")
    return redis.Redis(host=host, port=int(port), socket_timeout=timeout_s, socket_connect_timeout=timeout_s)


class FabricManager:
    def __init__(self, ovs: Ovs, cfg: AdwiserConfig, uplink: str, client: redis.Redis, judge: LivenessJudge,
                 opts: ManagerOptions | None = None, log: Callable[..., None] = log_event):
        self.ovs = ovs
        self.cfg = cfg
        self.uplink = uplink
        self.redis = client
        self.judge = judge
        self.opts = opts or ManagerOptions()
        self.log = log
        self.plan: PortPlan = build_plan(cfg, uplink, ovs.bridge)
        self.appliance_id = cfg.appliance_id
        # The version whose topology the flows follow (None: the file given at start) and the last `active`
        # version looked at: a refused version is looked at once, not every poll, and never counts as followed.
        self.version: int | None = None
        self.version_seen: int | None = None
        self.refused: dict[str, Any] | None = None  # {"version", "error"} of a refusal, until a version is followed
        self.awaited_port: str | None = None  # the missing interface the refusal of `version_seen` waits for
        self.topology_possibly_stale = False  # `active` is 0: the dataplane runs a file whose topology is unseen
        self._active: int | None = None  # `active` as last read (None: absent or not a number)
        self._dp_version: int | None = None  # the version the last heartbeat read says the dataplane runs
        self._waits_for: tuple[int, int] | None = None  # (dataplane's, active) version a steer-back waits on
        # The dataplane instance (pid, started_ns) the traffic was last steered to.
        self._steered_instance: tuple[int | None, int | None] | None = None
        self.mode: Mode = "bypass"
        self.mode_since_ns = time.time_ns()
        self.reason = "starting"
        self.switches = 0
        self._healthy_streak = 0
        self._last_verdict_reason: str | None = None
        self._holddown_until_ns = 0
        self._holddown_instance: tuple[int | None, int | None] | None = None
        self._status_due_ns = 0
        self._resync_due_ns = 0
        self._vswitchd_pid: int | None = None
        self._installed = False  # a table of this manager's is in OVS (until then a followed version is only taken up)
        # {"error", "since_ns"} while OVS cannot be programmed: set by a poll whose OVS or `ip` command failed,
        # cleared by one that wrote a table with none failing.
        self.ovs_error: dict[str, Any] | None = None
        self._ovs_failure: str | None = None  # this poll's failure
        self._ovs_wrote = False  # this poll wrote a table
        self._vswitchd_answered = True  # the last check of ovs-vswitchd (logged when that changes)

    def key(self, what: str) -> str:
        return keys.appliance(self.appliance_id, what)

    # ------------------------------------------------------------ building the bridge

    def setup(self) -> None:
        """Create the dataplane veths and the bridge with all the ports of the topology in force (the active
        version's if it can be built, else the file's), then install one table, of the dataplane's present state:
        steered if it is healthy now (a restarted manager does not bounce traffic that is flowing through a
        healthy dataplane), bypass otherwise."""
        self._vswitchd_pid = self.ovs.vswitchd_pid()
        self.ovs.ensure_bridge()
        self.plan = build_plan(self.cfg, self.uplink, self.ovs.bridge, held=self.ovs.ofport_requests())
        # The active version's topology is taken up before the bridge is touched: a restarted manager must not
        # take away the ports of an AP only that version has, nor install a table for the file given at start.
        hb_raw, redis_ok = self._read_redis()
        self._sync_ports()
        verdict = self._judge(hb_raw, redis_ok)
        behind = self._dataplane_behind()
        if verdict.healthy and behind is None:
            self._install("steered", f"starting: dataplane healthy (pid {self.judge.last_pid})")
        elif verdict.healthy:
            self._install("bypass", f"starting: {behind}")
        else:
            self._install("bypass", f"starting: {verdict.reason}")
        self._publish_status(time.time_ns(), redis_ok)

    def _sync_ports(self) -> None:
        self._check_host_ports(self.plan)
        self._put_ports()

    def _put_ports(self) -> None:
        """Make the bridge's ports exactly the plan's (no-flood bits included)."""
        wanted = self.plan.ofport_requests()
        for name in set(self.ovs.ports()) - set(wanted):
            self.ovs.del_port(name)
        self._add_ports(self.plan)

    @staticmethod
    def _check_host_ports(plan: PortPlan) -> None:
        """Refuse, naming the field, a plan whose uplink or AP-facing ports are not interfaces of this host."""
        if not links.exists(plan.uplink):
            raise PortMissing(plan.uplink, f"uplink: port '{plan.uplink}' does not exist in this network namespace")
        for i, ap in enumerate(plan.aps):
            if not links.exists(ap.port):
                raise PortMissing(ap.port, f"topology.aps.{i}.port: port '{ap.port}' does not exist in this network namespace")

    def _add_ports(self, plan: PortPlan) -> None:
        """Create `plan`'s veths and add the ports the bridge lacks; nothing is taken away."""
        for link in plan.dp_links():
            links.ensure_link(link)
        for name in plan.physical_ports():
            links.disable_offloads(name)
            links.make_layer2_only(name)
        present = set(self.ovs.ports())
        for name, ofport in plan.ofport_requests().items():
            if name not in present:
                self.ovs.add_port(name, ofport)
        for link in plan.dp_links():
            self.ovs.set_no_flood(link.fabric_if)

    def _install(self, mode: Mode, reason: str) -> None:
        t0 = time.monotonic_ns()
        self.ovs.replace_flows(compile_flows(self.cfg, self.plan, mode))
        self._ovs_wrote = True
        self._resync_due_ns = time.time_ns() + int(self.opts.resync_s * 1e9)
        first = not self._installed  # the mode before the first table is a placeholder, not one in force
        changed = mode != self.mode and not first
        # The status's reason is why the fabric is in its mode: a reinstall that switches nothing (a new topology,
        # vswitchd restarted) is logged with its own reason and leaves that one; the first table sets it always.
        if changed or first:
            self.reason = reason
            self.mode_since_ns = time.time_ns()
            if mode == "steered":
                self._steered_instance = self.judge.last_instance
        self._installed = True
        self.mode = mode
        if changed:
            self.switches += 1
        self.log("flows", mode=mode, switch=changed, reason=reason, version=self.version,
                 replace_ms=round((time.monotonic_ns() - t0) / 1e6, 2))
        self._status_due_ns = 0

    # ------------------------------------------------------------ following the topology

    def _follow_topology(self, active_raw: bytes | None) -> None:
        self._active = None
        if active_raw is None:
            return
        try:
            n = int(active_raw)
        except ValueError:
            return
        self._active = n
        # 0: the dataplane runs its --config file (an operator's SIGHUP, REDIS.md); there is no stored version 0 to
        # follow, so the flows keep the topology in force (self.version's, or the file given at start), which
        # may not be the file's: said in the status rather than passed over.
        if (n == 0) != self.topology_possibly_stale:
            self.topology_possibly_stale = n == 0
            if n == 0:
                self.log("dataplane_file", flows_follow=self.version)
            else:
                self.log("dataplane_file_ended", active=n)
            self._status_due_ns = 0
        if n == 0 or (n == self.version_seen and not self._awaited_port_appeared()):
            return
        self.version_seen = n
        self.awaited_port = None
        try:
            doc = cast(bytes | None, self.redis.hget(keys.version(n), "doc"))
        except redis.RedisError as exc:
            self.version_seen = None  # try again at the next poll
            self.log("topology_read_failed", version=n, error=str(exc))
            return
        try:
            held = self.ovs.ofport_requests()
        except OvsError as exc:
            self.version_seen = None  # try again at the next poll
            self.log("topology_failed", version=n, error=str(exc))
            self._ovs_failure = f"topology of version {n} failed: {exc}"
            return
        try:
            if doc is None:
                raise ValueError(f"{keys.version(n)} has no doc")
            cfg = configfile.validate_data(json.loads(doc), keys.version(n))
            if cfg.appliance_id != self.appliance_id:
                raise ValueError(f"version {n} is for appliance '{cfg.appliance_id}', not '{self.appliance_id}'")
            plan = build_plan(cfg, self.uplink, self.ovs.bridge, held=held)
            self._check_host_ports(plan)
        except (ValueError, configfile.ConfigInvalid, PlanError) as exc:
            self.refused = {"version": n, "error": str(exc)}
            if isinstance(exc, PortMissing):  # the host can still change: looked at again once the port is there
                self.awaited_port = exc.port
            self._status_due_ns = 0  # the refusal shows in the status at once
            self.log("topology_refused", version=n, error=str(exc))
            return
        if not self._installed:  # setup(): it builds the bridge and installs the one table for this topology
            self.cfg, self.plan, self.version, self.refused = cfg, plan, n, None
            return
        # The new ports join the bridge beside the old ones, the table is replaced (one atomic bundle), and
        # only then do the ports and veths the new table no longer uses go: if OVS or `ip` fails before the
        # table is in, the old configuration, ports and table are all still in place and stay current.
        old_cfg, old_plan, old_version = self.cfg, self.plan, self.version
        try:
            if plan != old_plan:
                self._add_ports(plan)
            self.cfg, self.plan, self.version = cfg, plan, n
            self._install(self.mode, f"topology of version {n}")
        except (OvsError, links.LinkError) as exc:
            self.cfg, self.plan, self.version = old_cfg, old_plan, old_version
            self.version_seen = None  # try again at the next poll
            self.log("topology_failed", version=n, error=str(exc))
            self._ovs_failure = f"topology of version {n} failed: {exc}"
            return
        self.refused = None  # the flows follow the version `active` names
        if plan != old_plan:
            # A link is its pair of names: an AP that stays keeps its veths (the dataplane has them open).
            kept = {(link.fabric_if, link.dp_if) for link in plan.dp_links()}
            try:
                for name in set(self.ovs.ports()) - set(plan.ofport_requests()):
                    self.ovs.del_port(name)
                for link in old_plan.dp_links():
                    if (link.fabric_if, link.dp_if) not in kept:
                        links.delete_link(link)
            except (OvsError, links.LinkError) as exc:  # unused ports left behind: no flow refers to them
                self.log("stale_ports_left", version=n, error=str(exc))

    def _awaited_port_appeared(self) -> bool:
        """Whether the interface whose absence refused the version `active` names exists now (one stat per
        poll): the refusal came from the host, not the document, and an interface created a moment after the
        dataplane acknowledged the version must not leave the flows on the old topology until `active` moves."""
        if self.awaited_port is None or not links.exists(self.awaited_port):
            return False
        self.log("topology_retry", version=self.version_seen, port=self.awaited_port)
        return True

    # ------------------------------------------------------------ the watchdog

    def _check_vswitchd(self) -> None:
        """Ask ovs-vswitchd whether it is there at every poll: a write shows it only at a switch or at the rewrite
        every `resync_s`, and the status must not say OVS is fine for seconds after vswitchd died."""
        try:
            self.ovs.check_vswitchd()
        except OvsError as exc:
            if self._vswitchd_answered:  # one line when it stops answering, not one per poll
                self.log("ovs_unavailable", what="ovs-vswitchd check", error=str(exc))
            self._ovs_failure = str(exc)  # a write failing later in this poll says more, and replaces it
            self._vswitchd_answered = False
            return
        self._vswitchd_answered = True

    def _keep_ovs_in_step(self, now: int) -> None:
        pid = self.ovs.vswitchd_pid()
        restarted = pid is not None and pid != self._vswitchd_pid
        try:
            if restarted:
                self._reinstall(cast(int, pid))
            else:
                self._resync(now)
        except (OvsError, links.LinkError) as exc:  # vswitchd still coming up: retried at the next poll
            self._ovs_failed(f"reinstall after ovs-vswitchd restarted (pid {pid})" if restarted
                             else "flow table rewrite", exc)

    def _reinstall(self, pid: int) -> None:
        self.log("vswitchd_restarted", pid=pid, previous=self._vswitchd_pid)
        # The bridge and its ports come back from the database; the flows and the ports' no-flood bits do
        # not. Flows first: until they are in, the bridge drops everything.
        self._install(self.mode, f"ovs-vswitchd restarted (pid {pid})")
        self.ovs.ensure_bridge()
        try:
            self._check_host_ports(self.plan)
        except PortMissing as exc:
            # The database keeps that port and vswitchd opens it once the interface is back; the no-flood
            # bits of the dataplane's ports cannot wait for it.
            self.log("port_missing", error=str(exc))
        self._put_ports()
        self._vswitchd_pid = pid  # only once table and ports are back: a failed attempt is retried next poll

    def _resync(self, now: int) -> None:
        if now >= self._resync_due_ns:
            self.ovs.replace_flows(compile_flows(self.cfg, self.plan, self.mode))
            self._ovs_wrote = True
            self._resync_due_ns = now + int(self.opts.resync_s * 1e9)

    def _ovs_failed(self, what: str, exc: Exception) -> None:
        self.log("ovs_unavailable", what=what, error=str(exc))
        self._ovs_failure = f"{what} failed: {exc}"

    def _settle_ovs_error(self, now: int) -> None:
        """The status's `ovs_error` from this poll: its failure (since the first poll of a run of failing ones), or
        none once a poll had nothing failing and either wrote a table or had ovs-vswitchd answer (every write that
        failed is tried again at the next poll, so a poll with none failing has none left owing)."""
        if self._ovs_failure is not None:
            if self.ovs_error is None or self.ovs_error["error"] != self._ovs_failure:
                since = self.ovs_error["since_ns"] if self.ovs_error is not None else now
                self.ovs_error = {"error": self._ovs_failure, "since_ns": since}
                self._status_due_ns = 0
        elif (self._ovs_wrote or self._vswitchd_answered) and self.ovs_error is not None:
            self.ovs_error = None
            self.log("ovs_available")
            self._status_due_ns = 0

    def poll(self) -> Verdict:
        self._ovs_failure, self._ovs_wrote = None, False
        verdict, redis_ok = self._observe()
        now = time.time_ns()
        self._check_vswitchd()
        self._keep_ovs_in_step(now)
        self._decide(now, verdict)
        self._settle_ovs_error(now)
        self._publish_status(now, redis_ok)
        return verdict

    def _observe(self) -> tuple[Verdict, bool]:
        hb_raw, redis_ok = self._read_redis()
        return self._judge(hb_raw, redis_ok), redis_ok

    def _read_redis(self) -> tuple[bytes | None, bool]:
        """The raw heartbeat and whether Redis answered; the active version's topology is followed on the way."""
        hb_raw = active_raw = None
        redis_ok = True
        try:
            hb_raw, active_raw = cast(list[bytes | None],
                                      self.redis.mget([self.key("heartbeat"), self.key("active")]))
        except redis.RedisError:
            redis_ok = False
        if redis_ok:
            self._follow_topology(active_raw)
        return hb_raw, redis_ok

    def _judge(self, hb_raw: bytes | None, redis_ok: bool) -> Verdict:
        heartbeat = None
        invalid: str | None = None
        if hb_raw is not None:
            try:
                heartbeat = parse_heartbeat(hb_raw)
            except HeartbeatInvalid as exc:
                invalid = str(exc)
        if redis_ok:
            self._dp_version = heartbeat.version if heartbeat is not None else None
        ports = sample_ports([link.fabric_if for link in self.plan.dp_links()])
        now = time.time_ns()
        verdict = self.judge.judge(now, heartbeat, redis_ok, ports)
        if invalid is not None:
            verdict = Verdict(False, invalid)
        return verdict

    def _decide(self, now: int, verdict: Verdict) -> None:
        # A verdict that changes without a switch (unhealthy while already in bypass, or
        # healthy during a hold-down) is logged too: it is why the traffic is not steered back.
        # Compared without its parenthesised figures, so a stale heartbeat is one line, not one per poll.
        kind = verdict.reason.split(" (", 1)[0]
        if kind != self._last_verdict_reason:
            self.log("verdict", healthy=verdict.healthy, reason=verdict.reason, mode=self.mode)
            self._last_verdict_reason = kind
        self._healthy_streak = self._healthy_streak + 1 if verdict.healthy else 0
        if self.mode == "steered" and verdict.healthy and self.judge.last_instance != self._steered_instance:
            self._steered_to_another_process()
        elif self.mode == "steered" and not verdict.healthy:
            if verdict.stall:
                self._holddown_until_ns = now + int(self.opts.stall_holddown_s * 1e9)
                self._holddown_instance = self.judge.last_instance
            self._switch("bypass", verdict.reason)
        elif self.mode == "bypass" and not verdict.healthy and self._waits_for is not None:
            self._waits_for = None  # the reason said the dataplane was healthy: it no longer is
            self.reason = verdict.reason
            self._status_due_ns = 0
        elif self.mode == "bypass" and self._healthy_streak >= self.opts.healthy_polls:
            if now < self._holddown_until_ns and self.judge.last_instance == self._holddown_instance:
                return
            behind = self._dataplane_behind()
            if behind is not None:
                waits_for = (cast(int, self._dp_version), cast(int, self._active))
                if waits_for != self._waits_for:
                    self._waits_for = waits_for
                    self.log("steer_back_waits", dataplane_version=waits_for[0], active=waits_for[1])
                    self.reason = behind  # why the traffic stays in bypass now, no longer the verdict that put it there
                    self._status_due_ns = 0
                return
            self._waits_for = None
            self._switch("steered", f"dataplane healthy (pid {self.judge.last_pid})")

    def _steered_to_another_process(self) -> None:
        """A dataplane that died and came back between two polls is never judged unhealthy, yet it is a restarted
        one: it runs its --config file until it has swapped in `desired`. Unless it already runs the version
        `active` names, it gets bypass like any restarted dataplane, and is steered back the same way."""
        if self._dataplane_behind() is None:
            self._steered_instance = self.judge.last_instance  # it knows every STA the flows steer to it
            return
        self._healthy_streak = 1  # the healthy polls before steering back are this process's
        was = self._steered_instance[0] if self._steered_instance is not None else None
        self._switch("bypass", f"dataplane restarted (pid {self.judge.last_pid}, was {was}) and runs "
                               f"version {self._dp_version}, not active version {self._active}")

    def _switch(self, mode: Mode, reason: str) -> None:
        """Install `mode`'s table; if OVS refuses, the mode stays and the next poll's verdict tries again."""
        try:
            self._install(mode, reason)
        except (OvsError, links.LinkError) as exc:
            self._ovs_failed(f"switch to {mode} ({reason})", exc)

    def _dataplane_behind(self) -> str | None:
        """Why a healthy dataplane cannot be given the steered traffic yet: it runs another version than the one
        `active` names (a restarted dataplane runs its --config file until it has swapped in `desired`, while
        `active` still names its predecessor's version). None when they match, or when either is not known (a
        dataplane whose heartbeat predates `version`; no `active` yet: the flows follow the start-up file)."""
        runs, active = self._dp_version, self._active
        if runs is None or active is None or runs == active:
            return None
        return f"dataplane healthy (pid {self.judge.last_pid}) but runs version {runs}, not active version {active}"

    def _publish_status(self, now: int, redis_ok: bool) -> None:
        if not redis_ok or now < self._status_due_ns:
            return
        status = {"mode": self.mode, "since_ns": self.mode_since_ns, "reason": self.reason,
                  "version": self.version, "refused": self.refused,
                  "topology_possibly_stale": self.topology_possibly_stale, "ovs_error": self.ovs_error,
                  "switches": self.switches,
                  "dp_pid": self.judge.last_pid, "bridge": self.ovs.bridge, "ts_ns": now}
        try:
            self.redis.set(self.key("fabric"), json.dumps(status), px=STATUS_TTL_MS)
            self._status_due_ns = now + int(self.opts.status_every_s * 1e9)
        except redis.RedisError:
            pass

    def run(self, should_stop: Callable[[], bool], deadline_s: float | None = None) -> None:
        period = self.opts.poll_ms / 1000
        end = time.monotonic() + deadline_s if deadline_s else None
        next_t = time.monotonic()
        while not should_stop() and (end is None or time.monotonic() < end):
            try:
                self.poll()
            except Exception as exc:  # one bad poll (OVS busy, odd sysfs read) must not end the watchdog
                print(f"fabric: poll failed: {exc}", file=sys.stderr, flush=True)
            next_t += period
            time.sleep(max(0.0, next_t - time.monotonic()))
            if time.monotonic() - next_t > period:
                next_t = time.monotonic()  # fell behind (e.g. the host was busy): do not burst
