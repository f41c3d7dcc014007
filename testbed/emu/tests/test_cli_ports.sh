#!/usr/bin/env bash
# wlan-emu's --ap/--sta: an interface given to two ports is refused with exit 2 and a message naming it, before
# any interface is looked up or socket opened (two sockets on one interface would each read every frame it
# receives and forward it twice, once per port). The interfaces do not exist, so getting as far as opening one
# shows in stderr as "interface ...". Needs no root and no namespaces.
set -u
EMU="$(dirname "$0")/../wlan-emu"
fails=0

refused() { # ARGS...: exit 2, message names the shared interface, nothing opened
    local err rc
    err=$("$EMU" "$@" 2>&1 >/dev/null)
    rc=$?
    if [[ $rc -ne 2 || $err != *"interface wemunoif0 is given to two ports"* || $err == *"interface wemunoif0:"* ]]; then
        echo "FAIL: $* (exit $rc): $err"
        fails=$((fails + 1))
    fi
}

accepted() { # ARGS...: distinct interfaces, so wlan-emu gets as far as the (missing) first one
    local err
    err=$("$EMU" "$@" 2>&1 >/dev/null)
    if [[ $err != *"interface wemunoif0:"* ]]; then
        echo "FAIL: $* should get to opening the interfaces: $err"
        fails=$((fails + 1))
    fi
}

refused --ap ap1=wemunoif0 --sta sta1=wemunoif0
refused --ap ap1=wemunoif0 --ap ap2=wemunoif0 --sta sta1=wemunoif1
refused --ap ap1=wemunoif1 --ap ap2=wemunoif2 --sta sta1=wemunoif0,mac=02:ad:00:00:01:01 --sta sta2=wemunoif0,ap=ap2
accepted --ap ap1=wemunoif0 --sta sta1=wemunoif1
accepted --ap ap1=wemunoif0 --ap ap2=wemunoif2 --sta sta1=wemunoif1,mac=02:ad:00:00:01:01 --sta sta2=wemunoif3

if [[ $fails -ne 0 ]]; then
    echo "$fails port check(s) failed"
    exit 1
fi
echo "ports: an interface given to two ports is refused"
