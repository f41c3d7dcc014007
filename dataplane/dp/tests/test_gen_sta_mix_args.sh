#!/usr/bin/env bash
# gen_sta_mix (bench/gen_sta_mix.c) refuses a count that is not a whole number in range, before writing anything:
# atoi took "16abc" as 16 and "-1" rounds as 2^32 - 1 (pcaps written until the disk was full).
# Usage: test_gen_sta_mix_args.sh BUILD_DIR
set -euo pipefail
GEN="${1:?build dir}/gen_sta_mix"
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail=0
refused() {   # args...: must exit 2 at once and leave no pcap
    local rc=0
    # at most 1 MB of output (ulimit -f counts 1024-byte blocks): a count taken wrongly must not fill the disk
    (ulimit -f 1024; exec timeout 10 "$GEN" "$DIR" "$@") >/dev/null 2>&1 || rc=$?
    if [ "$rc" != 2 ] || [ -e "$DIR/uplink.pcap" ]; then
        echo "FAIL: gen_sta_mix $* -> exit $rc, uplink.pcap $([ -e "$DIR/uplink.pcap" ] && echo written || echo absent)"
        fail=1
    fi
    rm -f "$DIR"/*
}
refused 16 4 -1
refused 16abc 4 1
refused 16 4x 1
refused 16 4 1.5
refused 16 4 ""
refused 16 4 1 extra
refused 0 4 1
refused 16 65 1
"$GEN" "$DIR" 16 4 1 | grep -q '16 STAs on 4 APs: 34 uplink frames, 16 ACK frames' || { echo "FAIL: 16 4 1"; fail=1; }
[ "$fail" = 0 ] && echo "test_gen_sta_mix_args: ok"
exit "$fail"
