#!/usr/bin/env bash
# A/B of a reduction-lowering change: SASS of chosen cases' kernels under the packed library
# ("new") and the baseline's (dist/baseline, `pack.sh --baseline <commit> <build dir>`), with
# Triton's, in $OUT/sass.tgz (new_*, old_*, triton_*); then memory_bound.py for the cases whose
# names contain one of $ONLY's comma-separated substrings, alternating new/old $ROUNDS times.
#   SASS_CASES="layer_norm fp16 4096x8192;softmax fp32 4096x4096" ONLY=softmax,norm bash reduce_ab.sh
# Results: $OUT/mb_ab.txt (one line per case and process); each process's JSON and log in
# $OUT/mb_logs.tgz.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"; work=$(mktemp -d)
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks PYTHONUNBUFFERED=1 TESSERA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/setup.txt"
source tools/device/probes/ab_libs.sh
ab_libs_init
IFS=';' read -r -a cases <<< "${SASS_CASES:-}"
if [ ${#cases[@]} -gt 0 ]; then
  for v in new old triton; do
    mkdir -p "$work/$v"
    if [ $v = triton ]; then impl=triton; else impl=tessera; ab_use $v; fi
    OUT=$work/$v timeout 120 python3 tools/device/probes/mb_one.py $impl "${cases[@]}" > "$work/$v/log.txt" 2>&1
    for f in "$work/$v"/*.cubin; do [ -e "$f" ] && cuobjdump -sass "$f" > "${f%.cubin}.sass" 2>&1; done
    for f in "$work/$v"/*.cubin; do [ -e "$f" ] && cuobjdump -res-usage "$f" 2>&1 | grep -E "REG|Function" ; done | tee "$work/$v/regs.txt"
  done
  (cd "$work" && tar czf "$out/sass.tgz" new old triton)
fi
for r in $(seq 1 "${ROUNDS:-3}"); do
  for v in new old; do
    ab_use $v
    timeout 250 python3 benchmarks/memory_bound.py --timer cudagraph --only "${ONLY:-softmax}" --rounds "${MB_ROUNDS:-5}" \
      --out "$work/mb_${v}_$r.json" > "$work/mb_${v}_$r.txt" 2>&1
    python3 - "$work/mb_${v}_$r.json" "$v" "$r" <<'PY' | tee -a "$out/mb_ab.txt"
import json, sys
for rec in json.load(open(sys.argv[1])):
    if rec.get("kind") == "case":
        print(sys.argv[2], sys.argv[3], json.dumps({k: rec.get(k) for k in ("case", "ratio", "tessera_ms", "triton_ms") if k in rec}))
PY
  done
done
ab_libs_done
(cd "$work" && tar czf "$out/mb_logs.tgz" mb_*)
