#!/usr/bin/env bash
# Same-machine A/B of memory-bound kernels: benchmarks/memory_bound.py (Triton in the same
# process, CUDA-graph timer, shared outputs) under the packed library ("new") and the baseline's
# (dist/baseline, `pack.sh --baseline <commit> <build dir>`; its Python package must be the same),
# alternating $ROUNDS times, for the cases whose name contains one of $ONLY's comma-separated
# substrings; $MB_ROUNDS timing rounds per process. Carry "dist".
# Results: $OUT/mb_ab.txt (one line per case and process); each process's JSON and log in
# $OUT/mb_logs.tgz.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"; work=$(mktemp -d)
# (AB_READY=1: a caller, such as reduce_ab.sh, has set up the extension and unpacked the baseline.)
if [ "${AB_READY:-}" != 1 ]; then
  bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
fi
export PYTHONPATH=$PWD/python:$PWD/benchmarks PYTHONUNBUFFERED=1 TESSERA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/setup.txt"
source tools/device/probes/ab_libs.sh
[ "${AB_READY:-}" = 1 ] || ab_libs_init
for r in $(seq 1 "${ROUNDS:-3}"); do
  for v in new old; do
    ab_use $v
    timeout 250 python3 benchmarks/memory_bound.py --timer cudagraph --only "${ONLY:-transpose}" --rounds "${MB_ROUNDS:-5}" \
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
