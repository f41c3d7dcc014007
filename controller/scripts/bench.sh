#!/usr/bin/env bash
# make bench: bounded benchmark of the controller (starts and stops its own Redis and controller).
set -euo pipefail
py=$1
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
PYTHONPATH="$here" exec "$py" bench/bench_controller.py \
    --applies "${APPLIES:-100}" --rate "${RATE:-200}" --duration "${DURATION:-10}" --wrk-seconds "${WRK_SECONDS:-5}"
