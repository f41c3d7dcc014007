#!/usr/bin/env bash
# End-to-end test of adwiser-dp's NFQUEUE backend: the appliance namespace
# routes (proxy ARP, see netns_lab.sh) and queues forwarded packets with
# `iptables -A FORWARD -j NFQUEUE --queue-bypass`.  Pins:
#   - unmanaged ICMP passes;
#   - a bounded iperf3 TCP transfer completes through the scheduler;
#   - SIGTERM while packets are held gives every one of them a verdict;
#   - every packet is counted once, in total and on its port (--stats);
#   - with the daemon gone, --queue-bypass keeps traffic flowing (fail-open);
#   - SIGTERM with packets queued in the kernel but not yet read: each one is
#     accepted before the queue is unbound (unbinding drops whatever is queued);
#   - a burst the stopped daemon's socket cannot hold: what the fail-open
#     queue accepted itself is counted (--stats fail_open_pkts), so every id
#     the kernel gave is read, drained or counted.
# Usage: test_e2e_nfqueue.sh BUILD_DIR   (root; needs iperf3, iptables)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
. "$HERE/netns_lab.sh"
lab_work_dir

lab_create
lab_make_router
lab_config_json "$HERE/../../../configs/lab-2ap-2sta.yaml" "$WORK/lab.json"
lab_exec "$NS_APP" iptables -A FORWARD -j NFQUEUE --queue-num 3 --queue-bypass

ip netns exec "$NS_APP" "$BUILD/adwiser-dp" --backend nfqueue --queue-num 3 --config "$WORK/lab.json" \
    --uplink up0 --telemetry "$WORK/telemetry.jsonl" --stats "$WORK/stats.json" --pid-file "$WORK/dp.pid" \
    >"$WORK/dp.log" 2>&1 &
DP_PID=$!
lab_track "$DP_PID"
for _ in $(seq 100); do [ -s "$WORK/dp.pid" ] && break; sleep 0.1; done
[ -s "$WORK/dp.pid" ] || { cat "$WORK/dp.log"; fail "adwiser-dp did not start"; }

echo "-- unmanaged ICMP passes"
lab_exec "$NS_SRV" ping -c 3 -i 0.2 -W 2 198.18.0.11 >/dev/null || { cat "$WORK/dp.log"; fail "ping server->sta1"; }
lab_exec "$NS_STA2" ping -c 3 -i 0.2 -W 2 198.18.0.1 >/dev/null || fail "ping sta2->server"

echo "-- bounded TCP transfer through the queue"
lab_exec "$NS_STA1" iperf3 -s -1 -D -I "$WORK/iperf1.pid" >/dev/null
lab_track_pidfile "$WORK/iperf1.pid"
lab_exec "$NS_SRV" timeout 60 iperf3 -c 198.18.0.11 -n 20M -J >"$WORK/iperf1.json" || fail "iperf3 to sta1 did not complete"
sent=$(json_get "$WORK/iperf1.json" end.sum_sent.bytes)
[ "$sent" -ge 20971520 ] || fail "sent $sent bytes of 20 MiB"
echo "   $(json_get "$WORK/iperf1.json" end.sum_received.bits_per_second) bit/s"

echo "-- SIGTERM under traffic: a verdict for every held packet"
lab_exec "$NS_STA2" iperf3 -s -1 -D -I "$WORK/iperf2.pid" >/dev/null
lab_track_pidfile "$WORK/iperf2.pid"
lab_exec "$NS_SRV" timeout 30 iperf3 -c 198.18.0.12 -t 4 -J >"$WORK/iperf2.json" 2>&1 &
C2=$!
sleep 1.5
lab_stop_dp --must-exit
# Fail-open: the transfer carries on without the daemon (--queue-bypass).
wait "$C2" || fail "the transfer did not survive the daemon's exit"
lab_exec "$NS_SRV" ping -c 2 -i 0.2 -W 2 198.18.0.12 >/dev/null || fail "no traffic after the daemon stopped"

