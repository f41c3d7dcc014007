#!/usr/bin/env bash
# End-to-end test of adwiser-dp's NFQUEUE backend: the appliance namespace
# routes (proxy ARP, see netns_lab.sh) and queues forwarded packets with
# `iptables -A FORWARD -j NFQUEUE --queue-bypass`.  Pins:
#   - unmanaged ICMP passes;
#   - a bounded iperf3 TCP transfer completes through the scheduler;
#   - SIGTERM while packets are held gives every one of them a verdict;
#   - with the daemon gone, --queue-bypass keeps traffic flowing (fail-open).
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
LAB_PIDS+=("$DP_PID")
for _ in $(seq 100); do [ -s "$WORK/dp.pid" ] && break; sleep 0.1; done
[ -s "$WORK/dp.pid" ] || { cat "$WORK/dp.log"; fail "adwiser-dp did not start"; }

echo "-- unmanaged ICMP passes"
lab_exec "$NS_SRV" ping -c 3 -i 0.2 -W 2 198.18.0.11 >/dev/null || { cat "$WORK/dp.log"; fail "ping server->sta1"; }
lab_exec "$NS_STA2" ping -c 3 -i 0.2 -W 2 198.18.0.1 >/dev/null || fail "ping sta2->server"

echo "-- bounded TCP transfer through the queue"
lab_exec "$NS_STA1" iperf3 -s -1 -D -I "$WORK/iperf1.pid" >/dev/null
sleep 0.3; LAB_PIDS+=("$(cat "$WORK/iperf1.pid")")
lab_exec "$NS_SRV" timeout 60 iperf3 -c 198.18.0.11 -n 20M -J >"$WORK/iperf1.json" || fail "iperf3 to sta1 did not complete"
sent=$(json_get "$WORK/iperf1.json" end.sum_sent.bytes)
[ "$sent" -ge 20971520 ] || fail "sent $sent bytes of 20 MiB"
echo "   $(json_get "$WORK/iperf1.json" end.sum_received.bits_per_second) bit/s"

echo "-- SIGTERM under traffic: a verdict for every held packet"
lab_exec "$NS_STA2" iperf3 -s -1 -D -I "$WORK/iperf2.pid" >/dev/null
sleep 0.3; LAB_PIDS+=("$(cat "$WORK/iperf2.pid")")
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
echo "PASS: test_e2e_nfqueue"
