#!/usr/bin/env bash
# ncu of memory-bound cases under both compilers (carry "dist"). Arguments: "case name|kernel
# regex" pairs, e.g. "rms_norm fp16 4096x1024|rms_norm". Per impl and case: the ncu text in
# $OUT/ncu_<impl>_<n>.txt; PTX/TTGIR dumps from mb_one.py.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks OUT="$out"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
n=0
for pair in "$@"; do
  case_name="${pair%%|*}"; kre="${pair##*|}"; n=$((n + 1))
  for impl in tessera triton; do
    timeout 120 "$NCU" -k "regex:$kre" --launch-skip 2 --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats \
      python3 tools/device/probes/mb_one.py $impl "$case_name" > "$out/ncu_${impl}_$n.txt" 2>&1
    echo "== $impl $case_name"
    grep -E "Duration|Registers Per|Achieved Occupancy|DRAM Throughput|Warp Cycles Per Issued|Block Size|Issued Warp|No Eligible" "$out/ncu_${impl}_$n.txt" | head -12
  done
done
# The dumps travel as one archive ($OUT brings back at most 8 files).
(cd "$out" && tar czf asm.tgz *.ptx *.ttgir 2>/dev/null && rm -f *.ptx *.ttgir)
