#!/usr/bin/env bash
# adwiser-dp --check-config: the built program checks a document with the loader and the checks of a start
# (including the cross-field rules the JSON Schema cannot express, which ansible relies on it for) and the
# --ack-model / --pacing / --ap files and names given, prints "FILE: ok" or the error naming the field, exits
# 0 / 1 (2 for a bad command line), and starts no EAL.  No root, namespaces or Redis.
# Usage: test_check_config.sh BUILD_DIR LAB_JSON   (PY: a Python with the json module, default python3)
set -euo pipefail
BUILD=${1:?usage: test_check_config.sh BUILD_DIR LAB_JSON}
LAB=${2:?usage: test_check_config.sh BUILD_DIR LAB_JSON}
DP="$BUILD/adwiser-dp"
PY=${PY:-python3}
[ -x "$PY" ] || command -v "$PY" >/dev/null || PY=python3   # as dp.mk does for the lab JSON
HERE=$(cd "$(dirname "$0")" && pwd)
ACK_MODEL="$HERE/../../../configs/ack_burst_model.json"
STA_MODEL="$HERE/../../../configs/sta_frame_model.json"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# check NAME WANT_RC WANT_TEXT ARGS...: runs adwiser-dp ARGS, wants exit code WANT_RC and WANT_TEXT in its output.
check() {
    local name=$1 want_rc=$2 want=$3 rc=0
    shift 3
    "$DP" "$@" >"$TMP/out" 2>&1 || rc=$?
    [ "$rc" = "$want_rc" ] || fail "$name: exit $rc, want $want_rc: $(cat "$TMP/out")"
    grep -qF -- "$want" "$TMP/out" || fail "$name: output does not say '$want': $(cat "$TMP/out")"
    if grep -q '^EAL:' "$TMP/out"; then fail "$name: the EAL was started"; fi
}

# mutate NAME PYTHON: writes $TMP/NAME.json, the lab document changed by the Python statement (d = the document).
mutate() {
    "$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$LAB" "$TMP/$1.json" "$2"
}

check "lab document" 0 "$LAB: ok" --check-config "$LAB"
check "lab document, = form" 0 "$LAB: ok" "--check-config=$LAB"
check "with the ACK model" 0 "$LAB: ok" --check-config "$LAB" --ack-model "$ACK_MODEL"
printf '{"ap1/sta1": 60000000}\n' >"$TMP/pacing.json"
check "with a pacing table" 0 "$LAB: ok" --check-config "$LAB" --pacing "$TMP/pacing.json"
check "with --ap bindings" 0 "$LAB: ok" --check-config "$LAB" --ap ap1=net_null1 --port ap2=ap2

# Each refused by the dataplane's loader although the schema (Python's jsonschema) lets it through or cannot say.
mutate no_slice 'd["slice_map"]["slices"].pop(1)'
check "pair in no slice" 1 "pair ap2/sta2 is in no slice" --check-config "$TMP/no_slice.json"
mutate conflict 'd["slice_map"]["slices"].pop(1); d["slice_map"]["slices"][0]["pairs"].append("ap2/sta2")'
check "conflicting pairs in one slice" 1 "slice_map.slices[0]: pairs ap1/sta1 and ap2/sta2 conflict" \
    --check-config "$TMP/conflict.json"
