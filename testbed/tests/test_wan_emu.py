"""wan-emu, the user-space WAN: the configured one-way delay shows in the RTT,
the rate limit caps a real TCP transfer, bad options are refused, and SIGTERM
ends it with its counters written."""
from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess

from runner import iperf, topology, wan
from runner.shell import ns_run


def _ping_rtts_ms(ns: str, dst: str, count: int) -> list[float]:
    out = ns_run(ns, ["ping", "-c", str(count), "-i", "0.05", "-W", "3", dst], timeout=30).stdout
    return [float(m) for m in re.findall(r"time=([0-9.]+) ms", out)]


def test_rtt_is_twice_the_configured_delay(testbed: topology.Testbed) -> None:
    ns_run(testbed.ns("server"), ["ping", "-c", "1", "-W", "2", "198.18.0.11"])  # resolve ARP first
    w = wan.start(testbed, delay_ms=40, rate_mbit=100)
    try:
        rtts = _ping_rtts_ms(testbed.ns("server"), "198.18.0.11", 20)
    finally:
        stats = wan.stop(w)
    assert len(rtts) >= 18
    # Nothing can come back before 2 x 40 ms; a loaded 2-core VM may add a few ms.
    assert min(rtts) >= 79.9
    assert statistics.median(rtts) < 95.0
    assert stats["a_to_b"]["tx_frames"] >= 18 and stats["b_to_a"]["tx_frames"] >= 18


def test_rate_limit_caps_tcp_throughput(testbed: topology.Testbed) -> None:
    w = wan.start(testbed, delay_ms=2, rate_mbit=40)
    try:
        run = iperf.start(testbed.run_dir, iperf.Transfer(
            label="wan-rate", sender_ns=testbed.ns("server"), receiver_ns=testbed.ns("sta1"),
            receiver_ip="198.18.0.11", port=5201, duration_s=4))
        report = iperf.finish(run)
    finally:
        stats = wan.stop(w)
    mbps = iperf.received_mbps(report)
    # TCP goodput over a 40 Mbit/s Ethernet bottleneck is at most ~38.3 Mbit/s
    # (1448 payload bytes per 1514-byte frame); the veths alone carry > 1 Gbit/s.
    assert 25.0 < mbps < 40.0, mbps
    assert stats["a_to_b"]["tx_bytes"] > 4 * 25e6 / 8


def test_without_wan_the_path_is_fast(testbed: topology.Testbed) -> None:
    rtts = _ping_rtts_ms(testbed.ns("server"), "198.18.0.12", 5)
    assert statistics.median(rtts) < 5.0


def test_invalid_options_are_refused_with_their_name() -> None:
    bad_delay = subprocess.run([str(wan.WAN_EMU), "--if-a", "x", "--if-b", "y", "--delay-ms", "abc"],
                               capture_output=True, text=True, timeout=10)
    assert bad_delay.returncode == 2 and "--delay-ms" in bad_delay.stderr
    missing = subprocess.run([str(wan.WAN_EMU), "--if-a", "x"], capture_output=True, text=True,
                             timeout=10)
    assert missing.returncode == 2 and "--if-b" in missing.stderr


def test_unknown_interface_is_named(testbed: topology.Testbed) -> None:
    proc = subprocess.run(["ip", "netns", "exec", testbed.ns("wan"), str(wan.WAN_EMU),
                           "--if-a", "wan0", "--if-b", "nosuch0"],
                          capture_output=True, text=True, timeout=10)
    assert proc.returncode == 1 and "no such interface: nosuch0" in proc.stderr


def _cpu_ticks(pid: int) -> int:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime, clock ticks


def test_idle_wan_emu_sleeps_instead_of_spinning(testbed: topology.Testbed) -> None:
    import time
    w = wan.start(testbed, delay_ms=75, rate_mbit=200)
    try:
        before = _cpu_ticks(w.proc.pid)
        time.sleep(2.0)
        used = _cpu_ticks(w.proc.pid) - before
    finally:
        wan.stop(w)
    # A busy loop would burn ~200 ticks in 2 s; blocked in ppoll it uses ~none.
    assert used <= 5, used


