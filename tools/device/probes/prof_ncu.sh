#!/usr/bin/env bash
# Nsight Compute on the profiler's matmuls with and without scopes (launches 1-2: mode "kernels",
# 3-4: mode "scopes"): warp stall reasons, registers, occupancy, instructions. Carry "dist".
# Results: $OUT/ncu_<case>.txt.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
m=gpu__time_duration.sum,launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_active.avg
for s in barrier drain long_scoreboard membar short_scoreboard wait math_pipe_throttle mio_throttle lg_throttle no_instruction dispatch_stall sleeping branch_resolving selected not_selected; do
  m=$m,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio
done
for c in ${CASES:-matmul_4096_coarse matmul_4096}; do
  timeout 240 ncu --clock-control none --metrics $m -k "regex:^matmul" python3 tools/device/probes/prof_ncu.py $c > "$out/ncu_$c.txt" 2>&1
  python3 - "$out/ncu_$c.txt" <<'PY'
import re, sys
rows, cur = {}, -1
for line in open(sys.argv[1]):
    if re.match(r"\s*matmul\S* \(", line):
        cur += 1
    m = re.match(r"\s+(\S+)\s+(?:(\S+)\s+)?([\d.,]+)\s*$", line)
    if m and cur >= 0:
        rows.setdefault(m.group(1), []).append(m.group(3))
for k, v in rows.items():
    print(f"{k:80s} {' '.join(v)}")
PY
done
