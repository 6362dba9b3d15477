#!/usr/bin/env bash
# Same-machine A/B of the profiler's overhead: prof_variants.py (profiler_overhead's cases, modes
# "kernels" and "scopes" alternating) under the packed library ("new") and the baseline's
# (dist/baseline, `pack.sh --baseline <commit> <build dir>`; its Python package must be the same),
# alternating $ROUNDS times; then, with the new library, the profiler's GPU tests and
# profiler_overhead.py with decoding (coverage). Carry "dist". Results: $OUT/ab.jsonl,
# $OUT/decode_new.json, $OUT/gpu_tests.txt.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 TESSERA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/setup.txt"
source tools/device/probes/ab_libs.sh
ab_libs_init
for r in $(seq 1 "${ROUNDS:-2}"); do
  for v in new old; do
    ab_use $v
    timeout 150 python3 tools/device/probes/prof_variants.py "$v" 2>&1 | tee -a "$out/ab.jsonl" | cut -c1-60,200-
  done
done
ab_libs_done
(cd python && timeout 200 python3 -m pytest -q -m gpu test/gpu/test_profiler_gpu.py 2>&1 | tail -5) | tee "$out/gpu_tests.txt"
timeout 240 python3 benchmarks/profiler_overhead.py ${DECODE_CASES:+--cases "$DECODE_CASES"} --out "$out/decode_new.json" 2>&1 | tail -12
