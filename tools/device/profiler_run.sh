#!/usr/bin/env bash
# tessera.profiler on the GPU machine (issue 16): the GPU pytest suite (all of it, the profiler's
# tests included) and benchmarks/profiler_overhead.py (scopes on a matmul 4096^3 and a softmax
# 4096^2: overhead, timeline coverage, the noinline case), plus the matmul's trace for the docs'
# screenshot. Carry "dist" (tools/device/pack.sh).
# Results: $OUT/gpu_tests.txt, $OUT/profiler.json, $OUT/profiler.txt, $OUT/matmul_trace.json,
# $OUT/setup.txt.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH="$root/python" PYTHONUNBUFFERED=1
python3 -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())" | tee -a "$out/setup.txt"
# --bench-only: no tests; --profiler-tests: only the profiler's GPU tests (a short device budget)
tests=test/gpu
[ "${1:-}" = "--profiler-tests" ] && tests=test/gpu/test_profiler_gpu.py
if [ "${1:-}" != "--bench-only" ]; then
  (cd python && timeout 360 python3 -m pytest -q -m gpu "$tests" -p no:cacheprovider 2>&1 | tail -30) | tee "$out/gpu_tests.txt"
fi
timeout 200 python3 benchmarks/profiler_overhead.py --out "$out/profiler.json" 2>&1 | tee "$out/profiler.txt" | tail -20
