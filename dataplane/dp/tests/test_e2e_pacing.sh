#!/usr/bin/env bash
# End-to-end test of paced mode (SPEC §3.7, issue 9) in adwiser-dp's DPDK backend on net_af_packet over veths
# (netns_lab.sh).  Pins:
#   - a pair given a rate by --pacing never leaves the appliance faster than that rate: a TCP transfer's
#     goodput stays under x * 1448/1500 (x counts IP bytes) plus 5 %, while the unpaced STA2 of the same run,
#     time-sliced, gets more than x (only upper bounds on the paced pair: a slow host can only lower it);
#   - the pair's telemetry says paced with its pace_bps, the other sliced; with the shipped --ack-model the
#     paced pair's records carry agg_est, the model's one-STA scale times agg_raw (sta1 alone at ap1);
#   - nothing held is lost: at SIGTERM every queued packet is released or flushed, none dropped at TX.
# Usage: test_e2e_pacing.sh BUILD_DIR   (root; needs iperf3)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
. "$HERE/netns_lab.sh"
lab_work_dir
RATE=20000000

lab_create
lab_config_json "$HERE/../../../configs/lab-2ap-2sta.yaml" "$WORK/lab.json"
echo "{\"ap1/sta1\": $RATE}" >"$WORK/pacing.json"
ip netns exec "$NS_APP" "$BUILD/adwiser-dp" --no-huge -m 512 --no-pci --log-level=lib.eal:error \
    --file-prefix "$LAB" \
    --vdev=net_af_packet0,iface=up0 --vdev=net_af_packet1,iface=ap1 --vdev=net_af_packet2,iface=ap2 \
    -- --config "$WORK/lab.json" --uplink up0 --total-num-mbufs 16384 \
    --pacing "$WORK/pacing.json" --ack-model "$HERE/../../../configs/ack_burst_model.json" \
    --telemetry "$WORK/telemetry.jsonl" --stats "$WORK/stats.json" --pid-file "$WORK/dp.pid" \
    >"$WORK/dp.log" 2>&1 &
DP_PID=$!
lab_track "$DP_PID"
for _ in $(seq 100); do [ -s "$WORK/dp.pid" ] && break; sleep 0.1; done
[ -s "$WORK/dp.pid" ] || { cat "$WORK/dp.log"; fail "adwiser-dp did not start"; }

echo "-- paced sta1 and sliced sta2, bounded TCP transfers"
for i in 1 2; do
    ns_var="NS_STA$i"
    lab_exec "${!ns_var}" iperf3 -s -1 -D -I "$WORK/iperf-$i.pid" >/dev/null
done
sleep 0.3
for i in 1 2; do lab_track_pidfile "$WORK/iperf-$i.pid"; done
lab_exec "$NS_SRV" timeout 30 iperf3 -c 198.18.0.11 -t 4 -J >"$WORK/iperf1.json" &
C1=$!
lab_exec "$NS_SRV" timeout 30 iperf3 -c 198.18.0.12 -t 4 -J >"$WORK/iperf2.json" &
C2=$!
wait "$C1" || fail "iperf3 to sta1 did not complete"
wait "$C2" || fail "iperf3 to sta2 did not complete"
got1=$(json_get "$WORK/iperf1.json" end.sum_received.bits_per_second)
got2=$(json_get "$WORK/iperf2.json" end.sum_received.bits_per_second)
echo "   sta1 (paced at $RATE bit/s): $got1 bit/s; sta2 (sliced): $got2 bit/s"
"$LAB_PY" -c "import sys; g=float(sys.argv[1]); cap=$RATE*1448/1500*1.05; sys.exit(0 if 0 < g <= cap else 1)" \
    "$got1" || fail "paced sta1 got $got1 bit/s, above $RATE x 1448/1500 + 5 %"
"$LAB_PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) > $RATE else 1)" "$got2" \
    || fail "unpaced sta2 got only $got2 bit/s: was it paced too?"

echo "-- telemetry: sta1 paced with its rate and an aggregation estimate, sta2 sliced"
"$LAB_PY" - "$WORK/telemetry.jsonl" "$RATE" "$WORK/iperf1.json" "$HERE/../../../configs/ack_burst_model.json" <<'PY' || fail "telemetry does not show the pacing"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if '"pair"' in l]
p1 = [r for r in recs if r.get("type") == "pair" and r["pair"] == "ap1/sta1"]
p2 = [r for r in recs if r.get("type") == "pair" and r["pair"] == "ap2/sta2"]
assert p1 and p2, "no pair records"
assert all(r["mode"] == "paced" and r["paced"] == 1 and r["pace_bps"] == int(sys.argv[2]) for r in p1), p1[-1]
assert all(r["mode"] == "sliced" and r["paced"] == 0 and r["pace_bps"] == 0 for r in p2), p2[-1]
assert any(r["agg_est"] is not None and r["agg_bursts"] > 0 for r in p1), "no agg_est for the paced pair"
# sta1 is the only STA of ap1 receiving, so the estimate is the model's one-STA scale times the raw segments
# per burst (capped at n_max)
model = json.load(open(sys.argv[4]))
for r in (r for r in p1 if r["agg_bursts"] > 0):
    assert r["agg_stas"] == 1, r
    assert abs(r["agg_est"] - min(model["scale_by_stas"][0] * r["agg_raw"], model["n_max"])) < 1e-6 * r["agg_est"], r
# the segments sta1's ACKs acknowledged are the bytes its iperf3 receiver got (MSS 1448; the control
# connection's few bytes besides)
acked = sum(r["acked_segs"] for r in p1)
got = json.load(open(sys.argv[3]))["end"]["sum_received"]["bytes"]
print(f"   acked segments x 1448 / bytes iperf3 received, ap1/sta1: {acked * 1448:.0f} / {got}")
assert abs(acked * 1448 - got) <= 0.01 * got, (acked * 1448, got)
PY

lab_stop_dp
[ "$(rel counters.tx_drops)" -eq 0 ] || fail "packets lost at TX"
[ "$(rel core.drops_pool)" -eq 0 ] || fail "the packet pool overflowed"
held_in=$(( $(rel counters.queued_pkts) ))
held_out=$(( $(rel counters.released_pkts) + $(rel counters.flushed_pkts) ))
[ "$held_in" -eq "$held_out" ] || fail "queued $held_in packets but released $held_out"
echo "   A* tail drops (the paced queue's limit at work): $(rel core.drops_tail)"
echo "PASS: test_e2e_pacing"
