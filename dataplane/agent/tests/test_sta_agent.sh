#!/usr/bin/env bash
# adwiser-sta-agent end to end: an "AP" namespace sends bursts of UDP datagrams (one burst standing for one
# A-MPDU: back to back, then 3 ms of silence) over a veth to a "STA" namespace where the agent runs with a
# one-gap model (a gap over 300 µs starts an A-MPDU) and reports to a real redis-server (unix socket, started
# and stopped here).  Pins:
#   - every datagram is counted once (stats and the sum of tm:sta's mpdus_ok), ARP and the agent's own
#     sends are not; the agent is stopped right after the last burst, so the last A-MPDU and partial period
#     reach tm:sta and --stats's frames only through the report made at exit;
#   - the bursts are found from kernel timestamps: frames and mean mpdus per entry match the bursts sent;
#   - entries carry the pair and land in adwiser:appliance:<id>:tm:sta (controller/REDIS.md), written as a
#     Redis ACL user allowed XADD on those keys only (--redis-auth); an agent with a wrong password writes
#     nothing, counts its errors and says why;
#   - bad command lines and model files are refused with what is wrong named, the appliance's ACK-burst model
#     (configs/ack_burst_model.json) and a file without one by the "model" member.
# Addresses only in 198.18.0.0/15; namespaces, redis-server and the agent are removed/stopped at exit.
# Usage: test_sta_agent.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "${1:?build dir}" && pwd)
. "$(dirname "$0")/../../dp/tests/netns_lab.sh"   # for LAB_PY and fail (its 2AP-2STA lab is not created)
AGT="adwagt$$"
NS_AP="${AGT}-ap"
NS_STA="${AGT}-sta"
WORK=$(mktemp -d "/tmp/${AGT}.XXXX")
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; done
    for ns in "$NS_AP" "$NS_STA"; do ip netns del "$ns" 2>/dev/null || true; done
    [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

AGENT="$BUILD/adwiser-sta-agent"
BURSTS=400
BURST=12

echo "-- bad input is refused with what is wrong named"
out=$("$AGENT" --iface lo --pair sta1 --model /nonexistent 2>&1) && fail "--pair sta1 accepted"
grep -q -- "--pair sta1: expected AP/STA" <<<"$out" || fail "no message for a bad --pair: $out"
out=$("$AGENT" --iface lo --pair ap1/sta1 --model /nonexistent --redis "unix:/x" 2>&1) && fail "--redis alone accepted"
grep -q -- "--redis and --appliance go together" <<<"$out" || fail "no message for --redis alone: $out"
for d in inf 2e10; do   # its end time in uint64_t ns: converted to 0, the agent ended at once without a word
    out=$("$AGENT" --iface lo --pair ap1/sta1 --model /nonexistent --duration "$d" 2>&1) && fail "--duration $d accepted"
    grep -q -- "--duration $d: expected seconds in (0, 31536000]" <<<"$out" || fail "no message for --duration $d: $out"
done
echo '{"model": "adwiser-sta-frame-classifier", "version": 1, "m": 2, "intercept": 0, "coef": [1, 2], "threshold": 0.5,
      "n_max": 64}' >"$WORK/bad.json"
out=$("$AGENT" --iface lo --pair ap1/sta1 --model "$WORK/bad.json" 2>&1) && fail "a model with 2 of 3 coef accepted"
grep -q "coef" <<<"$out" || fail "the bad model's field is not named: $out"
# the appliance's ACK-burst model has the same format: its "model" member says it is not this one (--duration:
# an agent that took it would otherwise run on lo until killed)
ACK_MODEL="$(dirname "$0")/../../../configs/ack_burst_model.json"
out=$("$AGENT" --iface lo --pair ap1/sta1 --model "$ACK_MODEL" --duration 1 2>&1) && fail "the ACK-burst model accepted"
grep -q 'model: expected "adwiser-sta-frame-classifier", got "adwiser-ack-burst-classifier"' <<<"$out" \
    || fail "the ACK-burst model's refusal does not name its model field: $out"
