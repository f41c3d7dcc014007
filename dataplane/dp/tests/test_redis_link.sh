#!/usr/bin/env bash
# adwiser-dp against a real redis-server (unix socket, started and stopped
# here) per controller/REDIS.md.  DPDK runs over net_null ports (no traffic
# is needed: frames tick on their own).  Pins:
#   - the version named by ...:desired at start is fetched, swapped in and acknowledged (active = n);
#   - a version published later on ...:config is applied and acknowledged, and
#     the ack is published on ...:ack;
#   - an invalid version is refused with the field named in ...:rejected, the running version stays;
#   - heartbeat {"ts_ns","pid","version","backend"} with a PX 3000 expiry, removed at a clean exit;
#   - per-frame and per-pair telemetry lands in the bounded streams;
#   - pacing (SPEC §3.7): a rate in the hash ...:pacing, PUBLISHed on ...:pacing, puts the pair in paced mode at
#     once (tm:pair mode paced, pace_bps); a malformed hash is refused whole in ...:pacing_rejected naming the
#     pair and the rate in force stays; deleting the field returns the pair to its slices; the --ack-model file
#     is loaded and tm:pair carries agg_est and the loss signals.
# Usage: test_redis_link.sh BUILD_DIR
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
. "$HERE/netns_lab.sh"   # for LAB_PY, lab_config_json, json_get, fail (no namespaces are created)
WORK=$(mktemp -d "/tmp/adwredis$$.XXXX")
DPDK_PREFIX="adwredis$$"
cleanup() {
    lab_stop_tracked   # only what still runs as the process tracked: adwiser-dp is waited for below
    lab_rm_dpdk_dir "$DPDK_PREFIX"
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

SOCK="$WORK/redis.sock"
redis-server --port 0 --unixsocket "$SOCK" --save "" --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
lab_track $!
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
R() { redis-cli -s "$SOCK" "$@"; }
R PING >/dev/null || fail "redis-server did not start"

CONF="$HERE/../../../configs/lab-2ap-2sta.yaml"
lab_config_json "$CONF" "$WORK/file.json"
lab_config_json "$CONF" "$WORK/v1.json" "c['slice_map']['slices'][0]['duration_ms'] = 25"
lab_config_json "$CONF" "$WORK/v2.json" "for s in c['slice_map']['slices']: s['duration_ms'] = 30"
lab_config_json "$CONF" "$WORK/v3.json" "c['slice_map']['slices'][1]['pairs'] = ['ap2/sta9']"
for v in 1 2 3; do R HSET "adwiser:version:$v" doc "$(cat "$WORK/v$v.json")" author test >/dev/null; done
R SET adwiser:appliance:lab:desired 1 >/dev/null

"$BUILD/adwiser-dp" --no-huge -m 256 --no-pci --log-level=lib.eal:error --file-prefix "$DPDK_PREFIX" -l 0 \
    --vdev=net_null0,no-rx=1 --vdev=net_null1,no-rx=1 --vdev=net_null2,no-rx=1 -- \
    --config "$WORK/file.json" --uplink net_null0 --ap ap1=net_null1 --ap ap2=net_null2 \
    --total-num-mbufs 8192 --redis "unix:$SOCK" --pid-file "$WORK/dp.pid" \
    --ack-model "$HERE/../../../configs/ack_burst_model.json" >"$WORK/dp.log" 2>&1 &
DP_PID=$!
lab_track "$DP_PID"

wait_for() {   # description, command...
    local what=$1; shift
    for _ in $(seq 50); do "$@" && return 0; sleep 0.1; done
    cat "$WORK/dp.log"; fail "$what"
}
active_is() { [ "$(R GET adwiser:appliance:lab:active)" = "$1" ]; }

echo "-- the desired version at start is applied and acknowledged"
wait_for "version 1 never became active" active_is 1

echo "-- heartbeat"
wait_for "heartbeat never carried version 1" bash -c "redis-cli -s '$SOCK' GET adwiser:appliance:lab:heartbeat | grep -q '\"version\":1'"
hb=$(R GET adwiser:appliance:lab:heartbeat)
"$LAB_PY" -c 'import json,sys; h=json.loads(sys.argv[1]); assert h["pid"]==int(sys.argv[2]) and h["version"]==1 \
    and h["backend"]=="dpdk" and h["ts_ns"]>0, h' "$hb" "$DP_PID" || fail "heartbeat $hb"
ttl=$(R PTTL adwiser:appliance:lab:heartbeat)
[ "$ttl" -gt 0 ] && [ "$ttl" -le 3000 ] || fail "heartbeat PTTL $ttl is not within 3000 ms"

echo "-- a published version is applied and its ack published"
timeout 10 redis-cli -s "$SOCK" SUBSCRIBE adwiser:appliance:lab:ack >"$WORK/acks.txt" &
SUB=$!
lab_track "$SUB"
sleep 0.3
R SET adwiser:appliance:lab:desired 2 >/dev/null
R PUBLISH adwiser:appliance:lab:config 2 >/dev/null
wait_for "version 2 never became active" active_is 2
wait_for "no ack 2 published" grep -qx 2 "$WORK/acks.txt"

echo "-- an invalid version is refused with the field named; version 2 keeps running"
R SET adwiser:appliance:lab:desired 3 >/dev/null
R PUBLISH adwiser:appliance:lab:config 3 >/dev/null
wait_for "version 3 was not rejected" bash -c "redis-cli -s '$SOCK' GET adwiser:appliance:lab:rejected | grep -q '\"version\":3'"
rej=$(R GET adwiser:appliance:lab:rejected)
echo "   rejected: $rej"
case "$rej" in *"slice_map.slices[1].pairs[0]"*"sta9"*) ;; *) fail "rejection does not name the field: $rej";; esac
sleep 0.5
active_is 2 || fail "active moved off version 2 after a rejected version"

