#!/usr/bin/env bash
# Tensor-core kernels after a codegen change (carry "dist"): matmul 4096^3 fp16 sweep and attention
# forward, Triton in the same process, alternating rounds. Results under $OUT.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/setup.txt"
timeout 240 python3 benchmarks/matmul_sweep.py --sizes 4096 --dtypes fp16 --rounds 2 --out "$out/matmul.json" > "$out/matmul.txt" 2>&1
tail -12 "$out/matmul.txt"
timeout 200 python3 benchmarks/attention.py --rounds 2 --out "$out/attention.json" > "$out/attention.txt" 2>&1
tail -8 "$out/attention.txt"
