#!/usr/bin/env bash
# PTX / TTGIR / SASS of chosen memory-bound cases under both compilers ($OUT/sass.tgz), and each
# kernel under Nsight Compute (third launch): duration, registers, instructions, shared-memory
# bank conflicts, DRAM throughput ($OUT/ncu_<impl>.txt). Carry "dist".
#   bash tools/device/probes/mb_sass.sh "case name" ...
# KERNELS: the ncu kernel-name regex (default "^(add|transpose)"; e.g. "^softmax_kernel").
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"; work=$(mktemp -d)
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks PYTHONUNBUFFERED=1
m=gpu__time_duration.sum,launch__registers_per_thread,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__shared_mem_per_block
for impl in tessera triton; do
  OUT=$work timeout 120 python3 tools/device/probes/mb_one.py $impl "$@"
  OUT=$work timeout 200 ncu --clock-control none --metrics $m -k "regex:${KERNELS:-^(add|transpose)}" \
    python3 tools/device/probes/mb_one.py $impl "$@" > "$out/ncu_$impl.txt" 2>&1
  grep -E "^\s+(\S+_kernel|gpu__|launch__|smsp__|l1tex__|dram__|sm__)" "$out/ncu_$impl.txt" | sed 's/  */ /g'
done
for f in "$work"/*.cubin; do cuobjdump -sass "$f" > "${f%.cubin}.sass" 2>&1; done
(cd "$work" && tar czf "$out/sass.tgz" *.ptx *.ttgir *.sass)
