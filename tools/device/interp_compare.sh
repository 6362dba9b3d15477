#!/usr/bin/env bash
# On the GPU machine (device tool, carry "dist": tools/device/pack.sh): Tessera's interpreter
# against Triton's (TRITON_INTERPRET=1) on CPU tensors, same inputs, each in its own process: the
# shared conformance suite, the examples and a launch of 4096 programs of a 128-element add, wall
# time of the second launch per case, outputs compared (tools/device/interp_compare.py).
# Results: $OUT/interp_compare.json, $OUT/interp_compare.txt (the table), $OUT/setup.txt,
# $OUT/interp_compare_log.txt.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
bash tools/device/h200_run.sh --setup-only > "$out/setup.txt" 2>&1 || { tail -30 "$out/setup.txt"; exit 1; }
export PYTHONPATH="$root/python" PYTHONUNBUFFERED=1
export TESSERA_CONFORMANCE_DIR="$root/dist/conformance"
python3 -c "import triton, numpy, torch; print('triton', triton.__version__, 'numpy', numpy.__version__, 'torch', torch.__version__)" \
  | tee -a "$out/setup.txt"
timeout 1500 python3 tools/device/interp_compare.py --out "$out" "$@" > "$out/interp_compare_log.txt" 2>&1
rc=$?
tail -40 "$out/interp_compare_log.txt"
exit $rc
