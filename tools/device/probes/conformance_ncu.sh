#!/usr/bin/env bash
# Conformance kernels under Nsight Compute (one launch each, caches flushed, clocks left alone)
# for both compilers, then the runner's --bench twice per compiler, alternating. Carry "dist".
#   bash tools/device/probes/conformance_ncu.sh [kernel-name regex]
set -uo pipefail
out="${OUT:-/tmp/out}"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python TESSERA_CONFORMANCE_DIR=$PWD/dist/conformance
re="${1:-layernorm_kernel|matmul_kernel|argmax_kernel|math_kernel|transpose_kernel|cumsum_kernel|cast_kernel|dropout_kernel}"
metrics=gpu__time_duration.sum,launch__registers_per_thread,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__shared_mem_per_block_dynamic,launch__shared_mem_per_block_static,sm__cycles_active.max
for impl in tessera triton; do
  timeout 200 ncu --clock-control none --metrics $metrics --csv -k "regex:$re" \
    python3 dist/conformance/runner.py --impl $impl > "$out/ncu_$impl.csv" 2> "$out/ncu_$impl.err"
  echo "ncu $impl rc=$? $(grep -c gpu__time_duration "$out/ncu_$impl.csv") rows"
done
for r in 1 2; do for impl in tessera triton; do
  timeout 150 python3 dist/conformance/runner.py --impl $impl --bench > "$out/conf_${impl}_$r.jsonl" 2>/dev/null
  tail -1 "$out/conf_${impl}_$r.jsonl"
done; done
