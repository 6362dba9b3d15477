#!/usr/bin/env bash
# A/B of a codegen switch on the tensor-core kernels (carry "dist"): matmul 4096^3 fp16 sweep and
# attention forward under the environment of each variant ($VARIANTS: "name=ENV=VALUE ..." or
# "name" for the plain build), compile cache off, Triton in the same processes. Results under $OUT.
set -uo pipefail
out="${OUT:-/tmp/out}"; mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/benchmarks PYTHONUNBUFFERED=1 TESSERA_CACHE_DISABLE=1
nvidia-smi --query-gpu=name --format=csv,noheader | tee -a "$out/setup.txt"
for v in ${VARIANTS:-plain}; do
  name=${v%%=*}; envs=""; [ "$name" != "$v" ] && envs=${v#*=}
  env $envs timeout 150 python3 benchmarks/matmul_sweep.py --sizes 4096 --dtypes fp16 --rounds 2 --out "$out/matmul_$name.json" > "$out/matmul_$name.txt" 2>&1
  env $envs timeout 150 python3 benchmarks/attention.py --rounds 2 --out "$out/attention_$name.json" > "$out/attention_$name.txt" 2>&1
  echo "== $name"; grep -h "ratio" "$out/matmul_$name.txt" "$out/attention_$name.txt" | grep -v '^{'
done
