#!/usr/bin/env bash
# Development run: redis-server (AOF, loopback) + the controller, in controller/<run dir>/.
# Prints the URL; Ctrl-C stops both (by their PIDs). Usage: run_dev.sh RUN_DIR HOST PORT REDIS_PORT PY
set -euo pipefail
run_dir=$(realpath -m "$1"); host=$2; port=$3; redis_port=$4; py=$5
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$run_dir/redis"
redis_url="redis://127.0.0.1:$redis_port/0"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"

redis_pid=""; ctl_pid=""
stop() {
    trap - INT TERM EXIT
    [ -n "$ctl_pid" ] && kill "$ctl_pid" 2>/dev/null && wait "$ctl_pid" 2>/dev/null || true
    [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null || true
    rm -f "$run_dir/redis.pid" "$run_dir/controller.pid"
    echo "stopped redis-server and the controller"
}
trap stop INT TERM EXIT

redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$run_dir/redis" --appendonly yes \
    --appendfsync everysec --save "" --daemonize no --protected-mode yes >"$run_dir/redis.log" 2>&1 &
redis_pid=$!
echo "$redis_pid" >"$run_dir/redis.pid"
for _ in $(seq 100); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p "$redis_port" ping >/dev/null || { echo "redis-server did not start, see $run_dir/redis.log"; exit 1; }

if [ "$(redis-cli -p "$redis_port" scard adwiser:appliances)" = "0" ]; then
    "$py" -m adwiser_controller seed "$here/../configs/lab-2ap-2sta.yaml" --redis-url "$redis_url" \
        --author "cli:make-run" --comment "seeded by make run"
fi
if [ "$(redis-cli -p "$redis_port" scard adwiser:users)" = "0" ]; then
    echo "no users yet: create the first admin with"
    echo "  PYTHONPATH=$here $py -m adwiser_controller create-admin --username admin --redis-url $redis_url"
fi

"$py" -m adwiser_controller serve --redis-url "$redis_url" --host "$host" --port "$port" &
ctl_pid=$!
echo "$ctl_pid" >"$run_dir/controller.pid"
echo "controller: http://$host:$port/  (API docs http://$host:$port/docs, Redis $redis_url, data in $run_dir)"
echo "Ctrl-C stops both."
wait "$ctl_pid"
