#!/usr/bin/env bash
# Start a private Open vSwitch (ovsdb-server + ovs-vswitchd) under a
# project-local run directory, optionally inside a network namespace.
#
# This machine has no OVS kernel module, so bridges must use the userspace
# datapath (datapath_type=netdev, SPEC §7); the system openvswitch-switch
# service is never touched. Everything OVS writes (database, sockets, logs,
# pid files) stays in RUN_DIR, so several copies can run side by side.
#
# Either daemon that is already running (by its pid file) is left alone, so
# after a crash or a stop of ovs-vswitchd alone the same command brings it back.
#
#   usage: ovs-start.sh RUN_DIR [NETNS]
#   then:  ovs-vsctl  --db=unix:RUN_DIR/db.sock ...
#          ovs-ofctl  ... unix:RUN_DIR/<bridge>.mgmt
#   stop:  ovs-stop.sh RUN_DIR      (by the pids in RUN_DIR/*.pid)
set -euo pipefail
RUN_DIR=$(mkdir -p "${1:?usage: ovs-start.sh RUN_DIR [NETNS]}" && cd "$1" && pwd)
NETNS=${2:-}
SCHEMA=${OVS_SCHEMA:-/usr/share/openvswitch/vswitch.ovsschema}

in_ns() { if [ -n "$NETNS" ]; then ip netns exec "$NETNS" "$@"; else "$@"; fi; }

# Unix socket paths are limited to 107 bytes.
if [ ${#RUN_DIR} -gt 80 ]; then
    echo "ovs-start.sh: RUN_DIR '$RUN_DIR' is too long for unix sockets (max 80 characters)" >&2
    exit 2
fi
running() { [ -s "$RUN_DIR/$1.pid" ] && kill -0 "$(cat "$RUN_DIR/$1.pid")" 2>/dev/null; }

export OVS_RUNDIR=$RUN_DIR OVS_LOGDIR=$RUN_DIR OVS_DBDIR=$RUN_DIR OVS_SYSCONFDIR=$RUN_DIR
[ -f "$RUN_DIR/conf.db" ] || ovsdb-tool create "$RUN_DIR/conf.db" "$SCHEMA"

if ! running ovsdb-server; then
    in_ns ovsdb-server "$RUN_DIR/conf.db" \
        --remote="punix:$RUN_DIR/db.sock" \
        --pidfile="$RUN_DIR/ovsdb-server.pid" \
        --unixctl="$RUN_DIR/ovsdb-server.ctl" \
        --log-file="$RUN_DIR/ovsdb-server.log" \
        --detach --no-chdir
    ovs-vsctl --db="unix:$RUN_DIR/db.sock" --no-wait init
fi

if ! running ovs-vswitchd; then
    in_ns ovs-vswitchd "unix:$RUN_DIR/db.sock" \
        --pidfile="$RUN_DIR/ovs-vswitchd.pid" \
        --unixctl="$RUN_DIR/ovs-vswitchd.ctl" \
        --log-file="$RUN_DIR/ovs-vswitchd.log" \
        --detach --no-chdir
fi

# Ready when vswitchd has read the database and answers on its control socket.
for _ in $(seq 100); do
    if ovs-appctl -t "$RUN_DIR/ovs-vswitchd.ctl" version >/dev/null 2>&1; then
        echo "ovs-start.sh: OVS running in $RUN_DIR${NETNS:+ (netns $NETNS)}:" \
             "ovsdb-server $(cat "$RUN_DIR/ovsdb-server.pid"), ovs-vswitchd $(cat "$RUN_DIR/ovs-vswitchd.pid")"
        exit 0
    fi
    sleep 0.1
done
echo "ovs-start.sh: ovs-vswitchd did not come up; see $RUN_DIR/ovs-vswitchd.log" >&2
exit 1
