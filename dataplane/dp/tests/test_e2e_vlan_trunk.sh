#!/usr/bin/env bash
# End-to-end test of a VLAN trunk towards the APs on the DPDK backend: AP1
# (vlan 101) and AP2 (vlan 102) share one appliance port `trk`; a switch
# namespace splits the trunk into one access port per VLAN (vlan_switch.py:
# this kernel has no VLAN interfaces and no VLAN-filtering bridge).  A STA
# is reachable only if adwiser-dp tags frames with its AP's VLAN and takes
# tagged frames back as that AP's.  Pins: ICMP and ARP broadcast reach both
# STAs through the trunk, a bounded iperf3 transfer to each STA is scheduled
# (held and released per pair), no frame arrives with an unknown VLAN.
#
#   server s0 ── up0 appliance trk ══ trk switch (vlan 101) p1 ── wlan0 sta1
#                                               (vlan 102) p2 ── wlan0 sta2
# Usage: test_e2e_vlan_trunk.sh BUILD_DIR   (root; needs iperf3)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
. "$HERE/netns_lab.sh"
NS_SW="${LAB}-sw"
lab_work_dir 'ip netns del "$NS_SW" 2>/dev/null || true'

for ns in "$NS_SRV" "$NS_APP" "$NS_SW" "$NS_STA1" "$NS_STA2"; do
    ip netns add "$ns"
    lab_exec "$ns" ip link set lo up
    # No IPv6 link-local chatter: every frame on the trunk must be one of ours.
    lab_exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
lab_link "$NS_SRV" s0 "$NS_APP" up0
lab_link "$NS_APP" trk "$NS_SW" trk
lab_link "$NS_STA1" wlan0 "$NS_SW" p1
lab_link "$NS_STA2" wlan0 "$NS_SW" p2
ip netns exec "$NS_SW" "$LAB_PY" "$HERE/vlan_switch.py" trk 101=p1 102=p2 --seconds 120 >"$WORK/switch.log" 2>&1 &
lab_track $!
lab_exec "$NS_STA1" ip link set wlan0 address 02:ad:00:00:01:01
lab_exec "$NS_STA2" ip link set wlan0 address 02:ad:00:00:02:01
lab_exec "$NS_SRV" ip addr add 198.18.0.1/24 dev s0
lab_exec "$NS_STA1" ip addr add 198.18.0.11/24 dev wlan0
lab_exec "$NS_STA2" ip addr add 198.18.0.12/24 dev wlan0

lab_config_json "$HERE/../../../configs/lab-2ap-2sta.yaml" "$WORK/trunk.json" "
for ap, vid in zip(c['topology']['aps'], (101, 102)):
    ap['port'] = 'trk'
    ap['vlan'] = vid"

ip netns exec "$NS_APP" "$BUILD/adwiser-dp" --no-huge -m 512 --no-pci -l 0 --log-level=lib.eal:error \
    --file-prefix "$LAB" --vdev=net_af_packet0,iface=up0 --vdev=net_af_packet1,iface=trk \
    -- --config "$WORK/trunk.json" --uplink up0 --total-num-mbufs 16384 \
    --stats "$WORK/stats.json" --pid-file "$WORK/dp.pid" >"$WORK/dp.log" 2>&1 &
DP_PID=$!
lab_track "$DP_PID"
for _ in $(seq 100); do [ -s "$WORK/dp.pid" ] && break; sleep 0.1; done
[ -s "$WORK/dp.pid" ] || { cat "$WORK/dp.log"; fail "adwiser-dp did not start"; }
grep -q "port 2 (ap2) = DPDK port 1 'trk' vlan 102" "$WORK/dp.log" || { cat "$WORK/dp.log"; fail "ap2 not bound to trk vlan 102"; }

echo "-- ICMP and ARP through the trunk to both STAs"
lab_exec "$NS_SRV" ping -c 3 -i 0.2 -W 2 198.18.0.11 >/dev/null || { cat "$WORK/dp.log"; fail "ping sta1 (vlan 101)"; }
lab_exec "$NS_SRV" ping -c 3 -i 0.2 -W 2 198.18.0.12 >/dev/null || fail "ping sta2 (vlan 102)"

echo "-- bounded TCP transfer to each STA, scheduled per pair"
for i in 1 2; do
    ns_var="NS_STA$i"
    lab_exec "${!ns_var}" iperf3 -s -1 -D -I "$WORK/iperf$i.pid" >/dev/null
    lab_track_pidfile "$WORK/iperf$i.pid"
    lab_exec "$NS_SRV" timeout 60 iperf3 -c "198.18.0.1$i" -n 10M -J >"$WORK/iperf$i.json" \
        || fail "iperf3 to sta$i did not complete"
    echo "   sta$i: $(json_get "$WORK/iperf$i.json" end.sum_received.bits_per_second) bit/s"
done

lab_stop_dp
[ "$(rel counters.vlan_unknown)" -eq 0 ] || fail "frames with a VLAN of no AP"
[ "$(rel core.queued_data)" -gt 0 ] || fail "no TCP data was scheduled"
for i in 1 2; do
    [ "$(rel "ports.$i.rx_pkts")" -gt 0 ] || fail "nothing received as ap$i's (untagging by VLAN)"
    [ "$(rel "ports.$i.tx_pkts")" -gt 0 ] || fail "nothing sent to ap$i (tagging)"
done
echo "PASS: test_e2e_vlan_trunk"
