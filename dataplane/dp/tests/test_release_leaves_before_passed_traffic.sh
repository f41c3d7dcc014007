#!/usr/bin/env bash
# adwiser-dp sends what the core releases in a burst before the burst's passed
# packets.  The core releases a real-time packet at the instant the air is clear
# for it (realtime_release.c), with the conflicting AP's next batch a guard_us
# later; over veths a flush runs the receiving stack inside our sendto, so a
# release queued behind the iteration's passed traffic (STA1's TCP ACKs to the
# server) reached the emulated air after that batch had started (voice-bulk).
#
# One burst from the uplink (net_pcap replay) holds an ARP broadcast (passed:
# flooded to both APs) and then a downlink voice packet (DSCP EF) to STA2, which
# the core releases on arrival (no drain open).  AP1 and AP2 share one trunk
# port (VLANs 101, 102), so the order of the two on the wire is the order of
# one TX queue (net_pcap writes it to a file): the voice packet must be first.
# No namespaces, no timing.
# Usage: test_release_leaves_before_passed_traffic.sh BUILD_DIR
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:?build dir}" && pwd)
. "$HERE/netns_lab.sh"   # LAB_PY, lab_config_json, fail
WORK=$(mktemp -d "/tmp/adwrelfirst$$.XXXX")
trap 'lab_rm_dpdk_dir "adwrelfirst$$"; [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT

lab_config_json "$HERE/../../../configs/lab-2ap-2sta.yaml" "$WORK/trunk.json" "
for ap, vid in zip(c['topology']['aps'], (101, 102)):
    ap['port'] = 'trk'
    ap['vlan'] = vid"

# in.pcap (uplink): ARP who-has from the server, then voice to STA2 (02:ad:00:00:02:01); empty.pcap: the trunk.
"$LAB_PY" - "$WORK" <<'PYEOF'
import struct, sys
work = sys.argv[1]
def mac(s): return bytes(int(x, 16) for x in s.split(":"))
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
srv, sta2 = mac("02:ad:00:00:00:01"), mac("02:ad:00:00:02:01")
arp = b"\xff" * 6 + srv + b"\x08\x06" + struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + srv + bytes([198, 18, 0, 1]) \
    + b"\x00" * 6 + bytes([198, 18, 0, 12]) + b"\x00" * 18
payload = b"voice-rtp-20-bytes!!"
udp = struct.pack("!HHHH", 5004, 5004, 8 + len(payload), 0) + payload
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 46 << 2, 20 + len(udp), 1, 0, 64, 17, 0, bytes([198, 18, 0, 1]),
                 bytes([198, 18, 0, 12]))
ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
voice = sta2 + srv + b"\x08\x00" + ip + udp
def pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack("<IIII", 1, 0, len(fr), len(fr)) + fr)
pcap(f"{work}/in.pcap", [arp, voice])
pcap(f"{work}/empty.pcap", [])
PYEOF

timeout 60 "$BUILD/adwiser-dp" --no-huge -m 512 --no-pci -l 0 --log-level=lib.eal:error --file-prefix "adwrelfirst$$" \
    --vdev="net_pcap0,rx_pcap=$WORK/in.pcap,tx_pcap=$WORK/up_out.pcap" \
    --vdev="net_pcap1,rx_pcap=$WORK/empty.pcap,tx_pcap=$WORK/trk_out.pcap" \
    -- --config "$WORK/trunk.json" --uplink net_pcap0 --port trk=net_pcap1 --total-num-mbufs 16384 \
    --run-ms 300 --stats "$WORK/stats.json" >"$WORK/dp.log" 2>&1 || { cat "$WORK/dp.log"; fail "adwiser-dp failed"; }

# The trunk's frames in order: (VLAN id, EtherType inside the tag, DSCP if IPv4).
order=$("$LAB_PY" - "$WORK/trk_out.pcap" <<'PYEOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
off, out = 24, []
while off + 16 <= len(b):
    incl = struct.unpack_from("<IIII", b, off)[2]
    fr = b[off + 16:off + 16 + incl]
    off += 16 + incl
    vid = struct.unpack_from("!H", fr, 14)[0] & 0xfff if fr[12:14] == b"\x81\x00" else 0
    etype = fr[16:18].hex() if vid else fr[12:14].hex()
    ip = 18 if vid else 14
    dscp = fr[ip + 1] >> 2 if etype == "0800" else "-"
    out.append(f"{vid}/{etype}/{dscp}")
print(" ".join(out))
PYEOF
)
echo "   trunk TX order: $order"
set -- $order
[ "$#" -eq 3 ] || fail "expected 3 frames on the trunk (voice + the ARP to each AP), got $#: $order"
[ "$1" = "102/0800/46" ] || fail "the released voice packet is not the first frame on the trunk: $order"
echo "PASS: test_release_leaves_before_passed_traffic"
