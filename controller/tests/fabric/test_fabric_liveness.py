"""The watchdog's verdicts on the dataplane's liveness (no root needed: real child processes stand in
for the dataplane's pid, port samples are given)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator

import pytest

from adwiser_controller.fabric.liveness import (
    Heartbeat, HeartbeatInvalid, LivenessJudge, PortSample, parse_heartbeat, process_state)

MS = 1_000_000
T0 = 1_800_000_000 * 1_000_000_000


def ports(into: int = 0, out: int = 0, down: tuple[str, ...] = ()) -> PortSample:
    return PortSample(all_up=not down, down=down, into_dp=into, out_of_dp=out)


@pytest.fixture
def child() -> Iterator[int]:
    p = subprocess.Popen(["sleep", "30"])
    try:
        yield p.pid
    finally:
        p.kill()
        p.wait()


def beat(pid: int, at_ns: int) -> Heartbeat:
    return Heartbeat(ts_ns=at_ns, pid=pid, version=1, backend="dpdk")


def test_fresh_heartbeat_of_a_running_process_is_healthy(child: int) -> None:
    v = LivenessJudge().judge(T0, beat(child, T0 - 150 * MS), True, ports())
    assert v.healthy, v.reason


def test_without_the_pid_check_a_heartbeat_older_than_stale_ms_is_dead_long_before_the_key_expires() -> None:
    v = LivenessJudge(stale_ms=600, check_pid=False).judge(T0, beat(12345, T0 - 700 * MS), True, ports())
    assert not v.healthy and "stale (700 ms old)" in v.reason


def test_a_late_heartbeat_of_a_visibly_running_process_is_put_down_to_a_busy_host(child: int) -> None:
    j = LivenessJudge(stale_ms=600, stale_ms_local=2000)
    assert j.judge(T0, beat(child, T0 - 1500 * MS), True, ports()).healthy
    v = j.judge(T0, beat(child, T0 - 2100 * MS), True, ports())
    assert not v.healthy and "stale (2100 ms old)" in v.reason


def test_missing_heartbeat_is_dead(child: int) -> None:
    v = LivenessJudge().judge(T0, None, True, ports())
    assert not v.healthy and v.reason == "no heartbeat in Redis"


def test_killed_process_is_seen_at_once_despite_a_fresh_heartbeat() -> None:
    p = subprocess.Popen(["sleep", "30"])
    p.kill()
    p.wait()
    v = LivenessJudge().judge(T0, beat(p.pid, T0), True, ports())
    assert not v.healthy and "is gone" in v.reason


def test_stopped_process_is_hung(child: int) -> None:
    os.kill(child, signal.SIGSTOP)
    try:
        for _ in range(200):  # the signal is delivered asynchronously
            if process_state(child) == "T":
                break
            time.sleep(0.01)
        assert process_state(child) == "T"
        v = LivenessJudge().judge(T0, beat(child, T0), True, ports())
        assert not v.healthy and "is stopped" in v.reason
    finally:
        os.kill(child, signal.SIGCONT)


def test_a_dataplane_port_down_is_dead(child: int) -> None:
    v = LivenessJudge().judge(T0, beat(child, T0), True, ports(down=("fb-ap2",)))
    assert not v.healthy and "fb-ap2" in v.reason


def test_frames_in_and_none_out_for_stall_ms_is_a_stall(child: int) -> None:
    j = LivenessJudge(stall_ms=600)
    assert j.judge(T0, beat(child, T0), True, ports(100, 90)).healthy
    # Frames keep going in, nothing comes out any more.
    for k, into in enumerate(range(110, 200, 10), start=1):
        t = T0 + k * 100 * MS
        v = j.judge(t, beat(child, t), True, ports(into, 90))
    assert not v.healthy and v.stall, v.reason


def test_frames_coming_out_again_end_the_stall_clock(child: int) -> None:
    j = LivenessJudge(stall_ms=600)
    out = 90
    for k, into in enumerate(range(100, 300, 10)):
        t = T0 + k * 100 * MS
        out += 10 if k % 5 == 0 else 0  # a frame-long hold (slicing), then a release
        v = j.judge(t, beat(child, t), True, ports(into, out))
        assert v.healthy, v.reason


def test_a_restarted_dataplane_is_not_blamed_for_its_dead_predecessors_stall(child: int) -> None:
    j = LivenessJudge(stall_ms=600)
    dead = child + 1_000_000  # no such process
    assert j.judge(T0, beat(child, T0), True, ports(100, 90)).healthy
    # The old process died; frames kept going into its ports (bypass floods), none came out.
    for k, into in enumerate(range(110, 200, 10), start=1):
        t = T0 + k * 100 * MS
        j.judge(t, beat(dead, t), True, ports(into, 90))
    # A new process beats: its stall clock starts now, so it is healthy at once.
    t = T0 + 20 * 100 * MS
    v = j.judge(t, beat(child, t), True, ports(200, 90))
    assert v.healthy, v.reason


def test_an_idle_dataplane_is_not_stalled(child: int) -> None:
    j = LivenessJudge(stall_ms=600)
    for k in range(20):
        t = T0 + k * 100 * MS
        into = 100 + (1 if k == 10 else 0)  # one frame that the dataplane may drop is no stall
        assert j.judge(t, beat(child, t), True, ports(into, 90)).healthy


def test_unreachable_redis_keeps_a_running_dataplane_healthy(child: int) -> None:
    j = LivenessJudge()
    assert j.judge(T0, beat(child, T0), True, ports()).healthy
    assert j.judge(T0 + 500 * MS, None, False, ports()).healthy
    # Back, but the dataplane has not reconnected yet: a stale beat within the grace is Redis's fault.
    assert j.judge(T0 + 1500 * MS, beat(child, T0), True, ports()).healthy
    # Long after the grace, a stale heartbeat is the dataplane's.
    assert not j.judge(T0 + 5000 * MS, beat(child, T0), True, ports()).healthy


def test_unreachable_redis_and_a_dead_dataplane_is_dead() -> None:
    p = subprocess.Popen(["sleep", "30"])
    j = LivenessJudge()
    assert j.judge(T0, beat(p.pid, T0), True, ports()).healthy
    p.kill()
    p.wait()
    v = j.judge(T0 + 100 * MS, None, False, ports())
    assert not v.healthy and "is gone" in v.reason


def test_no_dataplane_ever_seen_and_no_redis_is_dead() -> None:
    v = LivenessJudge().judge(T0, None, False, ports())
    assert not v.healthy and "no dataplane process known" in v.reason


@pytest.mark.parametrize("raw, message", [
    (b"not json", "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (json.dumps({"pid": 1}).encode(), "ts_ns must be a positive integer"),
    (json.dumps({"ts_ns": "1", "pid": 1}).encode(), "ts_ns must be a positive integer"),
    (json.dumps({"ts_ns": 5, "pid": -3}).encode(), "pid must be a positive integer"),
])
def test_malformed_heartbeat_is_refused_with_the_reason(raw: bytes, message: str) -> None:
    with pytest.raises(HeartbeatInvalid, match=message):
        parse_heartbeat(raw)


def test_heartbeat_of_redis_md_is_parsed() -> None:
    hb = parse_heartbeat(json.dumps({"ts_ns": T0, "pid": 42, "version": 7, "backend": "nfqueue"}))
    assert hb == Heartbeat(ts_ns=T0, pid=42, version=7, backend="nfqueue")
