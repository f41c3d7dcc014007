#!/usr/bin/env bash
# netns_lab.sh's process tracking: lab_stop_tracked / lab_destroy signal a tracked process only while it
# still runs as the process tracked (PID and start time).  Before, lab_destroy sent SIGTERM and then an
# unconditional SIGKILL to every PID ever tracked, including adwiser-dp already waited for and iperf3 -s -1
# daemons that had exited: a PID reused meanwhile was killed.  No namespaces, no adwiser-dp.
# Usage: test_lab_pids.sh
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/netns_lab.sh"
OTHER=""
trap '[ -z "$OTHER" ] || kill "$OTHER" 2>/dev/null || true' EXIT

# A tracked process that ran and was reaped, then its PID "reused": an unrelated process whose entry carries
# the reaped one's start time stands for it (a real reuse cannot be forced).
sleep 0.1 & done_pid=$!
lab_track "$done_pid"
wait "$done_pid"
sleep 600 & OTHER=$!
LAB_PIDS+=("$OTHER:$(( $(lab_starttime "$OTHER") - 1 ))")
# A daemon still running (iperf3 -D writes its pid file a moment after it starts): tracked from its pid file.
( sleep 0.3; echo $BASHPID >"/tmp/adwlabpids$$.pid"; exec sleep 600 ) &
lab_track_pidfile "/tmp/adwlabpids$$.pid"
daemon=$(cat "/tmp/adwlabpids$$.pid"); rm -f "/tmp/adwlabpids$$.pid"

lab_stop_tracked
kill -0 "$OTHER" 2>/dev/null || fail "lab_stop_tracked killed a process that only reused a tracked PID"
lab_starttime "$daemon" >/dev/null && fail "the tracked daemon $daemon is still running"
[ ${#LAB_PIDS[@]} -eq 0 ] || fail "LAB_PIDS not emptied"
if (lab_track_pidfile "/tmp/adwlabpids$$.absent") 2>/dev/null; then fail "a pid file that never came was accepted"; fi
echo "PASS: test_lab_pids"