# nor is a file that does not say what it models: it could be either
"$LAB_PY" -c 'import json, sys
m = json.load(open(sys.argv[1])); del m["model"]; json.dump(m, open(sys.argv[2], "w"))' "$ACK_MODEL" "$WORK/nokind.json"
out=$("$AGENT" --iface lo --pair ap1/sta1 --model "$WORK/nokind.json" --duration 1 2>&1) && fail "a model without a kind accepted"
grep -q 'model: missing required field, expected "adwiser-sta-frame-classifier"' <<<"$out" \
    || fail "the refusal of a model without a kind does not name its model field: $out"

echo '{"model": "adwiser-sta-frame-classifier", "version": 1, "m": 1, "intercept": -30.0, "coef": [0.1, 0.0],
      "threshold": 0.5, "n_max": 64, "scale": 1.0}' >"$WORK/model.json"
# a Redis host name is looked up at start, not at each reconnect from the packet loop: one that does not resolve
# is refused there, named
out=$("$AGENT" --iface lo --pair ap1/sta1 --model "$WORK/model.json" --redis no-such-host.invalid:6379 \
      --appliance t --duration 1 2>&1) && fail "a --redis host that does not resolve accepted"
grep -q -- "--redis no-such-host.invalid:6379: host no-such-host.invalid" <<<"$out" \
    || fail "no message for a --redis host that does not resolve: $out"
# --pidfile and --stats that cannot be written are refused at start, named: the pid file was silently not written
# (whoever waited for it never saw the agent), and --stats failed only at exit, with status 0, the counters lost
for opt in --pidfile --stats; do
    out=$("$AGENT" --iface lo --pair ap1/sta1 --model "$WORK/model.json" "$opt" "$WORK/no-such-dir/f" --duration 0.2 \
          2>&1) && fail "$opt in a missing directory accepted"
    grep -q -- "$opt $WORK/no-such-dir/f: No such file or directory" <<<"$out" || fail "no message for $opt: $out"
done

ip netns add "$NS_AP"
ip netns add "$NS_STA"
# The STA's interface has a '"' in its name (Linux allows it): --stats must still be JSON.
STA_IF='wl"an0'
ip link add ap0 netns "$NS_AP" type veth peer name "$STA_IF" netns "$NS_STA"
ip netns exec "$NS_AP" ip addr add 198.18.9.1/24 dev ap0
ip netns exec "$NS_STA" ip addr add 198.18.9.2/24 dev "$STA_IF"
ip netns exec "$NS_AP" ip link set ap0 up
ip netns exec "$NS_STA" ip link set "$STA_IF" up
for ns in "$NS_AP" "$NS_STA"; do ip netns exec "$ns" ip link set lo up; done

SOCK="$WORK/redis.sock"
redis-server --port 0 --unixsocket "$SOCK" --save "" --appendonly no --dir "$WORK" \
    --requirepass adm1n --user agent on '>s3cret' '~adwiser:appliance:*:tm:sta' '+xadd' >"$WORK/redis.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
R() { redis-cli -s "$SOCK" --no-auth-warning -a adm1n "$@"; }   # the default user needs a password here
R PING >/dev/null || fail "redis-server did not start"

echo "agent s3cret" >"$WORK/auth"
echo "agent wrong" >"$WORK/auth-wrong"
echo "agent" >"$WORK/auth-bad"
out=$("$AGENT" --iface lo --pair ap1/sta1 --model "$WORK/model.json" --redis "unix:$SOCK" --appliance t \
      --redis-auth "$WORK/auth-bad" 2>&1) && fail "an auth file without a password accepted"
grep -q 'expected "USER PASSWORD"' <<<"$out" || fail "no message for a bad auth file: $out"

ip netns exec "$NS_STA" "$AGENT" --iface "$STA_IF" --pair ap1/sta1 --model "$WORK/model.json" \
    --redis "unix:$SOCK" --appliance t --redis-auth "$WORK/auth" --period-ms 100 --stats "$WORK/stats.json" \
    --duration 30 >"$WORK/agent.log" 2>&1 &
