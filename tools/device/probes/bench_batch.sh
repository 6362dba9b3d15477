#!/usr/bin/env bash
# Issues 12 and 13's benchmarks in one call (carry "dist"): the memory-bound suite, the matmul
# sweep (timer and rounds from $TIMER / $ROUNDS; --sm80 beside it) and the attention sweep, all
# Tessera vs the installed Triton in one process each. Results in $OUT.
set -uo pipefail
out="${OUT:-/tmp/out}"
mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/setup.txt"
if [ "${MEMORY:-1}" = "1" ]; then
  timeout 200 python3 benchmarks/memory_bound.py --out "$out/memory_bound.json" > "$out/memory_bound.txt" 2> "$out/memory_bound_err.txt"
  sed -n '/^case /,$p' "$out/memory_bound.txt"
fi
if [ "${MATMUL:-1}" = "1" ]; then
  timeout 300 python3 benchmarks/matmul_sweep.py --timer "${TIMER:-cudagraph}" --rounds "${ROUNDS:-3}" --sm80 \
    --out "$out/matmul_sweep.json" 2>&1 | tee "$out/sweep.txt" | sed -n '/^== best/,$p'
fi
if [ "${ATTENTION:-1}" = "1" ]; then
  timeout 200 python3 benchmarks/attention.py --out "$out/attention.json" 2>&1 | tee "$out/attention.txt" | sed -n '/^== best/,$p'
fi