echo "   stats: $(tr -d ' \n' <"$WORK/stats.json" | head -c 600)"
[ "$(rel counters.released_pkts)" -gt 0 ] || fail "the scheduler released nothing: traffic was not managed"
[ "$(rel counters.tx_drops)" -eq 0 ] || fail "verdicts failed"
[ "$(rel counters.queued_pkts)" -eq $(( $(rel counters.released_pkts) + $(rel counters.flushed_pkts) )) ] \
    || fail "held packets without a verdict"
# One outcome per packet: passed or released (tx), dropped by the core, or lost to a refused verdict (tx_drops);
# those accepted while draining the queue at shutdown, or read from no port of ours, never went into the core
# (drained_pkts, unscheduled_pkts: no port).
[ "$(( $(rel counters.tx_pkts) + $(rel counters.tx_drops) ))" -eq \
  "$(( $(rel counters.rx_pkts) - $(rel counters.dropped_pkts) + $(rel counters.drained_pkts) \
       + $(rel counters.unscheduled_pkts) ))" ] \
    || fail "tx_pkts + tx_drops is not rx_pkts - dropped_pkts + drained_pkts + unscheduled_pkts"
"$LAB_PY" - "$WORK/stats.json" <<'PYEOF' || fail "--stats' per-port counts do not add up to the totals"
import json, sys
s = json.load(open(sys.argv[1]))
c, ports = s["counters"], s["ports"]
rx, tx = sum(p["rx_pkts"] for p in ports), sum(p["tx_pkts"] for p in ports)
print(f"   per port: rx {[p['rx_pkts'] for p in ports]}, tx {[p['tx_pkts'] for p in ports]}")
on_no_port = c["drained_pkts"] + c["unscheduled_pkts"] + c["routed_elsewhere_pkts"]
sys.exit(0 if rx == c["rx_pkts"] > 0 and tx == c["tx_pkts"] - on_no_port else 1)
PYEOF

echo "-- SIGTERM with packets queued in the kernel, not yet read: every one passes"
# The daemon is stopped (SIGSTOP) while a bounded burst of UDP datagrams is queued to it, then gets SIGTERM and
# SIGCONT: it must read and accept what waits in its socket before unbinding the queue, which drops every entry
# still queued.  The receiver counts distinct datagrams (bounded in time).
BURST=2000
rm -f "$WORK/dp.pid"
ip netns exec "$NS_APP" "$BUILD/adwiser-dp" --backend nfqueue --queue-num 3 --config "$WORK/lab.json" \
    --uplink up0 --stats "$WORK/stats2.json" --pid-file "$WORK/dp.pid" >"$WORK/dp2.log" 2>&1 &
DP_PID=$!
lab_track "$DP_PID"
for _ in $(seq 100); do [ -s "$WORK/dp.pid" ] && break; sleep 0.1; done
[ -s "$WORK/dp.pid" ] || { cat "$WORK/dp2.log"; fail "adwiser-dp did not start again"; }
lab_exec "$NS_SRV" ping -c 2 -i 0.2 -W 2 198.18.0.12 >/dev/null || fail "ping server->sta2 before the burst"
lab_exec "$NS_STA2" timeout 20 "$LAB_PY" - "$WORK/udp_rx.txt" <<'PYEOF' &
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)   # SO_RCVBUFFORCE: the burst arrives at once
s.bind(("198.18.0.12", 5599))
open(sys.argv[1] + ".ready", "w").close()
seen, deadline = set(), time.monotonic() + 15
s.settimeout(0.5)
while time.monotonic() < deadline:
    try:
        seen.add(int(s.recv(64).split()[0]))
    except socket.timeout:
        if len(seen) and time.monotonic() > last + 1.5:
            break
        continue
    last = time.monotonic()
