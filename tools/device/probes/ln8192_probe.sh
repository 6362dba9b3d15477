#!/usr/bin/env bash
# layer_norm fp16 4096x8192's dependence on ptxas's register choice (runs 146, 147, 162): times
# Tessera's kernel against the bit-field build's PTX and the two halves of that change
# (ptx_edits/ln8192_*.ptx) through ptx_swap.py, and writes the SASS and `ptxas -v` of each to
# $OUT/ln8192_sass.tgz. Needs `h200_run.sh --setup-only` first; carry "dist".
set -uo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/out}"; mkdir -p "$out" /tmp/ln8192
export PYTHONPATH="$root/python" TESSERA_CACHE_DISABLE=1 PYTHONUNBUFFERED=1
edits="ln8192_bitfields ln8192_prologue_only ln8192_slot_only"
# Tessera's own PTX of the case, for the SASS next to the edits.
OUT=/tmp/ln8192 python3 tools/device/probes/mb_dump_all.py tessera > /dev/null 2>&1
cp /tmp/ln8192/tessera/*layer_norm*8192*.ptx /tmp/ln8192/main.ptx 2>/dev/null
for v in main $edits; do
  src=/tmp/ln8192/main.ptx; [ "$v" = main ] || src=tools/device/probes/ptx_edits/$v.ptx
  [ -f "$src" ] || { echo "no $src"; continue; }
  /usr/local/cuda/bin/ptxas -v -arch=sm_90a -O3 "$src" -o /tmp/ln8192/$v.cubin 2> /tmp/ln8192/$v.ptxas.txt
  cuobjdump -sass /tmp/ln8192/$v.cubin > /tmp/ln8192/$v.sass 2>&1
  echo "$v: $(grep -o 'Used [0-9]* registers' /tmp/ln8192/$v.ptxas.txt), $(grep -c LDG /tmp/ln8192/$v.sass) LDG"
done
tar czf "$out/ln8192_sass.tgz" -C /tmp/ln8192 $(cd /tmp/ln8192 && ls *.sass *.ptxas.txt main.ptx 2>/dev/null)
SWAP_VARIANTS=$(for v in $edits; do printf 'file=ptx_edits/%s.ptx,' "$v"; done) SWAP_ROUNDS="${SWAP_ROUNDS:-6}" \
  OUT="$out" timeout 300 python3 tools/device/probes/ptx_swap.py "layer_norm fp16 4096x8192" 2>&1 | grep -v Warning | tail -4
