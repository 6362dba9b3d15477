#!/usr/bin/env bash
# Record-lowering variants: timing of profiler_overhead's cases under each value of
# TESSERA_PROF_EXPERIMENT in $VARIANTS. The committed compiler reads no such variable (every value
# is the committed lowering); run 121's switches were in an uncommitted experimental build, whose
# bits its README lists. Carry "dist". Results: $OUT/variants.jsonl (+ $OUT/decode_<v>.json with
# DECODE_VARIANT: profiler_overhead.py, decoding included, under that value).
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1 TESSERA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/setup.txt"
for v in ${VARIANTS:-0 16 3 4 8 0}; do
  TESSERA_PROF_EXPERIMENT=$v timeout 120 python3 tools/device/probes/prof_variants.py "$v" 2>&1 | tee -a "$out/variants.jsonl" | cut -c1-60,200-
done
if [ -n "${DECODE_VARIANT:-}" ]; then
  TESSERA_PROF_EXPERIMENT=$DECODE_VARIANT timeout 150 python3 benchmarks/profiler_overhead.py --cases "${DECODE_CASES:-matmul_4096,softmax_4096}" --out "$out/decode_$DECODE_VARIANT.json" 2>&1 | tail -8
fi