open(sys.argv[1], "w").write("%d\n" % len(seen))
PYEOF
RX=$!
lab_track "$RX"
for _ in $(seq 50); do [ -e "$WORK/udp_rx.txt.ready" ] && break; sleep 0.1; done
[ -e "$WORK/udp_rx.txt.ready" ] || fail "UDP receiver did not start"
kill -STOP "$DP_PID"
lab_exec "$NS_SRV" timeout 10 "$LAB_PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    s.sendto(b"%d adwiser-dp shutdown drain" % i, ("198.18.0.12", 5599))' "$BURST" || { kill -CONT "$DP_PID"; fail "UDP sender"; }
sleep 0.2
# /proc/net/netfilter/nfnetlink_queue: queue, portid, queue_total, ... : the burst waits in the kernel.
held=$(lab_exec "$NS_APP" awk '$1 == 3 {print $3}' /proc/net/netfilter/nfnetlink_queue)
kill -TERM "$DP_PID"
kill -CONT "$DP_PID"
lab_stop_dp --must-exit
wait "$RX" || true
got=$(cat "$WORK/udp_rx.txt" 2>/dev/null || echo 0)
echo "   $BURST datagrams sent, ${held:-?} queued in the kernel at SIGTERM, $got received"
[ "${held:-0}" -ge "$BURST" ] || fail "the burst was not queued to the stopped daemon (queue_total ${held:-none})"
[ "$got" -eq "$BURST" ] || { cat "$WORK/dp2.log"; fail "$(( BURST - got )) of $BURST datagrams queued at shutdown were lost"; }
echo "-- a burst larger than the stopped daemon's socket: what the kernel accepts itself is counted"
# The queue numbers every packet it hands to the socket (id_sequence in /proc/net/netfilter/nfnetlink_queue); when
# the socket is full, the fail-open queue accepts the packet unscheduled and counts it nowhere.  Datagrams to a
# port sta2 drops unanswered (no ICMP back through the queue), 1200 bytes each: more than the 16 MiB socket holds.
OVERFLOW=30000
lab_exec "$NS_STA2" iptables -A INPUT -p udp --dport 5598 -j DROP
rm -f "$WORK/dp.pid"
ip netns exec "$NS_APP" "$BUILD/adwiser-dp" --backend nfqueue --queue-num 3 --config "$WORK/lab.json" \
    --uplink up0 --stats "$WORK/stats3.json" --pid-file "$WORK/dp.pid" >"$WORK/dp3.log" 2>&1 &
DP_PID=$!
lab_track "$DP_PID"
for _ in $(seq 100); do [ -s "$WORK/dp.pid" ] && break; sleep 0.1; done
[ -s "$WORK/dp.pid" ] || { cat "$WORK/dp3.log"; fail "adwiser-dp did not start a third time"; }
lab_exec "$NS_SRV" ping -c 1 -W 2 198.18.0.12 >/dev/null || fail "ping server->sta2 before the overflow"
kill -STOP "$DP_PID"
lab_exec "$NS_SRV" timeout 20 "$LAB_PY" -c 'import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[1])):
    s.sendto(bytes(1200), ("198.18.0.12", 5598))' "$OVERFLOW" || { kill -CONT "$DP_PID"; fail "UDP sender"; }
queued=$(lab_exec "$NS_APP" awk '$1 == 3 {print $3}' /proc/net/netfilter/nfnetlink_queue)
kill -CONT "$DP_PID"
for _ in $(seq 50); do
    [ "$(lab_exec "$NS_APP" awk '$1 == 3 {print $3}' /proc/net/netfilter/nfnetlink_queue)" = 0 ] && break
    sleep 0.1
done
ids=$(lab_exec "$NS_APP" awk '$1 == 3 {print $8}' /proc/net/netfilter/nfnetlink_queue)
lab_stop_dp --must-exit
s3() { json_get "$WORK/stats3.json" "$1"; }
echo "   $OVERFLOW datagrams, ${queued:-?} queued to the stopped daemon, ids given ${ids:-?}," \
     "read $(s3 counters.rx_pkts), fail-open $(s3 counters.fail_open_pkts)"
[ "${queued:-$OVERFLOW}" -lt "$OVERFLOW" ] || fail "the socket took the whole burst: nothing overflowed"
[ "$(s3 counters.fail_open_pkts)" -gt 0 ] || fail "packets the kernel accepted itself are not counted"
[ "$(( $(s3 counters.rx_pkts) + $(s3 counters.drained_pkts) + $(s3 counters.unscheduled_pkts) \
       + $(s3 counters.fail_open_pkts) + $(s3 counters.shutdown_lost_pkts) ))" -eq "${ids:-0}" ] \
    || fail "rx_pkts + drained_pkts + unscheduled_pkts + fail_open_pkts + shutdown_lost_pkts is not the ids given"
echo "PASS: test_e2e_nfqueue"
