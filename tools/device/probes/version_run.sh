#!/usr/bin/env bash
# After ttg-version-nonnegative (carry "dist"): every GPU test, then the 4096^3 fp16 matmul with
# program ids in row-major order and grouped as in Triton's tutorial (benchmarks/matmul.py
# --kernel both), Tessera beside Triton. Results: $OUT/setup.txt, gpu_tests.txt, matmul.json/.txt.
#   bash tools/device/probes/version_run.sh [skip-tests|quick]   (quick: the versioning's GPU tests)
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH="$root/python:$root/benchmarks" TESSERA_CONFORMANCE_DIR="$root/dist/conformance" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader >> "$out/setup.txt"
if [ "${1:-}" = "quick" ]; then
  (cd python && timeout 200 python3 -m pytest -q -m gpu test/gpu/test_version_nonnegative_gpu.py test/gpu/test_pipeline_gpu.py test/gpu/test_wgmma_gpu.py -p no:cacheprovider 2>&1 | tail -15) > "$out/gpu_tests.txt"
  tail -3 "$out/gpu_tests.txt"
elif [ "${1:-}" != "skip-tests" ]; then
  (cd python && timeout 330 python3 -m pytest -q -m gpu test/gpu -p no:cacheprovider 2>&1 | tail -15) > "$out/gpu_tests.txt"
  tail -3 "$out/gpu_tests.txt"
fi
timeout 200 python3 benchmarks/matmul.py --kernel both --rounds 3 --out "$out/matmul.json" > "$out/matmul.txt" 2>&1
cat "$out/matmul.txt" | cut -c1-400
