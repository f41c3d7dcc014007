#!/bin/bash
# Benchmark: real Linux TCP (iperf3, CUBIC) through wlan-emu for the 2AP-2STA
# lab, isolated (each pair alone) and together, printing per pair the TCP
# throughput, the emulator's mean A-MPDU / PHY rate, delivery timing error
# and wlan-emu's CPU use. Not a test: it asserts nothing, it prints figures.
#
#   <P>srv eth1 ── ap1 ┐           ┌ sta1 ── eth0 <P>sta1  198.18.201.11
#   198.18.201.1       <P>emu wlan-emu
#   <P>srv eth2 ── ap2 ┘           └ sta2 ── eth0 <P>sta2  198.18.202.12
#   198.18.202.1
#
# usage: bench_two_pairs.sh [seconds per run, default 10]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EMU_DIR=$(dirname "$HERE")
SECS=${1:-10}
P="wemb$$"
SRV="${P}srv" EMU="${P}emu" S1="${P}sta1" S2="${P}sta2"
WORK=$(mktemp -d /tmp/wlan-emu-bench.XXXXXX)
PIDS=()
PY=${PYTHON:-python3}

cleanup() {
    set +e
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    sleep 0.3
    for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
    for ns in "$SRV" "$EMU" "$S1" "$S2"; do ip netns del "$ns" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

for ns in "$SRV" "$EMU" "$S1" "$S2"; do
    ip netns add "$ns"
    in_ns "$ns" ip link set lo up
    in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    in_ns "$ns" sysctl -qw net.ipv4.tcp_congestion_control=cubic 2>/dev/null || true
done
ip link add "${P}1" netns "$SRV" type veth peer name ap1 netns "$EMU"
ip link add "${P}2" netns "$SRV" type veth peer name ap2 netns "$EMU"
ip link add "${P}3" netns "$S1" type veth peer name sta1 netns "$EMU"
ip link add "${P}4" netns "$S2" type veth peer name sta2 netns "$EMU"
in_ns "$SRV" ip link set "${P}1" name eth1 address 02:ad:c9:00:00:01
in_ns "$SRV" ip link set "${P}2" name eth2 address 02:ad:ca:00:00:01
in_ns "$S1" ip link set "${P}3" name eth0 address 02:ad:00:00:01:01
in_ns "$S2" ip link set "${P}4" name eth0 address 02:ad:00:00:02:01
for pair in "$SRV eth1" "$SRV eth2" "$S1 eth0" "$S2 eth0" "$EMU ap1" "$EMU ap2" "$EMU sta1" "$EMU sta2"; do
    set -- $pair
    in_ns "$1" ethtool -K "$2" tso off gso off gro off tx off >/dev/null 2>&1 || true
    in_ns "$1" ip link set "$2" up
done
in_ns "$SRV" ip addr add 198.18.201.1/24 dev eth1
in_ns "$SRV" ip addr add 198.18.202.1/24 dev eth2
in_ns "$S1" ip addr add 198.18.201.11/24 dev eth0
in_ns "$S2" ip addr add 198.18.202.12/24 dev eth0
in_ns "$SRV" ip neigh replace 198.18.201.11 lladdr 02:ad:00:00:01:01 dev eth1 nud permanent
in_ns "$SRV" ip neigh replace 198.18.202.12 lladdr 02:ad:00:00:02:01 dev eth2 nud permanent
in_ns "$S1" ip neigh replace 198.18.201.1 lladdr 02:ad:c9:00:00:01 dev eth0 nud permanent
in_ns "$S2" ip neigh replace 198.18.202.1 lladdr 02:ad:ca:00:00:01 dev eth0 nud permanent

run() { # run <name> <pairs...>
    local name=$1; shift
    ip netns exec "$EMU" "$EMU_DIR/wlan-emu" --ap ap1=ap1 --ap ap2=ap2 ${EMU_ARGS:-} \
        --sta sta1=sta1,mac=02:ad:00:00:01:01 --sta sta2=sta2,mac=02:ad:00:00:02:01 \
        --stats "$WORK/$name.stats.json" --gt-log "$WORK/$name.gt.jsonl" --duration $((SECS + 20)) \
        2>"$WORK/$name.emu.err" &
    local emu=$!
    PIDS+=("$emu")
    local clients=()
    for i in "$@"; do
        local sta="${P}sta$i" ip="198.18.20$i.1$i"
        ip netns exec "$sta" timeout $((SECS + 15)) iperf3 -s -1 -p 5201 >/dev/null 2>&1 &
        PIDS+=("$!")
    done
    sleep 0.5
    for i in "$@"; do
        ip netns exec "$SRV" timeout $((SECS + 15)) iperf3 -c "198.18.20$i.1$i" -p 5201 -t "$SECS" -C cubic -J \
            >"$WORK/$name.iperf$i.json" 2>&1 &
        clients+=("$!")
    done
    for c in "${clients[@]}"; do wait "$c" || true; done
    kill -TERM "$emu"
    wait "$emu" || true
    "$PY" - "$WORK" "$name" "$@" <<'PYEOF'
import json, sys
work, name, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
st = json.load(open(f"{work}/{name}.stats.json"))
links = {(l["src"], l["dst"]): l for l in st["links"]}
for i in pairs:
    try:
        ip = json.load(open(f"{work}/{name}.iperf{i}.json"))
        thr = ip["end"]["sum_received"]["bits_per_second"] / 1e6
    except Exception as e:  # report, do not hide
        thr = float("nan")
    l = links.get((f"ap{i}", f"sta{i}"), {})
    t = l.get("timing_error_us", {})
    w = l.get("wakeup_error_us", {})
    print(f"{name:9s} ap{i}/sta{i}  TCP {thr:6.1f} Mbit/s  A-MPDU {l.get('mean_ampdu') or 0:5.1f}  "
          f"PHY {l.get('mean_phy_mbps') or 0:6.1f} Mbit/s  airtime {l.get('airtime_frac', 0):.2f}  "
          f"timing p50/p99/max {t.get('p50')}/{t.get('p99')}/{t.get('max')} us "
          f"(wake-up {w.get('p50')}/{w.get('p99')}/{w.get('max')} us)")
t = st["timing_error_us"]
print(f"{name:9s} wlan-emu CPU {st['cpu_percent']:.1f} % of one core over {st['wall_s']:.1f} s; "
      f"all links timing p50 {t['p50']} us p99 {t['p99']} us; bypass {st['bypass']}; no-slot {st['no_slot_drops']}")
PYEOF
}

run isolated1 1
run isolated2 2
run together 1 2
