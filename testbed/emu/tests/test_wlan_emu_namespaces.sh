#!/bin/bash
# Namespace test of wlan-emu: server <-> [emu: ap1 | sta1] <-> sta1.
#
#   <P>srv eth0 ──veth── ap1 <P>emu sta1 ──veth── eth0 <P>sta
#   198.18.200.1                 wlan-emu                198.18.200.11
#
# A bounded UDP burst and a bounded TCP transfer cross the emulated air;
# asserts delivery, ordering, and that the ground-truth log shows a decoded
# MPDU for every frame the emulator delivered. A last run without mac= checks
# that the STA's MAC is learned from its first (uplink) frame and that a SIGUSR1 applies --rss-step
# mid-run (refused at start when it names no link of the air). Namespaces are named with this
# run's PID and removed on any exit.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
EMU_DIR=$(dirname "$HERE")
P="wemu$$"
SRV="${P}srv" EMU="${P}emu" STA="${P}sta"
WORK=$(mktemp -d /tmp/wlan-emu-test.XXXXXX)
EMU_PID=""
PY=${PYTHON:-python3}
SRV_MAC=02:ad:c8:00:00:01 STA_MAC=02:ad:c8:00:00:0b

cleanup() {
    set +e
    if [ -n "$EMU_PID" ] && kill -0 "$EMU_PID" 2>/dev/null; then
        kill -TERM "$EMU_PID"; sleep 0.5; kill -0 "$EMU_PID" 2>/dev/null && kill -KILL "$EMU_PID"
    fi
    for ns in "$SRV" "$EMU" "$STA"; do ip netns del "$ns" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

fail() { echo "FAIL: $*" >&2; exit 1; }
wait_ready() { # wait_ready <file>: up to 10 s for a receiver to bind
    for _ in $(seq 100); do [ -e "$1" ] && return 0; sleep 0.1; done
    fail "receiver did not start ($1)"
}
in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

for ns in "$SRV" "$EMU" "$STA"; do
    ip netns add "$ns"
    in_ns "$ns" ip link set lo up
    in_ns "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip link add "${P}a" netns "$SRV" type veth peer name ap1 netns "$EMU"
ip link add "${P}b" netns "$STA" type veth peer name sta1 netns "$EMU"
in_ns "$SRV" ip link set "${P}a" name eth0 address "$SRV_MAC"
in_ns "$STA" ip link set "${P}b" name eth0 address "$STA_MAC"
for pair in "$SRV eth0" "$STA eth0" "$EMU ap1" "$EMU sta1"; do
    set -- $pair
    # MTU-sized frames on the air, as on WiFi: no segmentation offloads.
    in_ns "$1" ethtool -K "$2" tso off gso off gro off tx off >/dev/null 2>&1 || true
    in_ns "$1" ip link set "$2" up
done
in_ns "$SRV" ip addr add 198.18.200.1/24 dev eth0
in_ns "$STA" ip addr add 198.18.200.11/24 dev eth0
# Static neighbours: the only unicast frames on the air are the test's own.
in_ns "$SRV" ip neigh replace 198.18.200.11 lladdr "$STA_MAC" dev eth0 nud permanent
in_ns "$STA" ip neigh replace 198.18.200.1 lladdr "$SRV_MAC" dev eth0 nud permanent

ip netns exec "$EMU" "$EMU_DIR/wlan-emu" --ap ap1=ap1 --sta "sta1=sta1,mac=$STA_MAC,ap=ap1" \
    --gt-log "$WORK/gt.jsonl" --stats "$WORK/stats.json" --duration 60 2>"$WORK/emu.err" &
EMU_PID=$!
sleep 0.3
kill -0 "$EMU_PID" 2>/dev/null || { cat "$WORK/emu.err"; fail "wlan-emu did not start"; }

# 1. UDP burst: 3000 datagrams paced at about 45 Mbit/s, downlink.
N=3000
in_ns "$STA" timeout 30 "$PY" "$HERE/udp_burst.py" recv 9000 "$N" 15 "$WORK/udp.json" "$WORK/udp.ready" &
RECV_PID=$!
wait_ready "$WORK/udp.ready"
in_ns "$SRV" timeout 30 "$PY" "$HERE/udp_burst.py" send 198.18.200.11 9000 "$N" 20 5
wait "$RECV_PID"

# 2. TCP: 4 MB downlink, data through the air one way and ACKs the other.
BYTES=4000000
in_ns "$STA" timeout 40 "$PY" "$HERE/udp_burst.py" tcp-recv 9001 "$WORK/tcp.json" "$WORK/tcp.ready" &
RECV_PID=$!
wait_ready "$WORK/tcp.ready"
in_ns "$SRV" timeout 40 "$PY" "$HERE/udp_burst.py" tcp-send 198.18.200.11 9001 "$BYTES"
wait "$RECV_PID"
sleep 0.2

kill -TERM "$EMU_PID"
wait "$EMU_PID" || fail "wlan-emu exited with an error: $(cat "$WORK/emu.err")"
EMU_PID=""

"$PY" - "$WORK" "$N" "$BYTES" "$("$PY" "$HERE/udp_burst.py" pattern-sha "$BYTES")" <<'PYEOF'
import json, sys
work, n, nbytes, sha = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
udp = json.load(open(f"{work}/udp.json"))
tcp = json.load(open(f"{work}/tcp.json"))
stats = json.load(open(f"{work}/stats.json"))
links = {(l["src"], l["dst"]): l for l in stats["links"]}
down, up = links[("ap1", "sta1")], links[("sta1", "ap1")]
ok_ids = {}
enq_ok = True
for line in open(f"{work}/gt.jsonl"):
    r = json.loads(line)
    enq_ok = enq_ok and len(r["enq_us"]) == len(r["ids"]) and all(e <= r["start_us"] for e in r["enq_us"])
    for pid, bit in zip(r["ids"], r["ok_mask"]):
        if bit == "1":
            ok_ids.setdefault((r["src"], r["dst"]), set()).add(pid)
errors = []
def check(cond, what):
    if not cond:
        errors.append(what)
    print(("ok   " if cond else "FAIL ") + what)
check(udp["received"] == n, f"UDP: {udp['received']}/{n} datagrams delivered")
check(udp["in_order"] and udp["duplicates"] == 0, "UDP: in order, no duplicates")
check(tcp["bytes"] == nbytes and tcp["sha256"] == sha, f"TCP: {tcp['bytes']}/{nbytes} bytes, content intact")
for key, link in (("ap1", "sta1"), down), (("sta1", "ap1"), up):
    check(link["frames_out"] == link["delivered"], f"{key}: every frame the model delivered was sent ({link['frames_out']})")
    check(link["frames_in"] == link["frames_out"] + link["dropped"],
          f"{key}: nothing left in the air at exit (in {link['frames_in']}, out {link['frames_out']}, dropped {link['dropped']})")
    check(len(ok_ids.get(key, ())) == link["frames_out"],
          f"{key}: ground truth shows a decoded MPDU for each delivered frame ({len(ok_ids.get(key, ()))})")
    check(link["intake_latency_us"]["n"] == link["frames_in"],
          f"{key}: every frame queued into the air carries its kernel arrival stamp ({link['intake_latency_us']})")
check(enq_ok, "ground truth: every PPDU carries enq_us parallel to ids, none after the PPDU's start")
check(down["frames_out"] >= n + nbytes // 1448, "downlink carried the UDP burst and the TCP data")
check(down["mean_ampdu"] is not None and down["mean_ampdu"] >= 1.0, f"downlink mean A-MPDU {down['mean_ampdu']}")
check(stats["bypass"]["unknown_destination"] == 0, "no frame for an unknown MAC")
import time
t0 = stats.get("t0_unix_ns")
check(isinstance(t0, int) and t0 + stats["wall_s"] * 1e9 <= time.time_ns() < t0 + 600e9,
      f"stats carry t0_unix_ns, the Unix time of the ground truth's start_us 0 ({t0})")
t = down["timing_error_us"]
print(f"delivery timing error ap1->sta1: p50 {t['p50']} us, p99 {t['p99']} us, max {t['max']} us; "
      f"CPU {stats['cpu_percent']:.1f} % of one core over {stats['wall_s']:.1f} s; "
      f"mean A-MPDU {down['mean_ampdu']:.1f}, mean PHY {down['mean_phy_mbps']:.1f} Mbit/s")
sys.exit(1 if errors else 0)
PYEOF
# 3. Without mac=: the STA's MAC is learned from its first frame (uplink, through the air). On SIGUSR1
#    the link loses 6 dB (--rss-step); the downlink burst that follows still arrives whole.
if ip netns exec "$EMU" "$EMU_DIR/wlan-emu" --ap ap1=ap1 --sta sta1=sta1 --rss-step ap1,sta9,-6 \
        --duration 1 2>"$WORK/badstep.err"; then
    fail "wlan-emu accepted --rss-step naming no node sta9"
fi
grep -q -- "--rss-step 'ap1,sta9,-6': 'ap1' and 'sta9' must be two nodes" "$WORK/badstep.err" \
    || fail "unclear --rss-step refusal: $(cat "$WORK/badstep.err")"
echo "ok   --rss-step naming an unknown node is refused: $(cat "$WORK/badstep.err")"
ip netns exec "$EMU" "$EMU_DIR/wlan-emu" --ap ap1=ap1 --sta sta1=sta1 --rss-step ap1,sta1,-6 \
    --stats "$WORK/learn.json" --duration 30 2>"$WORK/learn.err" &
EMU_PID=$!
sleep 0.3
in_ns "$SRV" timeout 20 "$PY" "$HERE/udp_burst.py" recv 9002 1 10 "$WORK/up.json" "$WORK/up.ready" &
RECV_PID=$!
wait_ready "$WORK/up.ready"
in_ns "$STA" timeout 20 "$PY" "$HERE/udp_burst.py" send 198.18.200.1 9002 1 1 0
wait "$RECV_PID"
kill -USR1 "$EMU_PID"
in_ns "$STA" timeout 30 "$PY" "$HERE/udp_burst.py" recv 9003 200 10 "$WORK/down.json" "$WORK/down.ready" &
RECV_PID=$!
wait_ready "$WORK/down.ready"
in_ns "$SRV" timeout 20 "$PY" "$HERE/udp_burst.py" send 198.18.200.11 9003 200 20 5
wait "$RECV_PID"
kill -TERM "$EMU_PID"
wait "$EMU_PID" || fail "wlan-emu (learning) exited with an error: $(cat "$WORK/learn.err")"
EMU_PID=""
grep -q "rss step at .* us: ap1<->sta1 -6.0 dB, now -70.6 dBm at sta1, -70.1 dBm at ap1" "$WORK/learn.err" \
    || fail "SIGUSR1 did not apply --rss-step ap1,sta1,-6: $(cat "$WORK/learn.err")"
echo "ok   SIGUSR1 applied the RSS step: $(grep 'rss step' "$WORK/learn.err")"
"$PY" - "$WORK" <<'PYEOF'
import json, sys
work = sys.argv[1]
st = json.load(open(f"{work}/learn.json"))
links = {(l["src"], l["dst"]): l for l in st["links"]}
up, down = json.load(open(f"{work}/up.json")), json.load(open(f"{work}/down.json"))
ok = (up["received"] == 1 and down["received"] == 200 and down["in_order"]
      and links[("sta1", "ap1")]["frames_out"] == 1 and links[("ap1", "sta1")]["frames_out"] == 200
      and st["bypass"]["unknown_destination"] == 0)
print(("ok   " if ok else "FAIL ") + f"learned STA MAC: uplink {up['received']}/1 and downlink {down['received']}/200 "
      f"through the air, unknown-destination bypass {st['bypass']['unknown_destination']}")
sys.exit(0 if ok else 1)
PYEOF

echo "PASS: wlan-emu namespace test"
