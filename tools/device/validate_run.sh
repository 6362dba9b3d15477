#!/usr/bin/env bash
# One device call that validates a build (carry "dist"): the conformance suite under Tessera and
# Triton (--bench), every GPU test, and the memory-bound benchmark under the CUDA-graph timer.
# Results: $OUT/setup.txt, conformance_{tessera,triton}.jsonl, gpu_tests.txt, memory_bound.{json,txt}.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH="$root/python:$root/benchmarks" TESSERA_CONFORMANCE_DIR="$root/dist/conformance" PYTHONUNBUFFERED=1
for impl in tessera triton; do
  timeout 300 python3 dist/conformance/runner.py --impl $impl --bench > "$out/conformance_$impl.jsonl" 2>/dev/null
  echo "conformance $impl: $(tail -1 "$out/conformance_$impl.jsonl")"
done
(cd python && timeout 400 python3 -m pytest -q -m gpu test/gpu -p no:cacheprovider 2>&1 | tail -15) > "$out/gpu_tests.txt"
tail -3 "$out/gpu_tests.txt"
timeout 300 python3 benchmarks/memory_bound.py --timer cudagraph --out "$out/memory_bound.json" > "$out/memory_bound.txt" 2>&1
sed -n '/^case /,$p' "$out/memory_bound.txt" | tail -22
