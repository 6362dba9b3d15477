#!/usr/bin/env bash
# ncu of one attention launch per compiler (carry "dist"): warp-state and scheduler sections; the
# reports' text in $OUT/ncu_<impl>.txt.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
for impl in tessera triton; do
  timeout 200 "$NCU" --launch-skip 1 --launch-count 1 -k regex:attention --section SpeedOfLight --section WarpStateStats \
    --section SchedulerStats --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis \
    python3 tools/device/probes/attn_one.py $impl "$@" > "$out/ncu_$impl.txt" 2>&1
  grep -E "Duration|Registers|Achieved Occupancy|Stall|Issued Ipc|Eligible|No Eligible|Warp Cycles|Shared Memory Configuration|Block Limit" "$out/ncu_$impl.txt" | head -40
done