def _send_while_stopped(testbed: topology.Testbed, w: wan.WanEmu, datagrams: int, size: int,
                        then: signal.Signals | None = None) -> None:
    """UDP datagrams from server to the first STA while wan-emu is stopped (SIGSTOP: a descheduled loop); `then`
    is sent to it before it continues."""
    ns_run(testbed.ns("server"), ["ping", "-c", "1", "-W", "2", "198.18.0.11"])  # ARP resolved first
    os.kill(w.proc.pid, signal.SIGSTOP)
    try:
        ns_run(testbed.ns("server"), ["python3", "-c", (
            "import socket\n"
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            f"for i in range({datagrams}):\n"
            f"    s.sendto(b'x' * {size}, ('198.18.0.11', 9))\n")], timeout=60)
        if then is not None:
            os.kill(w.proc.pid, then)
    finally:
        os.kill(w.proc.pid, signal.SIGCONT)


def test_frames_the_kernel_dropped_before_wan_emu_read_them_are_counted(testbed: topology.Testbed) -> None:
    # wan-emu stopped (a descheduled loop) while 20000 datagrams arrive: its receive buffer overflows and the
    # kernel drops the rest; those frames were counted nowhere (rx_frames and every drop counter said nothing)
    import time
    w = wan.start(testbed, delay_ms=2, rate_mbit=200)
    try:
        _send_while_stopped(testbed, w, datagrams=20000, size=1400)
        time.sleep(1.0)
    finally:
        stats = wan.stop(w)
    d = stats["a_to_b"]
    assert d["rx_dropped_kernel"] > 0
    assert d["rx_frames"] + d["rx_dropped_kernel"] >= 20000, d


def test_long_delay_departs_on_time_without_realtime_priority(testbed: topology.Testbed) -> None:
    # Normal scheduling (the CLI's default, and the fallback when SCHED_FIFO is refused): ppoll() gives a
    # timeout 1/1000 of its length as timer slack (1/200 for a niced process), so waking 200 µs before a
    # departure 400 ms away was not early enough and a lone frame left about 0.2 ms (niced: 1.8 ms) late.
    # wan-emu runs niced here, as a background emulator may: with 2 s of delay the slack is then 10 ms, and a
    # frame timed by ppoll's timeout left 2.2 ms late (p50, measured), while one timed by the timerfd leaves
    # after the host's wake-up latency (0.1-0.2 ms here): the bound sits between the two, far from both.
    ns_run(testbed.ns("server"), ["ping", "-c", "1", "-W", "2", "198.18.0.11"])  # resolve ARP first
    own = os.getpriority(os.PRIO_PROCESS, 0)
    os.setpriority(os.PRIO_PROCESS, 0, 10)  # inherited by wan-emu at its start
    try:
        w = wan.start(testbed, delay_ms=2000, rate_mbit=200, rt_priority=0)
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, own)
    try:
        # 0.5 s apart: each frame is alone in its direction, so every wait is a long one.
        out = ns_run(testbed.ns("server"), ["ping", "-c", "6", "-i", "0.5", "-W", "8", "198.18.0.11"],
                     timeout=40).stdout
        rtts = [float(m) for m in re.findall(r"time=([0-9.]+) ms", out)]
    finally:
        stats = wan.stop(w)
    assert len(rtts) >= 5
    for d in ("a_to_b", "b_to_a"):
        assert stats[d]["tx_frames"] >= 5
        assert stats[d]["late_p50_us"] < 1000, stats[d]


def _refused(flag: str, value: str) -> subprocess.CompletedProcess[str]:
    # Interfaces that do not exist: an option accepted by mistake shows as exit 1 ("no such interface").
    return subprocess.run([str(wan.WAN_EMU), "--if-a", "nosuch0", "--if-b", "nosuch1", flag, value],
                          capture_output=True, text=True, timeout=10)


