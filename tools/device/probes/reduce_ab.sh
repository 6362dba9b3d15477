#!/usr/bin/env bash
# A/B of a lowering change with its SASS: the compiled kernels of chosen cases under the packed
# library ("new"), the baseline's (dist/baseline, `pack.sh --baseline <commit> <build dir>`) and
# Triton, disassembled with their register counts ($OUT/sass.tgz: new/, old/, triton/), then
# mb_ab.sh (the same variables: ONLY, ROUNDS, MB_ROUNDS). Carry "dist".
#   SASS_CASES="layer_norm fp16 4096x8192;softmax fp32 4096x4096" ONLY=softmax,norm bash reduce_ab.sh
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"; work=$(mktemp -d)
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -20 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks PYTHONUNBUFFERED=1 TESSERA_CACHE_DISABLE=1
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
ab_libs_done
AB_READY=1 bash tools/device/probes/mb_ab.sh