AGENT_PID=$!
PIDS+=("$AGENT_PID")
# the same packets, seen by a second agent whose password is wrong
ip netns exec "$NS_STA" "$AGENT" --iface "$STA_IF" --pair ap1/sta9 --model "$WORK/model.json" \
    --redis "unix:$SOCK" --appliance t --redis-auth "$WORK/auth-wrong" --stats "$WORK/stats-wrong.json" \
    --duration 30 >"$WORK/agent-wrong.log" 2>&1 &
WRONG_PID=$!
PIDS+=("$WRONG_PID")
sleep 0.5
kill -0 "$AGENT_PID" 2>/dev/null || { cat "$WORK/agent.log"; fail "the agent exited at start"; }

echo "-- $BURSTS bursts of $BURST datagrams, 3 ms apart"
ip netns exec "$NS_AP" "$LAB_PY" - "$BURSTS" "$BURST" <<'PYEOF'
import socket, sys, time
bursts, burst = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
payload = bytes(1200)
deadline = time.monotonic() + 20  # bounded whatever happens
for _ in range(bursts):
    for _ in range(burst):
        s.sendto(payload, ("198.18.9.2", 9))
    time.sleep(0.003)
    if time.monotonic() > deadline:
        sys.exit("sender: out of time")
PYEOF
# Stopped right after the last burst, mid-period: the agent closes the open A-MPDU and reports the partial period
# as it exits, so nothing below waits for the idle close.
kill "$AGENT_PID" "$WRONG_PID"
for p in "$AGENT_PID" "$WRONG_PID"; do for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; done
cat "$WORK/agent.log" "$WORK/agent-wrong.log"
grep -q "AUTH agent: WRONGPASS" "$WORK/agent-wrong.log" || fail "the wrong password's refusal was not reported"

echo "-- counts"
R XRANGE adwiser:appliance:t:tm:sta - + >"$WORK/stream.txt"
"$LAB_PY" - "$WORK/stats.json" "$WORK/stream.txt" "$BURSTS" "$BURST" "$WORK/stats-wrong.json" <<'PYEOF'
import json, sys
stats = json.load(open(sys.argv[1]))
wrong = json.load(open(sys.argv[5]))
assert wrong["reports"] == 0 and wrong["redis_errors"] > 0 and wrong["packets"] == stats["packets"], wrong
bursts, burst = int(sys.argv[3]), int(sys.argv[4])
lines = [l.strip() for l in open(sys.argv[2]) if l.strip()]
entries, cur = [], None
for i, l in enumerate(lines):          # redis-cli: id, then field/value lines
    if l in ("pair", "mpdus", "frames", "mpdus_ok"):
        cur[l] = lines[i + 1]
    elif "-" in l and l.split("-")[0].isdigit():
        cur = {}
        entries.append(cur)
sent = bursts * burst
assert stats["iface"] == 'wl"an0', stats
assert stats["packets"] == sent and stats["socket_drops"] == 0, f"agent counted {stats['packets']} packets, {sent} sent: {stats}"
assert entries and all(e["pair"] == "ap1/sta1" for e in entries), entries[:3]
ok = sum(int(e["mpdus_ok"]) for e in entries)
frames = sum(int(e["frames"]) for e in entries)
mean = sum(float(e["mpdus"]) * int(e["frames"]) for e in entries) / frames
print(f"{len(entries)} entries: {frames} A-MPDUs, {ok} packets, {mean:.2f} per A-MPDU "
      f"(sent {bursts} x {burst}); stats {stats}")
assert ok == sent, f"tm:sta counts {ok} packets, {sent} sent"
# --stats counts the A-MPDUs the entries carry, the last partial period's included
assert stats["frames"] == frames, f"stats count {stats['frames']} A-MPDUs, tm:sta {frames}"
# A burst split by a preempted sender, or two merged, moves these a little; the classifier must find nearly all.
assert abs(frames - bursts) <= 0.03 * bursts, f"{frames} A-MPDUs found for {bursts} bursts"
assert abs(mean - burst) <= 0.03 * burst, f"{mean:.2f} per A-MPDU for bursts of {burst}"
assert stats["reports"] == len(entries) and stats["redis_errors"] == 0, stats
PYEOF
echo "PASS test_sta_agent"