echo "-- telemetry streams"
frames=$(R XLEN adwiser:appliance:lab:tm:frame)
pairs=$(R XLEN adwiser:appliance:lab:tm:pair)
[ "$frames" -gt 5 ] || fail "only $frames frame entries"
[ "$pairs" -ge $((2 * frames - 4)) ] || fail "$pairs pair entries for $frames frames"
R XREVRANGE adwiser:appliance:lab:tm:pair + - COUNT 1 | grep -qx 'ap[12]/sta[12]' || fail "pair entry without its pair name"
R XREVRANGE adwiser:appliance:lab:tm:frame + - COUNT 1 >"$WORK/frame.txt"
grep -qx frame_ms "$WORK/frame.txt" && grep -qx slices "$WORK/frame.txt" || fail "frame entry lacks frame_ms/slices"
grep -qx '60\(\.0\)\?' "$WORK/frame.txt" || fail "frame_ms of version 2 (2 x 30 ms) not reported"

ts=$(sed -n '/^ts_ns$/{n;p}' "$WORK/frame.txt")
now=$(date +%s%N)
[ $((now - ts)) -ge 0 ] && [ $((now - ts)) -lt 10000000000 ] || fail "frame ts_ns $ts is not a Unix time near $now"

echo "-- pacing from the Redis hash, applied at once"
# The last tm:pair entry of ap1/sta1, as "field value" words on one line.
last_sta1() { R XREVRANGE adwiser:appliance:lab:tm:pair + - COUNT 4 | tr '\n' ' ' | grep -o 'pair ap1/sta1 .*' | head -c 2000; }
sta1_has() { last_sta1 | grep -Eq "$1"; }
R HSET adwiser:appliance:lab:pacing ap1/sta1 60000000 >/dev/null
R PUBLISH adwiser:appliance:lab:pacing 1 >/dev/null
wait_for "ap1/sta1 not paced at 60 Mbit/s" sta1_has 'mode paced .*paced 1 pace_bps 60000000 '
sta1_has 'agg_est  ?agg_bursts 0 agg_raw  ?agg_stas 0 acked_segs 0(\.0)? dup_acks 0 retx_pkts 0 loss_frac 0' || fail "tm:pair lacks the estimator fields: $(last_sta1)"
# the record's last fields too: XADD once sent at most 29 fields and dropped the rest without a word
sta1_has 'ack_delay_samples 0 ack_delay_ms  ?ack_delay_min_ms ' || fail "tm:pair lacks the release-to-ACK fields: $(last_sta1)"
grep -q 'ACK-burst model version' "$WORK/dp.log" || fail "the --ack-model file was not loaded"
R HSET adwiser:appliance:lab:pacing ap2/sta2 fast >/dev/null
R PUBLISH adwiser:appliance:lab:pacing 1 >/dev/null
wait_for "a malformed pacing hash was not refused" bash -c "redis-cli -s '$SOCK' GET adwiser:appliance:lab:pacing_rejected | grep -q 'ap2/sta2'"
sleep 0.3
sta1_has 'pace_bps 60000000 ' || fail "the rate in force changed after a refused hash: $(last_sta1)"
R HDEL adwiser:appliance:lab:pacing ap1/sta1 ap2/sta2 >/dev/null
R PUBLISH adwiser:appliance:lab:pacing 1 >/dev/null
wait_for "ap1/sta1 did not return to its slices" sta1_has 'mode sliced .*paced 0 pace_bps 0 '

echo "-- clean exit removes the heartbeat"
kill -TERM "$DP_PID"
for _ in $(seq 50); do kill -0 "$DP_PID" 2>/dev/null || break; sleep 0.1; done
wait "$DP_PID" || fail "adwiser-dp exited with an error"
[ "$(R EXISTS adwiser:appliance:lab:heartbeat)" = 0 ] || fail "heartbeat left behind"
echo "PASS: test_redis_link"