def test_nan_option_values_are_refused_with_their_name() -> None:
    # NaN fails both `v < min` and `v > max`, so it passed the range check and was converted to an integer (UB).
    for flag in ("--delay-ms", "--rate-mbit", "--queue-bytes", "--slots", "--rt-priority"):
        proc = _refused(flag, "nan")
        assert proc.returncode == 2 and flag in proc.stderr, (flag, proc.stderr)


def test_rate_below_one_bit_per_second_is_refused_not_unlimited() -> None:
    # 1e-7 Mbit/s is 0.1 bit/s, which truncated to 0 bit/s: the link ran unlimited instead of nearly closed.
    proc = _refused("--rate-mbit", "1e-7")
    assert proc.returncode == 2 and "--rate-mbit" in proc.stderr, proc.stderr
    assert _refused("--rate-mbit", "0").returncode == 1  # 0 is unlimited, as documented


def test_integer_options_refuse_fractions() -> None:
    # Truncated before: --queue-bytes 0.5 became 0, which means an unbounded queue.
    for flag, value in (("--queue-bytes", "0.5"), ("--slots", "2.5"), ("--rt-priority", "1.5")):
        proc = _refused(flag, value)
        assert proc.returncode == 2 and flag in proc.stderr, (flag, proc.stderr)
    assert _refused("--queue-bytes", "2e6").returncode == 1  # an integral value in any notation is fine


def test_frames_waiting_in_the_socket_at_exit_are_counted(testbed: topology.Testbed) -> None:
    # SIGTERM while 200 frames sat unread in the receive socket: the loop ended without reading them, so they
    # were in no counter (rx_frames and the drops showed none of the 200).
    w = wan.start(testbed, delay_ms=2, rate_mbit=200)
    try:
        _send_while_stopped(testbed, w, datagrams=200, size=100, then=signal.SIGTERM)
        w.proc.popen.wait(timeout=10)
    finally:
        stats = wan.stop(w)
    d = stats["a_to_b"]
    assert d["rx_frames"] + d["rx_dropped_kernel"] >= 200 + 1, d
    assert d["rx_frames"] == d["tx_frames"] + d["tx_errors"] + d["held_at_exit"] + d["drop_queue"] \
        + d["drop_ring"] + d["drop_oversize"], d


def test_stats_json_escapes_interface_names(prefix: str, tmp_path) -> None:
    # The kernel allows a quote or a backslash in an interface name; written raw, the stats were no JSON.
    ns = f"{prefix}jn"
    names = ('q"0', "b\\1")
    stats = tmp_path / "wan-emu.stats.json"
    subprocess.run(["ip", "netns", "add", ns], check=True, timeout=10)
    try:
        ns_run(ns, ["ip", "link", "add", names[0], "type", "veth", "peer", "name", names[1]])
        for name in names:
            ns_run(ns, ["ip", "link", "set", name, "up"])
        proc = subprocess.Popen(["ip", "netns", "exec", ns, str(wan.WAN_EMU), "--if-a", names[0], "--if-b", names[1],
                                 "--stats", str(stats)], stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None and "<->" in proc.stderr.readline()  # its start line: running
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
        assert proc.returncode == 0
    finally:
        subprocess.run(["ip", "netns", "del", ns], check=False, timeout=10)
    written = json.loads(stats.read_text())
    assert (written["if_a"], written["if_b"]) == names


def test_one_interface_for_both_sides_is_refused_naming_the_options() -> None:
    # Both sockets bound to one interface: every frame it received went back out of it twice, once per direction.
    proc = subprocess.run([str(wan.WAN_EMU), "--if-a", "nosuch0", "--if-b", "nosuch0"],
                          capture_output=True, text=True, timeout=10)
    assert proc.returncode == 2 and "--if-a" in proc.stderr and "--if-b" in proc.stderr, proc.stderr


def test_unwritable_stats_file_is_refused_at_start_naming_the_option(tmp_path) -> None:
    # Opened only at exit: the run went its whole length and its counters were lost at the end.
    proc = _refused("--stats", str(tmp_path / "no-such-dir" / "stats.json"))
    assert proc.returncode == 2 and "--stats" in proc.stderr, proc.stderr
