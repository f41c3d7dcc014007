# Shared by the end-to-end tests: a server namespace, an appliance namespace
# and two STA namespaces (the 2AP-2STA lab of configs/lab-2ap-2sta.yaml)
# joined by veth pairs, addresses only in 198.18.0.0/15.  Source it, then
# call lab_create; lab_destroy runs from the caller's EXIT trap.
#
#   server ns  s0 198.18.0.1 ── up0 ┐
#                                   │ appliance ns (adwiser-dp)
#   sta1 ns  wlan0 198.18.0.11 ── ap1 ┤
#   sta2 ns  wlan0 198.18.0.12 ── ap2 ┘
#
# The STA MACs are those of the configuration (02:ad:00:00:0N:01).

LAB="adwdp$$"            # namespace prefix unique to this run
LAB_PY=${PY:-python3}; [ -x "$LAB_PY" ] || LAB_PY=python3   # the venv's python (make passes PY) if there is one
NS_SRV="${LAB}-srv"
NS_APP="${LAB}-app"
NS_STA1="${LAB}-sta1"
NS_STA2="${LAB}-sta2"
LAB_PIDS=()              # PID:STARTTIME of the processes this test started (lab_track), stopped at exit

# Makes $WORK, the run's directory under /tmp, and sets the EXIT trap: lab_destroy,
# then the caller's own clean-up commands if given, then $WORK removed unless KEEP_WORK is set.
lab_work_dir() {   # [extra clean-up commands]
    WORK=$(mktemp -d "/tmp/${LAB}.XXXX")
    trap "lab_destroy; ${1:+$1; }"'[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT
}

lab_exec() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

lab_link() {   # ns_a if_a ns_b if_b
    ip link add "$2" netns "$1" type veth peer name "$4" netns "$3"
    lab_exec "$1" ip link set "$2" up
    lab_exec "$3" ip link set "$4" up
    # af_packet sees what the veth hands over: no TSO/GSO/GRO super-frames.
    lab_exec "$1" ethtool -K "$2" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
    lab_exec "$3" ethtool -K "$4" tso off gso off gro off tx off rx off >/dev/null 2>&1 || true
}

# A namespace may only default to an algorithm in the host's
# tcp_allowed_congestion_control list (EPERM otherwise), and a host whose own
# default is BBR lists only "reno bbr"; widen the list, never narrow it.
lab_allow_cubic() {
    local key=net.ipv4.tcp_allowed_congestion_control allowed
    allowed=$(sysctl -n "$key")
    case " $allowed " in
        *" cubic "*) ;;
        *) sysctl -qw "$key=$allowed cubic" ;;
    esac
}

lab_create() {
    for ns in "$NS_SRV" "$NS_APP" "$NS_STA1" "$NS_STA2"; do
        ip netns add "$ns"
        lab_exec "$ns" ip link set lo up
    done
    lab_link "$NS_SRV" s0 "$NS_APP" up0
    lab_link "$NS_STA1" wlan0 "$NS_APP" ap1
    lab_link "$NS_STA2" wlan0 "$NS_APP" ap2
    lab_exec "$NS_STA1" ip link set wlan0 address 02:ad:00:00:01:01
    lab_exec "$NS_STA2" ip link set wlan0 address 02:ad:00:00:02:01
    lab_exec "$NS_SRV" ip link set s0 address 02:ad:00:00:00:01
    lab_exec "$NS_SRV" ip addr add 198.18.0.1/24 dev s0
    lab_exec "$NS_STA1" ip addr add 198.18.0.11/24 dev wlan0
    lab_exec "$NS_STA2" ip addr add 198.18.0.12/24 dev wlan0
    lab_allow_cubic
    for ns in "$NS_SRV" "$NS_STA1" "$NS_STA2"; do
        lab_exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=cubic
        lab_exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
    done
}

# The appliance namespace as a router with proxy ARP (the NFQUEUE backend:
# this kernel has no br_netfilter, and nftables' bridge family cannot queue,
# so bridged frames would never reach NFQUEUE).
lab_make_router() {
    lab_exec "$NS_APP" sysctl -qw net.ipv4.ip_forward=1
    lab_exec "$NS_APP" ip addr add 198.18.0.254/32 dev up0
    for dev in up0 ap1 ap2; do
        lab_exec "$NS_APP" sysctl -qw "net.ipv4.conf.$dev.proxy_arp=1"
    done
    lab_exec "$NS_APP" ip route add 198.18.0.1/32 dev up0
    lab_exec "$NS_APP" ip route add 198.18.0.11/32 dev ap1
    lab_exec "$NS_APP" ip route add 198.18.0.12/32 dev ap2
}

