#!/usr/bin/env bash
# The full h200_run.sh batch (conformance with timings, GPU pytest, large shapes, launch cost,
# first call), then the memory-bound suite under both timers. Carry "dist". Results in $OUT
# (conformance files, summary, memory_bound_{event,cudagraph}.txt; at most 8 files come back).
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh > /tmp/h200_run.txt 2>&1
tail -45 /tmp/h200_run.txt
rm -f "$out/launch_overhead.json" "$out/first_call.json" "$out/large_shapes.json"
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
for timer in event cudagraph; do
  timeout 200 python3 benchmarks/memory_bound.py --timer $timer > "$out/memory_bound_$timer.txt" 2>&1
  echo "== timer $timer"; sed -n '/^case /,$p' "$out/memory_bound_$timer.txt"
done
