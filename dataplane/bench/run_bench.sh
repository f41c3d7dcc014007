#!/usr/bin/env bash
# `make bench`: packets per second through adwiser-dp's full scheduler
# (parse, classify, enqueue, slice release, ACK tracking) for a recorded mix
# of 4096 STAs on 16 APs, replayed by net_pcap ports (infinite_rx): the wired
# side's frames on the uplink port, the STAs' ACKs on the first AP port (see
# gen_sta_mix.c: every port is read at the same rate, so ACKs spread over the
# 16 AP ports would be 94 % of what is offered), nothing on the other AP
# ports; and in the same run dpdk-testpmd io-forwarding on the same ports;
# prints both, their ratio and the offered mix.  Then the slice-start timing
# error (p50/p99 µs) of adwiser-dp with its idle back-off, after the same mix
# played once.
# ROUNDS alternating runs of each (BENCH_ROUNDS, default 3), the median ratio printed.
# Each program's rate is the median of its 1-s periods after the first (testpmd's
# --stats-period 1 lines; adwiser-dp's receive count at each second of its loop,
# rx_pkts_at_each_second in --stats), so neither figure includes start-up.
# Both run one forwarding core (-l 0 for adwiser-dp; testpmd needs -l 0,1:
# its main lcore only prints stats).  Usage: run_bench.sh BUILD_DIR [seconds]
set -euo pipefail
BUILD=$(cd "${1:?build dir}" && pwd)
SECS=${2:-${BENCH_SECONDS:-5}}
ROUNDS=${BENCH_ROUNDS:-3}
PYTHON=${PY:-python3}; [ -x "$PYTHON" ] || PYTHON=python3
N_STAS=4096
N_APS=16
OUT="$BUILD/bench"
MIX="$OUT/mix"
mkdir -p "$MIX"
"$BUILD/gen_sta_mix" "$MIX" "$N_STAS" "$N_APS" 1

EAL=(--no-huge -m 1024 --no-pci --log-level=lib.eal:error --file-prefix "adwbench$$")
# DPDK leaves /var/run/dpdk/<prefix> behind even at a clean exit; every run here is in the foreground,
# so at exit nothing uses ours any more.
trap 'if [ "$(id -u)" = 0 ]; then rm -rf "/var/run/dpdk/adwbench$$"; else rm -rf "${XDG_RUNTIME_DIR:-/tmp}/dpdk/adwbench$$"; fi' EXIT
vdevs() {   # infinite=0|1
    local v=(--vdev="net_pcap0,rx_pcap=$MIX/uplink.pcap,infinite_rx=$1"
             --vdev="net_pcap1,rx_pcap=$MIX/acks.pcap,infinite_rx=$1")
    for i in $(seq 2 "$N_APS"); do v+=(--vdev="net_pcap$i,rx_pcap=$MIX/idle.pcap,infinite_rx=0"); done
    printf '%s\n' "${v[@]}"
}
mapfile -t VDEVS_LOOP < <(vdevs 1)
mapfile -t VDEVS_ONCE < <(vdevs 0)
APS=()
for i in $(seq 1 "$N_APS"); do APS+=(--ap "ap$i=net_pcap$i"); done

# Alternating rounds: the host is shared, so each ratio compares runs minutes apart at most.
for r in $(seq 1 "$ROUNDS"); do
    echo "== round $r/$ROUNDS: adwiser-dp ($N_STAS STAs, $N_APS APs, ${SECS}s, busy poll), then dpdk-testpmd io-fwd"
    "$BUILD/adwiser-dp" "${EAL[@]}" -l 0 "${VDEVS_LOOP[@]}" -- --config "$MIX/config.json" --uplink net_pcap0 \
        "${APS[@]}" --total-num-mbufs 131072 --busy-poll --run-ms $((SECS * 1000)) --stats "$OUT/dp-load-$r.json" \
        >"$OUT/dp-load-$r.log" 2>&1 || { tail -20 "$OUT/dp-load-$r.log"; exit 1; }
    timeout -s INT $((SECS + 8)) dpdk-testpmd "${EAL[@]}" -l 0,1 "${VDEVS_LOOP[@]}" -- --forward-mode=io \
        --port-topology=chained --stats-period 1 --total-num-mbufs 131072 >"$OUT/testpmd-$r.log" 2>&1 || true
done

echo "== adwiser-dp: the mix played once, idle back-off, slice-start timing (normal, then SCHED_FIFO)"
"$BUILD/adwiser-dp" "${EAL[@]}" -l 0 "${VDEVS_ONCE[@]}" -- --config "$MIX/config.json" --uplink net_pcap0 \
    "${APS[@]}" --total-num-mbufs 131072 --run-ms 4000 --stats "$OUT/dp-idle.json" \
    >"$OUT/dp-idle.log" 2>&1 || { tail -20 "$OUT/dp-idle.log"; exit 1; }