# The start time of a running process (/proc/<pid>/stat field 22, clock ticks since boot); fails if pid
# is gone or a zombie.  PID and start time together name one process: a PID reused later has another.
lab_starttime() {   # pid
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    set -- ${stat##*) }   # the fields after "(comm)": state is the 1st, starttime the 20th
    [ "$1" != Z ] || return 1
    echo "${20}"
}

# Tracks a process for lab_stop_tracked / lab_destroy.  A tracked process that exits on its own (iperf3 -s -1,
# adwiser-dp once lab_stop_dp waited for it) is never signalled again, even if its PID is reused.
lab_track() {   # pid
    local st
    st=$(lab_starttime "$1") || return 0   # already gone: nothing to stop
    LAB_PIDS+=("$1:$st")
}

# Tracks the process named by a pid file (iperf3 -D -I FILE) once the file has a PID, waiting up to 5 s.
lab_track_pidfile() {   # file
    local pid=""
    for _ in $(seq 100); do
        pid=$(cat "$1" 2>/dev/null || true)
        [ -n "$pid" ] && break
        sleep 0.05
    done
    [ -n "$pid" ] || fail "no PID in $1 after 5 s"
    lab_track "$pid"
}

lab_is_tracked_process() {   # pid:starttime
    [ "$(lab_starttime "${1%%:*}" 2>/dev/null)" = "${1#*:}" ]
}

# SIGTERM to every tracked process still running as the process tracked, SIGKILL after 5 s.
lab_stop_tracked() {
    local entry
    for entry in "${LAB_PIDS[@]}"; do
        lab_is_tracked_process "$entry" && kill "${entry%%:*}" 2>/dev/null || true
    done
    for entry in "${LAB_PIDS[@]}"; do
        for _ in $(seq 50); do lab_is_tracked_process "$entry" || break; sleep 0.1; done
        if lab_is_tracked_process "$entry"; then kill -9 "${entry%%:*}" 2>/dev/null || true; fi
    done
    LAB_PIDS=()
}

# The runtime directory a DPDK program run with --file-prefix PREFIX leaves behind (DPDK's rte_eal_cleanup
# does not remove it); call once that program has exited, only for a prefix this test chose.
lab_rm_dpdk_dir() {   # prefix
    [ -n "$1" ] && [ "${1#*/}" = "$1" ] || return 0
    if [ "$(id -u)" = 0 ]; then rm -rf "/var/run/dpdk/$1"; else rm -rf "${XDG_RUNTIME_DIR:-/tmp}/dpdk/$1"; fi
}

lab_destroy() {
    lab_stop_tracked
    lab_rm_dpdk_dir "$LAB"   # the e2e tests run adwiser-dp with --file-prefix "$LAB"
    for ns in "$NS_SRV" "$NS_APP" "$NS_STA1" "$NS_STA2"; do
        ip netns del "$ns" 2>/dev/null || true
    done
}

# Converts a configuration YAML to the JSON adwiser-dp reads, with optional
# Python edits applied to the loaded dict `c` (e.g. "c['slice_map']['slices'][0]['duration_ms']=30").
lab_config_json() {   # in.yaml out.json [python statements]
    "$LAB_PY" - "$1" "$2" "${3:-}" <<'PYEOF'
import json, sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(c, open(sys.argv[2], "w"), indent=1)
PYEOF
}

fail() { echo "FAIL: $*" >&2; exit 1; }

# Stops adwiser-dp ($DP_PID) with SIGTERM, giving it up to 10 s, and fails if it
# exited with an error (showing $WORK/dp.log).  With --must-exit, still running
# after those 10 s is a failure of its own.
lab_stop_dp() {   # [--must-exit]
    kill -TERM "$DP_PID"
    for _ in $(seq 100); do kill -0 "$DP_PID" 2>/dev/null || break; sleep 0.1; done
    if [ "${1:-}" = --must-exit ] && kill -0 "$DP_PID" 2>/dev/null; then
        fail "adwiser-dp did not exit on SIGTERM"
    fi
    wait "$DP_PID" || { cat "$WORK/dp.log"; fail "adwiser-dp exited with an error"; }
}

# Reads one number from the --stats JSON: json_get file key.path
json_get() { "$LAB_PY" -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v[int(k)] if isinstance(v,list) else v[k]
print(v)' "$1" "$2"; }

# One number from the run's --stats file ($WORK/stats.json): rel key.path
rel() { json_get "$WORK/stats.json" "$1"; }
