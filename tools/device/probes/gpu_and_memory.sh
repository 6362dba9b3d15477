#!/usr/bin/env bash
# GPU pytest, then the memory-bound suite with both timers (carry "dist"). Results in $OUT.
#   bash tools/device/probes/gpu_and_memory.sh [TIMERS (default: "event cudagraph")]
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/setup.txt"
(cd python && timeout 300 python3 -m pytest -q -m gpu test/gpu 2>&1 | tail -15) | tee "$out/gpu_tests.txt"
for timer in ${1:-event cudagraph}; do
  timeout 200 python3 benchmarks/memory_bound.py --timer $timer --out "$out/memory_bound_$timer.json" > "$out/memory_bound_$timer.txt" 2>&1
  echo "== timer $timer"; sed -n '/^case /,$p' "$out/memory_bound_$timer.txt"
done