"$BUILD/adwiser-dp" "${EAL[@]}" -l 0 "${VDEVS_ONCE[@]}" -- --config "$MIX/config.json" --uplink net_pcap0 \
    "${APS[@]}" --total-num-mbufs 131072 --run-ms 4000 --rt-priority 10 --stats "$OUT/dp-idle-rt.json" \
    >"$OUT/dp-idle-rt.log" 2>&1 || { tail -20 "$OUT/dp-idle-rt.log"; exit 1; }

"$PYTHON" - "$OUT" "$((N_APS + 1))" "$ROUNDS" <<'PYEOF'
import json, re, statistics, sys
out, n_ports, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ratios, dps, tps = [], [], []
for r in range(1, rounds + 1):
    load = json.load(open(f"{out}/dp-load-{r}.json"))
    c, core = load["counters"], load["core"]
    secs = load["elapsed_ns"] / 1e9
    # The same statistic as testpmd's below: the median of the 1-s periods after the first (start-up: first touch
    # of the mbuf pool's pages, cold caches). The whole run's mean is printed beside it.
    marks = load.get("rx_pkts_at_each_second", [])
    dp_periods = [b - a for a, b in zip(marks, marks[1:])]
    dp_mean = c["rx_pkts"] / secs
    dp_pps = statistics.median(dp_periods) if dp_periods else dp_mean
    # testpmd prints one Rx-pps line per port per stats period; each period is the sum over the ports.
    pps = [int(x) for x in re.findall(r"Rx-pps:\s+(\d+)", open(f"{out}/testpmd-{r}.log").read())]
    periods = [sum(pps[i:i + n_ports]) for i in range(0, len(pps) - n_ports + 1, n_ports)]
    # testpmd prints once as forwarding starts (all zero) and then every second: the first second, its start-up,
    # is dropped as adwiser-dp's is (its periods start at its 1-s mark).
    periods = [p for p in periods[2:] if p > 0]
    if not periods:
        sys.exit(f"bench: no testpmd rate in testpmd-{r}.log")
    tp_pps = statistics.median(periods)
    dps.append(dp_pps); tps.append(tp_pps); ratios.append(dp_pps / tp_pps)
    acks = core["pass_uplink"] / core["rx_pkts"]
    print(f"round {r}: adwiser-dp {dp_pps / 1e6:.3f} Mpps (median of {len(dp_periods)} 1-s periods, whole run "
          f"{dp_mean / 1e6:.3f}; {100 * acks:.0f} % uplink ACKs; "
          f"{c['released_pkts'] / secs / 1e6:.3f} Mpps released in "
          f"slices, {core['drains_completed']} drains closed by ACKs, {core['drops_tail']} A* drops); "
          f"testpmd {tp_pps / 1e6:.3f} Mpps (median of {len(periods)} 1-s periods); ratio {dp_pps / tp_pps:.3f}")
i = ratios.index(statistics.median_low(ratios))  # a round's own ratio (the median of an even count is no round's)
print()
print(f"adwiser-dp full scheduler : {dps[i] / 1e6:8.3f} Mpps (packets received, parsed, classified and queued, "
      f"released or passed, one core)")
print(f"dpdk-testpmd io-forwarding: {tps[i] / 1e6:8.3f} Mpps (same net_pcap ports, same mix)")
print(f"ratio adwiser-dp / testpmd: {ratios[i]:8.3f} (median of {rounds} rounds; all: "
      + ", ".join(f"{x:.3f}" for x in ratios) + ")")
idle = json.load(open(f"{out}/dp-idle.json"))
idle_rt = json.load(open(f"{out}/dp-idle-rt.json"))
e_load = json.load(open(f"{out}/dp-load-{i + 1}.json"))["slice_start_error"]
e_idle, e_rt = idle["slice_start_error"], idle_rt["slice_start_error"]
print(f"slice-start timing error, busy poll under load: p50 {e_load['p50_us']:.1f} us, "
      f"p99 {e_load['p99_us']:.1f} us ({e_load['events']} events)")
print(f"slice-start timing error, idle back-off       : p50 {e_idle['p50_us']:.1f} us, "
      f"p99 {e_idle['p99_us']:.1f} us, max {e_idle['max_us']:.1f} us ({e_idle['events']} events)")
print(f"slice-start timing error, idle back-off, RT   : p50 {e_rt['p50_us']:.1f} us, "
      f"p99 {e_rt['p99_us']:.1f} us, max {e_rt['max_us']:.1f} us ({e_rt['events']} events; --rt-priority 10)")
with open("/proc/loadavg") as f:
    print(f"host load average at the end: {f.read().split()[0]} (2 cores shared with other work)")
PYEOF
