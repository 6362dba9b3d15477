#!/usr/bin/env bash
# benchmarks/effects_compare.py on the GPU machine (carry "dist"): Tessera's effects against the
# truth and against PyTorch's identify_mutated_tensors on the same Triton kernels. $OUT/effects.json.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
timeout 300 python3 benchmarks/effects_compare.py --out "$out/effects.json" 2>&1 | tee "$out/effects.txt"
