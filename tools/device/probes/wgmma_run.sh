#!/usr/bin/env bash
# Issue-13 batch (carry "dist"): builds the extension, runs the tensor-core GPU tests (wgmma,
# pipelined matmuls), then benchmarks/matmul_sweep.py with the given arguments. Results in $OUT.
set -uo pipefail
out="${OUT:-/tmp/out}"
mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader
if [ "${TESTS:-1}" = "1" ]; then
  (cd python && timeout 400 python3 -m pytest -q -x -m gpu test/gpu/test_wgmma_gpu.py test/gpu/test_pipeline_gpu.py 2>&1 | tail -30) | tee "$out/gpu_tests.txt"
fi
timeout 500 python3 benchmarks/matmul_sweep.py --out "$out/matmul_sweep.json" "$@" 2>&1 | tee "$out/sweep.txt" | grep -v '^{"impl"'