mutate unknown_pair 'd["slice_map"]["slices"][0]["pairs"].append("ap1/sta9")'
check "unknown pair" 1 "slice_map.slices[0].pairs[1]: no STA 'sta9'" --check-config "$TMP/unknown_pair.json"
mutate dup_sta 'd["topology"]["stas"][1]["id"] = "sta1"'
check "duplicate STA id" 1 "topology.stas[1]: duplicate STA id 'sta1'" --check-config "$TMP/dup_sta.json"
mutate long_frame 'd["slice_map"]["slices"] = [{"duration_ms": 400, "pairs": [p]} for p in ["ap1/sta1", "ap2/sta2", "ap1/sta1"]]'
check "frame over 1000 ms" 1 "slice_map.slices: frame of 1200.000 ms exceeds 1000 ms" --check-config "$TMP/long_frame.json"
mutate r_min 'd["policies"]["ts_abr_qd"]["r_min_pkts"] = 4096'
check "r_min > r_max" 1 "policies.ts_abr_qd.r_min_pkts" --check-config "$TMP/r_min.json"
# Two APs on one port and VLAN (both untagged alike): their frames cannot be told apart on either backend.
mutate same_vlan 'for ap in d["topology"]["aps"]: ap.update(port="trunk0", vlan=101)'
for backend in dpdk nfqueue; do
    check "$backend: two APs on one port and VLAN" 1 \
        "topology.aps[1].vlan: AP 'ap2' has the port and VLAN of AP 'ap1' (port 'trunk0', vlan 101)" \
        --check-config "$TMP/same_vlan.json" --backend "$backend"
done
mutate both_untagged 'for ap in d["topology"]["aps"]: ap.update(port="trunk0", vlan=None)'
check "two untagged APs on one port" 1 "topology.aps[1].vlan: AP 'ap2' has the port and VLAN of AP 'ap1' (port 'trunk0', untagged)" \
    --check-config "$TMP/both_untagged.json"
mutate two_vlans 'd["topology"]["aps"][0].update(port="trunk0", vlan=None); d["topology"]["aps"][1].update(port="trunk0", vlan=102)'
check "an untagged and a tagged AP on one port" 0 "$TMP/two_vlans.json: ok" --check-config "$TMP/two_vlans.json"
mutate ap_name_128 'd["topology"]["aps"][0]["name"] = "\u00e9" * 128'
check "AP name of 128 characters (256 bytes of UTF-8)" 0 "$TMP/ap_name_128.json: ok" --check-config "$TMP/ap_name_128.json"
mutate ap_name 'd["topology"]["aps"][0]["name"] = "\u00e9" * 129'
check "AP name over 128 characters" 1 "topology.aps[0].name: 129 characters, at most 128 allowed" \
    --check-config "$TMP/ap_name.json"
mutate newline_id 'd["appliance_id"] = "lab\n"'
check "identifier with a trailing newline" 1 "appliance_id" --check-config "$TMP/newline_id.json"

# The other files and names a start checks.
"$PY" -c 'import json, sys
m = json.load(open(sys.argv[1])); m["coef"].pop(); json.dump(m, open(sys.argv[2], "w"))' "$ACK_MODEL" "$TMP/ack.json"
check "bad ACK model" 1 "--ack-model $TMP/ack.json: coef" --check-config "$LAB" --ack-model "$TMP/ack.json"
# the STA agent's model has the same format: only its "model" member tells it apart
check "STA frame model as the ACK model" 1 "--ack-model $STA_MODEL: model: expected \"adwiser-ack-burst-classifier\"" \
    --check-config "$LAB" --ack-model "$STA_MODEL"
# nor is a file that does not say what it models: it could be either
"$PY" -c 'import json, sys
m = json.load(open(sys.argv[1])); del m["model"]; json.dump(m, open(sys.argv[2], "w"))' "$STA_MODEL" "$TMP/nokind.json"
check "model file without a kind" 1 \
    "--ack-model $TMP/nokind.json: model: missing required field, expected \"adwiser-ack-burst-classifier\"" \
    --check-config "$LAB" --ack-model "$TMP/nokind.json"
printf '{"ap1/sta1": "fast"}\n' >"$TMP/bad_pacing.json"
check "bad pacing table" 1 "--pacing $TMP/bad_pacing.json: pacing: ap1/sta1" \
    --check-config "$LAB" --pacing "$TMP/bad_pacing.json"
