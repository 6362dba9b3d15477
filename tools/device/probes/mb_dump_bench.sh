#!/usr/bin/env bash
# The PTX of every memory-bound case under both compilers ($OUT/ptx.tgz), then memory_bound.py with
# the given options (e.g. --timer cudagraph). Carry "dist".
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks OUT="$out" PYTHONUNBUFFERED=1
for impl in tessera triton; do
  timeout 150 python3 tools/device/probes/mb_dump_all.py $impl > "$out/dump_$impl.txt" 2>&1 || tail -5 "$out/dump_$impl.txt"
done
(cd "$out" && tar czf ptx.tgz tessera triton && rm -rf tessera triton)
timeout 300 python3 benchmarks/memory_bound.py --out "$out/memory_bound.json" "$@" > "$out/memory_bound.txt" 2> "$out/memory_bound_err.txt"
sed -n '/^case /,$p' "$out/memory_bound.txt"; tail -5 "$out/memory_bound_err.txt"
