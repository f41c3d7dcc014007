#!/usr/bin/env bash
# Stop the private Open vSwitch started by ovs-start.sh RUN_DIR: the two
# daemons by the pids in their pid files (SIGTERM, then SIGKILL after 5 s).
# Bridges of the netdev datapath vanish with ovs-vswitchd; the run directory
# (database, logs) is left for inspection.
#
#   usage: ovs-stop.sh RUN_DIR
set -uo pipefail
RUN_DIR=${1:?usage: ovs-stop.sh RUN_DIR}
status=0
for daemon in ovs-vswitchd ovsdb-server; do
    pidfile="$RUN_DIR/$daemon.pid"
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "ovs-stop.sh: $daemon ($pid) ignored SIGTERM; SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
            status=1
        fi
    fi
    rm -f "$pidfile"
done
exit $status
