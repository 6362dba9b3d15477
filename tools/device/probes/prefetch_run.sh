#!/usr/bin/env bash
# Register prefetch of unaligned operand loads (carry "dist"): matmul GPU tests, the conformance
# matmul under ncu with and without the prefetch beside Triton, and matmuls whose A rows are not
# 16-byte aligned (K = 4095) with and without it beside Triton. Results under $OUT.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks TESSERA_CONFORMANCE_DIR=$PWD/dist/conformance PYTHONUNBUFFERED=1
(cd python && timeout 300 python3 -m pytest -q -m gpu test/gpu -p no:cacheprovider -k "dot or matmul or pipeline or wgmma or version" 2>&1 | tail -8) > "$out/gpu_tests.txt"
tail -3 "$out/gpu_tests.txt"
metrics=gpu__time_duration.sum,launch__registers_per_thread,sm__cycles_active.max
for p in 1 2 3; do
  for impl in tessera triton; do
    timeout 120 ncu --clock-control none --metrics $metrics --csv -k "regex:^matmul_kernel$" \
      python3 dist/conformance/runner.py --impl $impl > "$out/ncu_${impl}_$p.csv" 2>/dev/null
  done
  timeout 120 ncu --clock-control none --metrics $metrics --csv -k "regex:^matmul_kernel$" \
    python3 tools/device/probes/no_prefetch.py dist/conformance/runner.py --impl tessera > "$out/ncu_noprefetch_$p.csv" 2>/dev/null
done
for f in "$out"/ncu_*.csv; do echo "$(basename $f) $(grep -h '"gpu__time_duration.sum"' $f | awk -F'","' '{print $NF}' | tr -d '"' | tr '\n' ' ')"; done
timeout 200 python3 benchmarks/matmul.py --shape 4096,4096,4095 --kernel both --out "$out/mm_prefetch.json" 2>&1 | tail -6
timeout 200 python3 tools/device/probes/no_prefetch.py benchmarks/matmul.py --shape 4096,4096,4095 --kernel both --out "$out/mm_noprefetch.json" 2>&1 | tail -6
