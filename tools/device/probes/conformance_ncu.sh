#!/usr/bin/env bash
# Conformance kernels under Nsight Compute (caches flushed before each launch, clocks left alone)
# for both compilers, each runner pass launching every case once; then the runner's --bench
# twice per compiler, alternating. Everything lands in $OUT/conformance_ncu.tgz. Carry "dist".
#   bash tools/device/probes/conformance_ncu.sh [passes under ncu (default 3)] [kernel-name regex]
set -uo pipefail
out="${OUT:-/tmp/out}"
work=$(mktemp -d)
bash tools/device/h200_run.sh --setup-only > "$work/setup.txt" 2>&1 || { tail -30 "$work/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python TESSERA_CONFORMANCE_DIR=$PWD/dist/conformance
passes="${1:-3}"
re="${2:-^(add|softmax|layernorm|matmul|row_sum|cumsum|histogram|dropout|noinline|collatz_steps|block_ptr_copy|math|cast|argmax|transpose)_kernel$}"
metrics=gpu__time_duration.sum,launch__registers_per_thread,smsp__inst_executed.sum,dram__bytes_read.sum,launch__shared_mem_per_block_dynamic,sm__cycles_active.max
for p in $(seq 1 "$passes"); do for impl in tessera triton; do
  timeout 200 ncu --clock-control none --metrics $metrics --csv -k "regex:$re" \
    python3 dist/conformance/runner.py --impl $impl > "$work/ncu_${impl}_$p.csv" 2> "$work/ncu_${impl}_$p.err"
  echo "ncu $impl pass $p: $(grep -c gpu__time_duration "$work/ncu_${impl}_$p.csv") kernels"
done; done
for r in 1 2; do for impl in tessera triton; do
  timeout 150 python3 dist/conformance/runner.py --impl $impl --bench > "$work/conf_${impl}_$r.jsonl" 2>/dev/null
  tail -1 "$work/conf_${impl}_$r.jsonl"
done; done
tar czf "$out/conformance_ncu.tgz" -C "$work" .
