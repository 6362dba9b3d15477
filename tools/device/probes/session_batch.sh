#!/usr/bin/env bash
# One GPU batch for the memory/tensor-core work (carry "dist"): the issue-12 batch (memory-bound
# benchmark, conformance --bench under both compilers, GPU pytest), the large shapes (matmul
# 4096^3 among them), and the conformance kernels under ncu (3 passes). All files end up in
# $OUT/batch.tgz, with $OUT/summary.txt beside it (the device tool brings back at most 8 files).
set -uo pipefail
out="${OUT:-/tmp/out}"
stage=$(mktemp -d)
OUT="$stage" bash tools/device/probes/issue12_run.sh > "$stage/issue12.txt" 2>&1
export PYTHONPATH=$PWD/python TESSERA_CONFORMANCE_DIR=$PWD/dist/conformance
timeout 300 python3 benchmarks/large_shapes.py --out "$stage/large_shapes.json" > "$stage/large_shapes.txt" 2>&1
timeout 300 python3 benchmarks/matmul.py --out "$stage/matmul.json" > "$stage/matmul.txt" 2>&1
OUT="$stage" bash tools/device/probes/conformance_ncu.sh 3 > "$stage/ncu.txt" 2>&1
mkdir -p "$stage/ncu" && tar xzf "$stage/conformance_ncu.tgz" -C "$stage/ncu" && rm "$stage/conformance_ncu.tgz"
python3 tools/device/probes/ncu_table.py "$stage/ncu" > "$stage/ncu_table.txt"
{ tail -26 "$stage/issue12.txt"; tail -8 "$stage/large_shapes.txt"; cat "$stage/matmul.txt"; cat "$stage/ncu_table.txt"; } > "$out/summary.txt"
tar czf "$out/batch.tgz" -C "$stage" .
cat "$out/summary.txt"
