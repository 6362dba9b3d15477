#!/usr/bin/env bash
# PTX/TTGIR of the memory-bound kernels under both compilers ($OUT/asm.tgz, from mb_one.py), then
# memory_bound.py with the given options (e.g. --timer cudagraph). Carry "dist".
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks OUT="$out" PYTHONUNBUFFERED=1
for impl in tessera triton; do
  timeout 120 python3 tools/device/probes/mb_one.py $impl "rms_norm fp16 4096x1024" "cross_entropy fp32 4096x8192" \
    "layer_norm fp16 4096x8192" "transpose fp32 8192x8192" "softmax fp32 4096x1024"
done
(cd "$out" && tar czf asm.tgz *.ptx *.ttgir && rm -f *.ptx *.ttgir)
timeout 300 python3 benchmarks/memory_bound.py --out "$out/memory_bound.json" "$@" > "$out/memory_bound.txt" 2> "$out/memory_bound_err.txt"
sed -n '/^case /,$p' "$out/memory_bound.txt"; tail -5 "$out/memory_bound_err.txt"
