#!/usr/bin/env bash
# adwiser-dp binds the campus configuration (configs/campus-dorm.yaml: 120 APs
# on four VLAN trunks, 360 STAs) to DPDK ports: four net_null ports stand for
# the trunks (`--port trunkN=net_nullN`), net_null0 for the uplink.  Pins:
# every AP is bound as trunk + VLAN, the core accepts the configuration, and
# the loop runs and stops cleanly.  No traffic, no namespaces.
# Usage: test_campus_ports.sh BUILD_DIR
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
. "$HERE/netns_lab.sh"   # LAB_PY, lab_config_json, json_get, fail
WORK=$(mktemp -d "/tmp/adwcampus$$.XXXX")
DPDK_PREFIX="adwcampus$$"
trap 'lab_rm_dpdk_dir "$DPDK_PREFIX"; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT

lab_config_json "$HERE/../../../configs/campus-dorm.yaml" "$WORK/campus.json"
VDEVS=(--vdev=net_null0,no-rx=1)
PORTS=()
for t in 0 1 2 3; do
    VDEVS+=(--vdev="net_null$((t + 1)),no-rx=1")
    PORTS+=(--port "trunk$t=net_null$((t + 1))")
done
timeout 60 "$BUILD/adwiser-dp" --no-huge -m 512 --no-pci -l 0 --log-level=lib.eal:error --file-prefix "$DPDK_PREFIX" \
    "${VDEVS[@]}" -- --config "$WORK/campus.json" --uplink net_null0 "${PORTS[@]}" --total-num-mbufs 16384 \
    --run-ms 500 --stats "$WORK/stats.json" >"$WORK/dp.log" 2>&1 || { cat "$WORK/dp.log"; fail "adwiser-dp failed"; }
bound=$(grep -c "= DPDK port [1-4] 'net_null[1-4]' vlan " "$WORK/dp.log")
[ "$bound" -eq 120 ] || { head -20 "$WORK/dp.log"; fail "$bound of 120 APs bound as trunk + VLAN"; }
[ "$(json_get "$WORK/stats.json" core.frames)" -gt 0 ] || fail "no frame ran"
# DPDK leaves its runtime directory behind even at a clean exit: lab_rm_dpdk_dir must find and remove it.
dpdk_dir=$(if [ "$(id -u)" = 0 ]; then echo /var/run/dpdk; else echo "${XDG_RUNTIME_DIR:-/tmp}/dpdk"; fi)/$DPDK_PREFIX
[ -d "$dpdk_dir" ] || fail "no DPDK runtime directory $dpdk_dir after the run (where does --file-prefix put it?)"
lab_rm_dpdk_dir "$DPDK_PREFIX"
[ ! -e "$dpdk_dir" ] || fail "$dpdk_dir is still there"
echo "PASS: test_campus_ports (120 APs on 4 trunks)"
