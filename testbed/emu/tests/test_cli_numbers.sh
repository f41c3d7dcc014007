#!/usr/bin/env bash
# wlan-emu's numeric options: a value that is not a number in the option's range is refused with exit 2 and a
# message naming the option, before any interface is looked up or socket opened (the interfaces given here do
# not exist, so getting that far shows in stderr as "interface ..."). Needs no root and no namespaces.
set -u
EMU="$(dirname "$0")/../wlan-emu"
IFS_ARGS=(--ap ap1=wemunoif0 --sta sta1=wemunoif1)
fails=0

refused() { # OPTION VALUE
    local err rc
    err=$("$EMU" "$1" "$2" "${IFS_ARGS[@]}" 2>&1 >/dev/null)
    rc=$?
    if [[ $rc -ne 2 || $err != "wlan-emu: $1 "* || $err == *"interface wemunoif"* ]]; then
        echo "FAIL: $1 '$2' (exit $rc): $err"
        fails=$((fails + 1))
    fi
}

accepted() { # OPTION VALUE: parsed, so wlan-emu gets as far as the (missing) interfaces
    local err
    err=$("$EMU" "$1" "$2" "${IFS_ARGS[@]}" 2>&1 >/dev/null)
    if [[ $err != *"interface wemunoif0"* ]]; then
        echo "FAIL: $1 '$2' should be accepted: $err"
        fails=$((fails + 1))
    fi
}

for v in abc 5s "" -1 0 nan inf 1e300; do refused --duration "$v"; done
for v in abc 7x "" -1 +1 18446744073709551616; do refused --seed "$v"; done
for v in abc 10us "" -5 1e3 100001; do refused --spin-us "$v"; done
for v in abc 5x "" -1 100; do refused --rt-priority "$v"; done

accepted --duration 0.5
accepted --duration 60
accepted --seed 18446744073709551615
accepted --spin-us 0
accepted --spin-us 10
accepted --rt-priority 0
accepted --rt-priority 99

if [[ $fails -ne 0 ]]; then
    echo "$fails numeric option check(s) failed"
    exit 1
fi
echo "numeric options: all refusals and acceptances as expected"
