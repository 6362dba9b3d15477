#!/usr/bin/env bash
# A build check (carry "dist"; made for run 105, ttg-hoist-loads behind ttg-pipeline): every GPU test, the
# conformance kernels under ncu (3 passes each) and their table, attention and the 4096^3 matmuls
# beside Triton. Results under $OUT: gpu_tests.txt, conformance_ncu.tgz, ncu_table.txt,
# attention.json, matmul.json.
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH="$root/python:$root/benchmarks" TESSERA_CONFORMANCE_DIR="$root/dist/conformance" PYTHONUNBUFFERED=1
(cd python && timeout 200 python3 -m pytest -q -m gpu test/gpu -p no:cacheprovider 2>&1 | tail -15) > "$out/gpu_tests.txt"
tail -1 "$out/gpu_tests.txt"
OUT="$out" bash tools/device/probes/conformance_ncu.sh 3 > "$out/conformance_ncu.txt" 2>&1
mkdir -p /tmp/cn && tar xzf "$out/conformance_ncu.tgz" -C /tmp/cn && python3 tools/device/probes/ncu_table.py /tmp/cn | tee "$out/ncu_table.txt"
timeout 150 python3 benchmarks/matmul.py --kernel both --rounds 3 --out "$out/matmul.json" > "$out/matmul.txt" 2>&1
python3 -c "
import json
for r in json.load(open('$out/matmul.json')): print(r['kernel'], r['config'], round(r['tessera_tflops'],1), round(r['triton_tflops'],1), round(r['tessera_over_triton'],3))"
timeout 150 python3 benchmarks/attention.py --rounds 2 --out "$out/attention.json" > "$out/attention.txt" 2>&1
tail -4 "$out/attention.txt" | cut -c1-300