check "--ap naming no AP" 1 "--ap ap9=x: no AP 'ap9'" --check-config "$LAB" --ap ap9=x
# bindings that put two APs on one port and VLAN, which a start refuses (DPDK) or cannot tell apart (NFQUEUE)
for backend in dpdk nfqueue; do
    check "$backend: --ap bindings of two untagged APs to one port" 1 \
        "--ap ap2=eth5: AP 'ap2' gets the port and VLAN of AP 'ap1' (port 'eth5', untagged)" \
        --check-config "$LAB" --backend "$backend" --ap ap1=eth5 --ap ap2=eth5
done
check "--port binding of two untagged APs to one port" 1 \
    "--port ap2=net_null1: AP 'ap2' gets the port and VLAN of AP 'ap1' (port 'net_null1', untagged)" \
    --check-config "$LAB" --port ap1=net_null1 --port ap2=net_null1
check "--port binding of two APs with their own VLANs to one port" 0 "$TMP/two_vlans.json: ok" \
    --check-config "$TMP/two_vlans.json" --port trunk0=net_null1
# an AP on the uplink's port, which a DPDK start refuses (the uplink is never shared); under NFQUEUE a tagged AP
# there is another interface (<port>.<vlan>), an untagged one the uplink itself
for backend in dpdk nfqueue; do
    check "$backend: --ap binding of an untagged AP to the uplink's port" 1 \
        "--ap ap1=eth0: AP 'ap1' gets the uplink's port 'eth0'; the uplink is never shared" \
        --check-config "$LAB" --backend "$backend" --uplink eth0 --ap ap1=eth0
done
mutate tagged_trunk 'd["topology"]["aps"][0].update(port="trunk0", vlan=101); d["topology"]["aps"][1].update(port="trunk0", vlan=102)'
check "dpdk: a tagged AP on the uplink's port" 1 \
    "topology.aps[0].port: AP 'ap1' gets the uplink's port 'trunk0'; the uplink is never shared (DPDK backend)" \
    --check-config "$TMP/tagged_trunk.json" --uplink trunk0
check "nfqueue: tagged APs on the uplink's port" 0 "$TMP/tagged_trunk.json: ok" \
    --check-config "$TMP/tagged_trunk.json" --backend nfqueue --uplink trunk0
check "missing document" 1 "$TMP/absent.json" --check-config "$TMP/absent.json"

# --backend nfqueue: ports are Linux interfaces, whose names have at most 15 characters (".<vlan>" included); a
# longer one is refused naming where it came from, not looked up (nor quoted cut short) at start.
P100=$(printf 'p%.0s' $(seq 100))
mutate long_vlan_if "d['topology']['aps'][0]['port'] = '$P100'; d['topology']['aps'][0]['vlan'] = 101"
check "nfqueue: VLAN interface name over 15 characters" 1 \
    "topology.aps[0].port: VLAN interface name '$P100.101' is 104 characters, Linux allows at most 15" \
    --check-config "$TMP/long_vlan_if.json" --backend nfqueue
check "nfqueue: --ap interface over 15 characters" 1 \
    "--ap ap1=enp59s0f1np1xyzw: interface name 'enp59s0f1np1xyzw' is 16 characters" \
    --check-config "$LAB" --backend nfqueue --ap ap1=enp59s0f1np1xyzw
check "nfqueue: --uplink over 15 characters" 1 "--uplink: interface name 'uplink-interface' is 16 characters" \
    --check-config "$LAB" --backend nfqueue --uplink uplink-interface
check "nfqueue: 15 characters" 0 "$LAB: ok" --check-config "$LAB" --backend nfqueue --ap ap1=enp59s0f1np1xyz
check "dpdk: a port name is not an interface name" 0 "$TMP/long_vlan_if.json: ok" --check-config "$TMP/long_vlan_if.json"

# Command-line errors.
check "--check-config without a file" 2 "--check-config" --check-config
check "--check-config with --config" 2 "--check-config and --config" --check-config "$LAB" --config "$LAB"

[ "$fails" = 0 ] || { echo "FAIL: test_check_config ($fails)" >&2; exit 1; }
echo "PASS: test_check_config"
